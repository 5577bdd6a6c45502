package io.directlog.storage.log;

import java.io.IOException;

import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockWriteBatch;

/**
 * Writes the range a log copied since its last write, [the block where the last write ended, the end of the last
 * copied block), from its write page into its active segment: alone ({@link #write}: one write, through the O_DSYNC
 * descriptor or the plain one, see {@link FlushWriter}), or as the log's part of its writer's shared flush, in two
 * steps around the writer's batch of every log's writes ({@link #add} before the I/O, {@link #onWritten} after).
 * Either way it first fills the gap after the last record, and a failed write (a short one included) fail-stops the
 * log; what a completed write moves on (positions, watermark) stays the appender's.
 * <p>
 * Not thread-safe; owned by the writer thread of its log.
 */
final class PageRangeWriter
{
    private final IoBlock block;
    private final WritePage page;
    private final FlushWriter flushWriter;
    private final LogLifecycle lifecycle;
    private final AppendCounters counters;
    private final LogEventSink events;

    PageRangeWriter(final LogParts parts, final WritePage page, final AppendCounters counters)
    {
        this.block = parts.block();
        this.page = page;
        this.lifecycle = parts.lifecycle();
        this.counters = counters;
        this.events = parts.events();
        this.flushWriter = new FlushWriter(parts.rolledUnsynced(), !parts.context().io().isDirect());
    }

    /** @return which descriptor a write takes and what it must sync first (the appender tells it of rolls). */
    FlushWriter flushWriter()
    {
        return flushWriter;
    }

    /**
     * Writes [{@code flushed}'s block, {@code written}'s block end) of the page alone.
     *
     * @param nextOffset   the offset after the last record copied.
     * @param writableEnd  the end of what the copies wrote into the page (a zero-ahead block included).
     * @param dsync        the write must be durable.
     * @param durableAsked a DSYNC or DIRECT append waits for it.
     */
    void write(final Segment segment, final int flushed, final int written, final long nextOffset,
        final int writableEnd, final boolean dsync, final boolean durableAsked)
    {
        try
        {
            final int end = fillGap(segment, written, nextOffset, writableEnd);
            took(flushWriter.write(segment, page.bytes(), block.down(flushed), end, dsync, durableAsked));
        }
        catch (final IOException | RuntimeException e)
        {
            fail(segment, flushed, written, e);
        }
    }

    /**
     * The shared flush's step before the I/O: fills the gap, syncs rolled segments a DSYNC flush must cover, and
     * adds the range's write through the plain descriptor to {@code batch} (the shared fdatasync follows).
     *
     * @return the file written to, or null when the log failed here (nothing added).
     */
    BlockFile add(final BlockWriteBatch batch, final Segment segment, final int flushed, final int written,
        final long nextOffset, final int writableEnd)
    {
        try
        {
            final int from = block.down(flushed);
            final int end = fillGap(segment, written, nextOffset, writableEnd);
            flushWriter.beforeSharedWrite();
            final BlockFile file = segment.directFile();
            batch.add(file, page.bytes(), from, end - from, from);
            return file;
        }
        catch (final IOException | RuntimeException e)
        {
            fail(segment, flushed, written, e);
            return null;
        }
    }

    /**
     * The shared flush's step after the I/O.
     *
     * @param failure null when the write wrote all its bytes, else why not.
     * @param nanos   how long the batch's writes took.
     */
    void onWritten(final Segment segment, final int flushed, final int written, final Throwable failure,
        final long nanos)
    {
        if (failure != null)
        {
            fail(segment, flushed, written, failure);
            return;
        }
        flushWriter.wroteForSharedFlush(segment);
        took(nanos);
    }

    /**
     * Fills the gap after the last record to the end of its block (a recycled segment's gaps carry write marks,
     * and its writes zero the block after them, issue 17).
     *
     * @return where the write ends.
     */
    private int fillGap(final Segment segment, final int written, final long nextOffset, final int writableEnd)
    {
        final int to = Math.min(segment.capacity(), block.up(written));
        return RecordEncoder.fillGap(page.buffer(), written, to, segment.recycled() ? segment.baseOffset() : -1,
            nextOffset, writableEnd);
    }

    private void took(final long nanos)
    {
        counters.addFlushNanos(nanos);
        events.flushed(nanos);
    }

    private void fail(final Segment segment, final int flushed, final int written, final Throwable cause)
    {
        final int from = block.down(flushed);
        final int to = Math.min(segment.capacity(), block.up(written));
        lifecycle.failStop("write of " + (to - from) + " bytes at " + from + " in " + segment.path().getFileName(),
            cause);
    }
}
