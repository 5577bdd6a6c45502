package io.directlog.storage.log;

import java.util.Arrays;

/**
 * One log's segments, oldest first, and which of them the writer appends to. Readers take the array without a
 * lock (a copy-on-write volatile array); the writer (roll, truncation) and the syncer (retention) replace it
 * under this set's lock, so that the array and the start offset change together.
 * <p>
 * Lock order: taken inside the log's {@link LogLocks#indexLock}, never the other way round (see {@link LogLocks}).
 */
final class SegmentSet
{
    private final Object segmentsLock = new Object();
    private volatile Segment[] segments;
    private volatile long startOffset;
    private volatile Segment active;

    SegmentSet(final Segment[] segments)
    {
        this.segments = segments;
    }

    /** @param recovered the segments recovery found, oldest first. Opening thread, before the log is published. */
    void restore(final Segment[] recovered)
    {
        synchronized (segmentsLock)
        {
            segments = recovered;
        }
    }

    /** @return the segments, oldest first (a snapshot: never changed in place). Any thread. */
    Segment[] all()
    {
        return segments;
    }

    /** @return the lowest offset the log holds. Any thread. */
    long startOffset()
    {
        return startOffset;
    }

    /** @param start the lowest offset the log holds. Opening thread. */
    void startOffset(final long start)
    {
        startOffset = start;
    }

    /** @return the segment the writer appends to, or null before the first roll. Any thread. */
    Segment active()
    {
        return active;
    }

    /** @param segment the segment the writer now appends to. Writer (or the opening thread). */
    void activate(final Segment segment)
    {
        active = segment;
    }

    /** @return the active segment's sequence number, or Long.MAX_VALUE without one. */
    long activeSequence()
    {
        final Segment current = active;
        return current == null ? Long.MAX_VALUE : current.sequence();
    }

    /** Adds a new newest segment; published before any offset in it becomes visible. Writer, at a roll. */
    void append(final Segment segment)
    {
        synchronized (segmentsLock)
        {
            final Segment[] current = segments;
            final Segment[] grown = Arrays.copyOf(current, current.length + 1);
            grown[current.length] = segment;
            segments = grown;
        }
    }

    /** Keeps the first {@code count} segments (truncation, or the loader dropping what it found after the end). */
    void keepFirst(final int count)
    {
        synchronized (segmentsLock)
        {
            if (count < segments.length)
            {
                segments = Arrays.copyOf(segments, count);
            }
        }
    }

    /**
     * Drops the oldest segments if they are still the first ones and none is the active one, and moves the start
     * offset to the first one left. Syncer (retention), under the index lock.
     *
     * @return false when a truncation or a roll changed the picture (try again at the next tick).
     */
    boolean dropOldest(final Segment[] victims)
    {
        synchronized (segmentsLock)
        {
            final Segment[] current = segments;
            if (current.length <= victims.length)
            {
                return false;
            }
            for (int i = 0; i < victims.length; i++)
            {
                if (current[i] != victims[i] || current[i] == active)
                {
                    return false;
                }
            }
            segments = Arrays.copyOfRange(current, victims.length, current.length);
            startOffset = segments[0].baseOffset();
            return true;
        }
    }
}
