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
 * The last step of a recovery that dropped records above where its records end (TRUNCATE_AT_CORRUPTION: a lost
 * middle or newest segment, damage below or beyond the watermark, an open-ended drop after a crash; the default
 * mode too: a torn tail with valid records counted after it, or a write mark naming records past it): offsets are
 * never given to a second record (issue 17), so the log goes on after the highest offset a dropped record may have
 * held ({@link RecoveryRules#continueAt}), not at its cut. The offsets between are a hole:
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
     * The offset the log must go on at after recovery dropped records ({@link RecoveryRules#continueAt}
     * decides): the highest offset a dropped record may have held, named by the checkpoint, found in what was
     * dropped, or bounded where lost bytes leave the range open-ended.
     *
     * @param state       the checkpoint read at open, or null.
     * @param recordsEnd  where the recovered records end.
     * @param segmentSize the log's segment size.
     * @return the offset appends go on at ({@code recordsEnd} when no hole is needed).
     */
    long continueAt(final Checkpoint.State state, final long recordsEnd, final int segmentSize)
    {
        final boolean truncating = state != null && state.truncating();
        final long durableEnd = state == null ? -1 : state.offset();
        // the newest segment whose bytes were lost started at or below every base known: the watermark's offset (its
        // segment's base is not above it), the newest segment a roll named, the end of every record found
        final long lostBase = !scope.droppedUnbounded ? -1 : Math.max(Math.max(recordsEnd, scope.droppedEnd),
            state == null ? -1 : Math.max(state.offset(), state.newestBase()));
        return rules.continueAt(recordsEnd, durableEnd, scope.droppedEnd, lostBase, segmentSize,
            truncating ? state.offset() : -1);
    }

    /** @return the hole's end when the recovered tail must go on after one in a new segment, or -1. */
    long holeAfterTail(final Checkpoint.State state, final int segmentSize)
    {
        final RecoveredLog.Tail tail = scope.tail;
        if (tail.active() == null)
        {
            return -1; // no segment left: the log restarts at its continueAt with no segment (LogLoader)
        }
        final long at = continueAt(state, tail.endOffset(), segmentSize);
        return at > tail.endOffset() ? at : -1;
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
        final Segment after = new Segment(host, sequence, continueAt, path, size, align, false, false, holeFrom);
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
            "dropped records held offsets up to " + continueAt + (scope.droppedUnbounded ? " at most (lost bytes: " +
            "the bound is the most offsets their segment could hold)" : " (named by the checkpoint as durable, or " +
            "found after the cut)") + ": the log goes on at " + continueAt + " in " + path.getFileName() +
            ", whose header records the hole [" + holeFrom + ", " + continueAt + ") so that no offset is given to " +
            "a second record (" + mode + "; a read in the hole returns the records from its end)");
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
