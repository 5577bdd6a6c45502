package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import io.directlog.storage.cache.CachePage;
import io.directlog.storage.format.SegmentHeaderDescriptor;
import io.directlog.storage.page.PageMemory;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.FileMode;

/**
 * The last step of a TRUNCATE_AT_CORRUPTION recovery whose records end below an offset the checkpoint names as
 * durable (a lost middle or newest segment, or damage below the watermark): offsets are never given to a second
 * record (issue 17), so the log goes on at the checkpoint's offset, not at its cut. The offsets between are a hole:
 * a new, empty segment whose header records it ({@link SegmentHeaderDescriptor#FLAG_HOLE_BEFORE}, with where the
 * previous segment's records end) is made, synced and named before anything new is acknowledged, and becomes the
 * active one; the segment that was cut becomes read-only. Readers skip the hole (a read at an offset in it returns
 * the records from the hole's end), truncation to an offset in it goes to its end.
 * <p>
 * Not thread-safe: one open, on the opening thread.
 */
final class OffsetHole extends RecoveryStep
{
    OffsetHole(final RecoveryScope scope)
    {
        super(scope);
    }

    /**
     * The offset the log must go on at when TRUNCATE_AT_CORRUPTION cut it below the checkpoint's watermark (the
     * records up to it were durable, whatever was found of them): the highest offset known to have been used, the
     * watermark's or the end of the records found in dropped segments; -1 when the log goes on at its end (no cut
     * below the watermark: records dropped beyond it were never durable under any promise the checkpoint records).
     */
    long continueAt(final Checkpoint.State state)
    {
        final RecoveredLog.Tail tail = scope.tail;
        if (!rules.givesUpLostSegments() || state == null || state.truncating() || tail.active() == null ||
            state.offset() <= tail.endOffset())
        {
            return -1;
        }
        return Math.max(state.offset(), scope.droppedEnd);
    }

    /**
     * Makes the segment after the hole {@code [tail end, continueAt)} and makes it the tail; the cut segment is
     * sealed at its records' end and kept as read cache.
     *
     * @param used       the segments: the new one is added last.
     * @param continueAt the hole's end, the new segment's base offset.
     * @param sequence   the new segment file's sequence number (above every file's).
     * @param size       the new segment's size (a rung of the log's ladder).
     * @param host       what the segments ask of the log.
     * @param logId      the log's id.
     */
    void open(final List<Segment> used, final long continueAt, final long sequence, final int size,
        final SegmentHost host, final long logId) throws IOException
    {
        final RecoveredLog.Tail tail = scope.tail;
        final Segment cut = tail.active();
        final long holeFrom = tail.endOffset();
        final Path path = SegmentFiles.segment(dir, sequence);
        writeFile(path, size, sequence, continueAt, holeFrom, logId);
        final Segment after = new Segment(host, sequence, continueAt, path, size, align, false, holeFrom);
        final BlockFile direct = io.open(path, FileMode.DIRECT, false);
        try
        {
            after.writeFiles(direct, io.open(path, FileMode.DIRECT_DSYNC, false));
        }
        catch (final IOException e)
        {
            RecoveryScope.closeQuietly(direct);
            throw e;
        }
        after.index(new SegmentIndex(size));
        after.maxTimestamp(tail.lastTimestamp());
        // the cut segment as a rolled one: its end for readers, its page read cache, its write files closed (every
        // byte of it was synced by recovery)
        cut.publishEnd(tail.position(), holeFrom);
        cut.seal(tail.position(), holeFrom);
        final CachePage page = tail.page();
        if (page != null)
        {
            page.markReadOnly();
        }
        cut.closeWriteFiles();
        used.add(after);
        scope.tail = new RecoveredLog.Tail(after, null, SegmentHeaderDescriptor.LENGTH, continueAt,
            tail.lastTimestamp(), -1, -1);
        LOG.log(System.Logger.Level.WARNING, "log '" + name + "': the records end at offset " + holeFrom + " but " +
            "the checkpoint names offset " + continueAt + " as durable: the log goes on at " + continueAt + " in " +
            path.getFileName() + ", whose header records the hole [" + holeFrom + ", " + continueAt + ") so that " +
            "no offset is given to a second record (TRUNCATE_AT_CORRUPTION; a read in the hole returns the records " +
            "from its end)");
    }

    /** A whole, zeroed segment file with the header, synced, then named (as a prepared file is). */
    private void writeFile(final Path path, final int size, final long sequence, final long base,
        final long holeFrom, final long logId) throws IOException
    {
        final Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
        final PageMemory memory = PageMemory.allocate(size, align);
        try
        {
            memory.zero();
            SegmentHeaderDescriptor.writeAfterHole(memory.buffer(), logId, base, sequence, size, align,
                System.currentTimeMillis(), holeFrom);
            try (BlockFile f = io.open(tmp, FileMode.DIRECT, true))
            {
                f.allocate(size);
                f.write(memory.byteBuffer(), 0, size, 0);
                f.datasync();
            }
        }
        finally
        {
            memory.free();
        }
        io.rename(tmp, path);
        io.syncDirectory(dir);
    }
}
