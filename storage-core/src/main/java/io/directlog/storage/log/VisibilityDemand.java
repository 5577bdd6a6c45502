package io.directlog.storage.log;

import java.util.concurrent.atomic.AtomicLong;

import io.directlog.storage.Durability;

/**
 * What waiting readers of a DSYNC log want to see, so that records appended there with MEMORY or DIRECT become
 * visible soon after they are written rather than at the background sync, {@code syncInterval} later.
 * <p>
 * Readers see only what is durable under the log's default durability; in a DSYNC log a MEMORY or DIRECT append
 * is written through the plain O_DIRECT descriptor and becomes durable (and visible) only at the next DSYNC write
 * or background fdatasync. With the default intervals that kept a reader waiting about a second for records
 * acknowledged in microseconds. So a reader that waits ({@code awaitAppend}, {@code LogReader.poll} with a
 * timeout) records the offset it waits for here, and while a waiting reader wants an offset at or above the
 * visible end:
 * <ul>
 *   <li>the writer writes what it copied at its next duty cycle, not at {@code flushBytes} or {@code flushInterval},
 *   and makes that write a DSYNC write ({@link #wantsDsyncWrite}): it covers every earlier write of the log, as an
 *   O_DSYNC write asked for by a DSYNC append does, so the log's visibility moves to its end. Records copied while
 *   that write runs go in the next one (group commit), so a tailing reader waits about one device write, not a
 *   flush interval; DIRECT appends are then acknowledged after the slower O_DSYNC write. An idle writer is not
 *   woken by the reader: records copied before the reader came are written at the writer's next append or
 *   deadline ({@code flushInterval}) at the latest;</li>
 *   <li>the syncer syncs at its next tick (every 20 ms) instead of waiting out {@code syncInterval}, when records
 *   already written are not yet visible ({@link #wantsEarlySync}): those written before the reader came.</li>
 * </ul>
 * A reader that stops waiting leaves its offset behind: at most the writes up to that offset are upgraded.
 * <p>
 * Thread-safe: readers raise the wanted offset, the writer and the syncer read it.
 */
final class VisibilityDemand
{
    /** The highest offset a reader waited for; -1 when none did. */
    private final AtomicLong wantedOffset = new AtomicLong(-1);

    /**
     * A reader waits for {@code offset} to become visible.
     *
     * @param offset the offset it waits for.
     */
    void readerWaitsFor(final long offset)
    {
        // the common case is one tail reader asking for ever higher offsets: one volatile read, one write
        long wanted = wantedOffset.get();
        while (offset > wanted && !wantedOffset.compareAndSet(wanted, offset))
        {
            wanted = wantedOffset.get();
        }
    }

    /**
     * @param logDurability the log's default durability (its visibility rule).
     * @param visibleEnd    the log's visible end offset.
     * @return true when the writer's next write should go through the O_DSYNC descriptor for a waiting reader.
     */
    boolean wantsDsyncWrite(final Durability logDurability, final long visibleEnd)
    {
        return logDurability == Durability.DSYNC && wantedOffset.get() >= visibleEnd;
    }

    /**
     * @param logDurability the log's default durability (its visibility rule).
     * @param written       the newest written watermark.
     * @param visibleEnd    the log's visible end offset.
     * @return true when the syncer should sync now: a reader waits for records that are written but not visible.
     */
    boolean wantsEarlySync(final Durability logDurability, final WatermarkCell written, final long visibleEnd)
    {
        if (!wantsDsyncWrite(logDurability, visibleEnd))
        {
            return false; // the common case, checked every 20 ms per log: no watermark copy
        }
        final Watermark w = written.get();
        return w != null && w.offset() > visibleEnd;
    }
}
