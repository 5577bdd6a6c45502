package io.directlog.storage.log;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.Durability;

/**
 * What readers of one log may see: the visible end offset, the rolled segments whose end is not visible yet, and
 * the readers waiting for more ({@link io.directlog.storage.Log#awaitAppend}).
 * <p>
 * Threads: the writer alone publishes (after a write, at a roll, at a truncation, at close); any thread reads the
 * visible end and waits. The monitor is only ever held to wait or to notify, never while taking another lock.
 */
final class Visibility
{
    private final String name;
    private final Object visibilityMonitor = new Object();
    private volatile long visibleEndOffset;
    private volatile int waiters;
    /** Rolled segments whose end readers may not see yet (a DIRECT or DSYNC log shows only what was written). */
    private final ArrayDeque<Segment> invisibleRolled = new ArrayDeque<>();
    /** What waiting readers want visible: in a DSYNC log it upgrades writes and brings the sync forward. */
    private final VisibilityDemand demand = new VisibilityDemand();

    Visibility(final String name)
    {
        this.name = name;
    }

    /** @return the offset after the last record readers may see. Any thread. */
    long visibleEndOffset()
    {
        return visibleEndOffset;
    }

    /** @return what waiting readers want visible (the writer and the syncer ask it). */
    VisibilityDemand demand()
    {
        return demand;
    }

    /** @param offset the visible end recovery found. Opening thread. */
    void start(final long offset)
    {
        visibleEndOffset = offset;
    }

    /**
     * Waits until the record at {@code offset} is visible.
     *
     * @return false when {@code timeout} passed first.
     */
    boolean awaitAppend(final long offset, final Duration timeout, final LogLifecycle lifecycle)
        throws InterruptedException
    {
        if (offset < 0)
        {
            throw new IllegalArgumentException("offset=" + offset + " must not be negative (log '" + name + "')");
        }
        if (timeout == null)
        {
            throw new NullPointerException("timeout must not be null");
        }
        if (visibleEndOffset > offset)
        {
            return true;
        }
        demand.readerWaitsFor(offset);
        final long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (visibilityMonitor)
        {
            waiters++;
            try
            {
                while (visibleEndOffset <= offset)
                {
                    lifecycle.checkOpenForRead();
                    final long remaining = deadline - System.nanoTime();
                    if (remaining <= 0)
                    {
                        return false;
                    }
                    TimeUnit.NANOSECONDS.timedWait(visibilityMonitor, remaining);
                }
                return true;
            }
            finally
            {
                waiters--;
            }
        }
    }

    /** Wakes the waiting readers (something became visible, or the log closed or failed). Any thread. */
    void signalWaiters()
    {
        if (waiters > 0)
        {
            synchronized (visibilityMonitor)
            {
                visibilityMonitor.notifyAll();
            }
        }
    }

    /**
     * Makes records up to the given watermark visible: rolled segments it passes first, then the active one.
     * The caller checked that the watermark is of the current epoch and beyond the visible end. Writer only.
     */
    void publishUpTo(final long wSequence, final int wPosition, final long wOffset, final Segment active)
    {
        Segment rolled;
        while ((rolled = invisibleRolled.peekFirst()) != null)
        {
            if (rolled.sequence() < wSequence)
            {
                rolled.publishEnd(rolled.sealedPosition(), rolled.sealedOffset());
                invisibleRolled.pollFirst();
            }
            else
            {
                if (rolled.sequence() == wSequence)
                {
                    rolled.publishEnd(wPosition, wOffset);
                }
                break;
            }
        }
        if (active != null && active.sequence() == wSequence)
        {
            active.publishEnd(wPosition, wOffset); // release: the segment's end before the log's
        }
        visibleEndOffset = wOffset;
        signalWaiters();
    }

    /** Makes the active segment visible up to {@code position} (a MEMORY log, at the copy). Writer only. */
    void publishActive(final Segment active, final int position, final long offset)
    {
        active.publishEnd(position, offset); // release: the segment's end before the log's
        visibleEndOffset = offset;
        signalWaiters();
    }

    /**
     * On a MEMORY log, makes everything copied visible (a MEMORY acknowledgement never precedes its visibility);
     * nothing on a DIRECT or DSYNC log, whose readers see what was written. Writer only.
     */
    void publishCopied(final Durability logDurability, final Segment active, final int position, final long offset)
    {
        if (logDurability == Durability.MEMORY && visibleEndOffset != offset)
        {
            publishActive(active, position, offset);
        }
    }

    /**
     * Makes records up to a watermark visible (its fields, so a flush allocates nothing), unless a truncation came
     * after it ({@code wEpoch} not {@code currentEpoch}) or they are visible already. Writer only.
     */
    void publishWritten(final long currentEpoch, final long wEpoch, final long wSequence, final int wPosition,
        final long wOffset, final Segment active)
    {
        if (wEpoch == currentEpoch && wOffset > visibleEndOffset)
        {
            publishUpTo(wSequence, wPosition, wOffset, active);
        }
    }

    /** @param rolled a segment just rolled whose end becomes visible once durable ({@link #publishUpTo}). */
    void hideRolled(final Segment rolled)
    {
        invisibleRolled.addLast(rolled);
    }

    /**
     * Truncation, before the bytes change: readers see the lower end first; rolled segments below the cut (synced
     * by then) become visible in full, the others are gone. Writer only.
     */
    void cutTo(final long offset, final long targetSequence)
    {
        if (visibleEndOffset > offset)
        {
            visibleEndOffset = offset;
        }
        for (final Segment s : invisibleRolled)
        {
            if (s.sequence() < targetSequence)
            {
                s.publishEnd(s.sealedPosition(), s.sealedOffset()); // synced above: visible once the cut is
            }
        }
        invisibleRolled.clear();
    }

    /** Truncation, after the bytes changed: the log ends at the cut (the caller signals the waiters). Writer only. */
    void endAt(final long offset)
    {
        visibleEndOffset = offset;
    }
}
