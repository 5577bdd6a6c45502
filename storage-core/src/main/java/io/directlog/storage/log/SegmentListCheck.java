package io.directlog.storage.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import io.directlog.storage.CorruptLogException;
import io.directlog.storage.LogConfig;
import io.directlog.storage.MemoryBudgetExceededException;
import io.directlog.storage.RecoveryMode;
import io.directlog.storage.cache.CachePage;
import io.directlog.storage.format.RecordDescriptor;
import io.directlog.storage.format.SegmentHeaderDescriptor;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;
import io.directlog.storage.page.PageMemory;
import org.agrona.concurrent.AtomicBuffer;

/**
 * Recovery's checks of the segment list before any record is read: against the checkpoint's list (segments
 * missing, or emptied), bad headers, and blank files that are holes. What {@link RecoveryRules} gives up is
 * dropped here (files recycled, the range counted); what it refuses throws before anything on disk changed.
 * <p>
 * Not thread-safe: one open, on the opening thread.
 */
final class SegmentListCheck extends RecoveryStep
{
    SegmentListCheck(final RecoveryScope scope)
    {
        super(scope);
    }

    /**
     * A version 2 checkpoint names the segment list as it was (the start offset, the first segment's sequence and
     * how many segments there were through the watermark's): a segment file missing from it (deleted, or emptied so
     * that it has no header) is found here rather than taken for retention's work or for the end (issue 17). Files
     * below the recorded first segment are ones retention took out of the list just before a crash: recycled.
     * {@link RecoveryMode#TRUNCATE_AT_CORRUPTION} gives up a lost start range (the log starts at the first segment
     * left, the range reported) and cuts the log before a lost middle segment (later segments dropped and counted);
     * the other modes refuse, and a refused open changes nothing on disk.
     *
     * @return true when segments were dropped (the open is then not clean).
     */
    boolean checkSegmentList(final List<Segment> used, final List<Long> blank, final TreeMap<Long, Path> files,
        final long badNewest, final List<Long> badLater, final Checkpoint.State state, final LogMeta meta)
        throws IOException
    {
        final boolean takenLost = checkTakenAfterWatermark(used, blank, files, badNewest, badLater, state);
        if (state == null || !state.knowsSegments() || state.segmentCount() <= 0 || state.firstSequence() < 0)
        {
            return takenLost;
        }
        final long first = state.firstSequence();
        final long last = state.sequence();
        int present = 0;
        Segment firstPresent = null;
        for (final Segment s : used)
        {
            if (s.sequence() >= first && s.sequence() <= last)
            {
                present++;
                firstPresent = firstPresent == null ? s : firstPresent;
            }
        }
        for (final long bad : badLater)
        {
            present += bad >= first && bad <= last ? 1 : 0;
        }
        present += badNewest >= first && badNewest <= last ? 1 : 0; // damaged, not missing: judged by its own rules
        final boolean startLost = firstPresent == null || firstPresent.sequence() != first ||
            firstPresent.baseOffset() != state.startOffset();
        if (present >= state.segmentCount() && !startLost)
        {
            dropBelowFirst(used, blank, first);
            return takenLost;
        }
        final String where = "log '" + name + "': the checkpoint names " + state.segmentCount() + " segment(s) from " +
            SegmentFiles.segment(dir, first).getFileName() + " (start offset " + state.startOffset() +
            ") through " + SegmentFiles.segment(dir, last).getFileName() + " (watermark offset " + state.offset() +
            "), but " + present + " of them are there with a header" +
            (firstPresent == null ? "" : ", the first at offset " + firstPresent.baseOffset()) +
            ": acknowledged records are missing";
        if (!rules.givesUpLostSegments())
        {
            throw new CorruptLogException(where + " (recovery mode " + mode + ")");
        }
        dropBelowFirst(used, blank, first);
        boolean dropped = false;
        if (startLost && firstPresent != null && firstPresent.baseOffset() > state.startOffset())
        {
            // the oldest segment(s) lost: the log starts at the first one left, the range below is given up
            scope.startLostFrom = state.startOffset();
            scope.startLostTo = firstPresent.baseOffset();
            for (int k = blank.size() - 1; k >= 0; k--)
            {
                if (blank.get(k) < firstPresent.sequence())
                {
                    scope.recycle(files.get(blank.remove(k))); // an emptied file of the lost range: not a crash's hole
                }
            }
            LOG.log(System.Logger.Level.WARNING, where + ": offsets [" + scope.startLostFrom + ", " + scope.startLostTo +
                ") are given up, the log starts at " + scope.startLostTo + " (TRUNCATE_AT_CORRUPTION)");
            dropped = true;
        }
        else if (firstPresent == null)
        {
            scope.startLostFrom = state.startOffset();
            scope.startLostTo = state.offset();
        }
        return cutAtLostMiddleSegment(used, state, meta, where) || dropped || takenLost;
    }

    /**
     * A version 3 checkpoint also names the segments taken after the watermark's (the writer writes a slot at each
     * roll, before any record of the new segment is acknowledged): how many and the newest. One of their files
     * missing (deleted, or renamed away) may have held acknowledged records, beyond every durable point recovery
     * knows (issue 17, defect 5): the other modes refuse; {@link RecoveryMode#TRUNCATE_AT_CORRUPTION} goes on (the
     * scan ends the log where the records stop following on) with the dropped range open-ended from the end, since
     * how far the lost file's records reached is not known. A file there with no header or a bad one is not
     * missing: a taken segment whose first write did not land, judged by the scan; but one with no header and
     * shorter than any segment (emptied) is. A truncation in progress (its
     * checkpoint is the end) and a clean close name nothing after the watermark.
     * <p>
     * An open that cuts files after the watermark keeps them under their names until its first checkpoint write
     * ({@link RecoveryScope#recycle}): killed before it, the next open finds them all and decides as it did.
     *
     * @return true when a file was missing and the open goes on (TRUNCATE_AT_CORRUPTION).
     */
    private boolean checkTakenAfterWatermark(final List<Segment> used, final List<Long> blank,
        final TreeMap<Long, Path> files, final long badNewest, final List<Long> badLater, final Checkpoint.State state)
        throws IOException
    {
        if (state == null || state.takenAfterCount() <= 0 || state.truncating() || state.clean())
        {
            return false;
        }
        final long after = state.sequence();
        final long newest = state.newestSequence();
        int present = 0;
        for (final Segment s : used)
        {
            present += s.sequence() > after && s.sequence() <= newest ? 1 : 0;
        }
        final List<Long> others = new ArrayList<>();
        for (final long sequence : blank)
        {
            // a taken file whose header never landed is whole (its rung's size); an emptied one is not there
            if (fileSize(files.get(sequence)) >= LogConfig.INITIAL_SEGMENT_SIZE_MIN)
            {
                others.add(sequence);
            }
        }
        others.addAll(badLater);
        others.add(badNewest);
        for (final long sequence : others)
        {
            present += sequence > after && sequence <= newest ? 1 : 0;
        }
        if (present >= state.takenAfterCount())
        {
            return false;
        }
        final String where = "log '" + name + "': the checkpoint names " + state.takenAfterCount() + " segment(s) " +
            "taken after the watermark's (segment " + after + ", offset " + state.offset() + "), the newest " +
            SegmentFiles.segment(dir, newest).getFileName() + " at offset " + state.newestBase() + ", but " + present +
            " of their files are there: records beyond the watermark, maybe acknowledged, are missing";
        if (!rules.givesUpLostSegments())
        {
            throw new CorruptLogException(where + " (recovery mode " + mode + ")");
        }
        scope.droppedUnbounded = true;
        LOG.log(System.Logger.Level.WARNING, where + ": the log ends where its records stop following on, the " +
            "dropped range open-ended from there (TRUNCATE_AT_CORRUPTION)");
        return true;
    }

    private long fileSize(final Path path) throws IOException
    {
        try (BlockFile f = io.open(path, FileMode.READ, false))
        {
            return f.size();
        }
    }

    /**
     * A lost segment in the middle: the log ends where the records stop following on; the segments after that
     * point are recycled and their records counted as dropped.
     *
     * @return true when segments were dropped.
     */
    private boolean cutAtLostMiddleSegment(final List<Segment> used, final Checkpoint.State state,
        final LogMeta meta, final String where) throws IOException
    {
        final long last = state.sequence();
        final int recordLogId = RecordDescriptor.recordLogId(meta.logId());
        for (int k = 0; k + 1 < used.size() && used.get(k).sequence() < last; k++)
        {
            final long end = scope.endOfDropped(used, k, k + 1, recordLogId);
            if (end != used.get(k + 1).precedingEnd())
            {
                scope.droppedEnd = Math.max(scope.droppedEnd,
                    Math.max(state.offset(), scope.endOfDropped(used, k + 1, recordLogId)));
                scope.droppedFrom = scope.droppedFrom < 0 ? end : Math.min(scope.droppedFrom, end);
                for (int j = used.size() - 1; j > k; j--)
                {
                    final Segment later = used.remove(j);
                    IndexFile.delete(io, dir, later.sequence());
                    scope.recycle(later.path());
                }
                LOG.log(System.Logger.Level.WARNING, where + ": the log ends at offset " + end + " where segment " +
                    "files are missing after " + used.get(k).path().getFileName() + " (TRUNCATE_AT_CORRUPTION)");
                return true;
            }
        }
        return false;
    }

    /** Recycles the files retention took out of the list before a crash removed them (below the first segment). */
    private void dropBelowFirst(final List<Segment> used, final List<Long> blank, final long first)
        throws IOException
    {
        while (!used.isEmpty() && used.get(0).sequence() < first)
        {
            final Segment gone = used.remove(0);
            IndexFile.delete(io, dir, gone.sequence());
            scope.recycle(gone.path());
        }
        blank.removeIf(sequence ->
        {
            if (sequence >= first)
            {
                return false;
            }
            try
            {
                io.delete(SegmentFiles.segment(dir, sequence)); // a blank file behind the head cannot be used
            }
            catch (final IOException e)
            {
                throw new java.io.UncheckedIOException(e);
            }
            return true;
        });
    }

    /**
     * An invalid header with valid segments after it (or a second invalid one) is corruption: no crash leaves
     * that, since a segment's header goes to disk with its first write, before any later segment is taken. Only
     * TRUNCATE_AT_CORRUPTION opens such a log: it ends before the first bad header, and the segments after it are
     * recycled with their records counted as dropped. Otherwise the bad header is the newest file with one, and
     * {@link #checkBadNewest} decides.
     */
    void dropAfterBadHeader(final List<Segment> used, final TreeMap<Long, Path> files, final long bad,
        final String why, final List<Long> badLater, final LogMeta meta) throws IOException
    {
        int from = 0;
        while (from < used.size() && used.get(from).sequence() < bad)
        {
            from++;
        }
        if (from == used.size() && badLater.isEmpty())
        {
            return;
        }
        final String where = "log '" + name + "': segment " + files.get(bad) + " position 0: invalid header (" + why +
            ")" + (from < used.size() ? ", and " + (used.size() - from) + " later segment file(s) hold records" :
            ", and later files have invalid headers too");
        if (!rules.givesUpLostSegments())
        {
            throw new CorruptLogException(where + " (recovery mode " + mode + ")");
        }
        if (from < used.size())
        {
            scope.droppedEnd = Math.max(scope.droppedEnd, scope.endOfDropped(used, from, RecordDescriptor.recordLogId(meta.logId())));
            scope.droppedFrom = scope.droppedFrom < 0 ? used.get(from).baseOffset() :
                Math.min(scope.droppedFrom, used.get(from).baseOffset());
        }
        for (int k = used.size() - 1; k >= from; k--)
        {
            final Segment later = used.remove(k);
            IndexFile.delete(io, dir, later.sequence());
            scope.recycle(later.path());
        }
        for (final long sequence : badLater)
        {
            scope.recycle(files.get(sequence));
        }
        LOG.log(System.Logger.Level.WARNING, where + ": the log ends before it (TRUNCATE_AT_CORRUPTION)");
    }

    /**
     * The newest file's header is invalid: a torn first write, unless something says records were there. Valid
     * records of this log after the header (TRUNCATE_AT_CORRUPTION; the other modes refuse them) are dropped with
     * the file: the whole range is reported, from the segment's start (where the previous segment's records end,
     * or the first record found when nothing precedes it) to the end of the farthest record found, and the log
     * goes on after it ({@link RecoveryRules#continueAt}).
     */
    void checkBadNewest(final Path path, final long sequence, final String why, final Checkpoint.State state,
        final List<Segment> used, final int size, final LogMeta meta) throws IOException
    {
        final String where = "log '" + name + "': segment " + path + " position 0: invalid header (" + why + ")";
        final boolean covered = state != null && state.sequence() >= sequence;
        final RecoveryRules.DamageVerdict before = rules.judgeBadNewestHeader(covered, false);
        if (before == RecoveryRules.DamageVerdict.REFUSE_ANY_DAMAGE)
        {
            throw new CorruptLogException(where + " (recovery mode ABSOLUTE_CONSISTENCY)");
        }
        if (before == RecoveryRules.DamageVerdict.REFUSE_BELOW_WATERMARK)
        {
            throw new CorruptLogException(where + ", below the durable watermark (segment " + state.sequence() +
                " position " + state.position() + "): corruption, not a torn first write");
        }
        final long lowest = used.isEmpty() ? 0 : used.get(used.size() - 1).baseOffset();
        final PageMemory memory = PageMemory.allocate(size, align);
        try (BlockFile f = io.open(path, FileMode.READ, false))
        {
            final int read = scope.readTolerant(f, memory.byteBuffer(), 0, size);
            scope.scannedBytes += read;
            final DamageProbe.ValidAfter valid = DamageProbe.validRecordAfter(memory.buffer(),
                SegmentHeaderDescriptor.LENGTH - 8, Math.max(0, read), lowest,
                RecordDescriptor.recordLogId(meta.logId()), align);
            final long found = valid.endOffset;
            if (found >= 0)
            {
                if (rules.judgeBadNewestHeader(covered, true) == RecoveryRules.DamageVerdict.REFUSE_VALID_RECORDS_AFTER)
                {
                    throw new CorruptLogException(where + ", and valid records (up to offset " + found +
                        ") follow it: corruption, not a torn first write");
                }
                // the segment started where the previous one's records end (known once its tail is recovered: the
                // report takes the lower of the two), at the latest where its first record found starts; below a
                // lost start range the checkpoint's list named, that range reports it (counted once)
                final long from = Math.max(valid.firstOffset, scope.startLostTo);
                scope.droppedFrom = scope.droppedFrom < 0 ? from : Math.min(scope.droppedFrom, from);
                scope.droppedEnd = Math.max(scope.droppedEnd, found);
                LOG.log(System.Logger.Level.WARNING, where + ": valid records from offset " + valid.firstOffset +
                    " up to offset " + found + " follow it, dropped with the file and counted from where the " +
                    "previous segment's records end (TRUNCATE_AT_CORRUPTION)");
            }
        }
        finally
        {
            memory.free();
        }
        LOG.log(System.Logger.Level.WARNING, where + ": reusing it as a prepared segment once re-zeroed");
    }

    /**
     * Segments an earlier open gave up when it cut the log and went on after a hole in the offsets (a segment whose
     * header records the hole, {@link Segment#holeFrom()}), still under their names: that open was stopped before it
     * renamed them away (it keeps them until its first checkpoint write, and makes the segment after the hole before
     * it). They lie between the cut segment (whose records end where the hole starts) and the segment after the
     * hole; that open gave up everything after its cut, so they are given up again, their records counted as
     * dropped and logged, and the next open decides as the stopped one did. In every mode: the hole was decided.
     *
     * @return true when segments were dropped.
     */
    boolean dropGivenUpBeforeHole(final List<Segment> used, final LogMeta meta) throws IOException
    {
        for (int j = 1; j < used.size(); j++)
        {
            final long holeFrom = used.get(j).holeFrom();
            if (holeFrom < 0)
            {
                continue;
            }
            // the cut segment: the last one before whose records start below the hole (or the first at its start,
            // a cut segment left with no record)
            int cut = -1;
            for (int k = 0; k < j; k++)
            {
                final long base = used.get(k).baseOffset();
                cut = base < holeFrom || cut < 0 && base == holeFrom ? k : cut;
            }
            if (cut < 0 || cut == j - 1)
            {
                continue;
            }
            final long end = scope.endOfDropped(used, cut + 1, j, RecordDescriptor.recordLogId(meta.logId()));
            scope.droppedEnd = Math.max(scope.droppedEnd, end);
            scope.droppedFrom = scope.droppedFrom < 0 ? holeFrom : Math.min(scope.droppedFrom, holeFrom);
            final String which = used.get(cut + 1).path().getFileName() + " .. " + used.get(j - 1).path().getFileName();
            for (int k = j - 1; k > cut; k--)
            {
                final Segment given = used.remove(k);
                IndexFile.delete(io, dir, given.sequence());
                scope.recycle(given.path());
            }
            LOG.log(System.Logger.Level.WARNING, "log '" + name + "': segments " + which + " lie between the cut " +
                "segment and the hole [" + holeFrom + ", " + used.get(cut + 1).baseOffset() + ") after it: an open " +
                "that gave them up (records up to offset " + end + ", dropped) was stopped before it renamed them away");
            return true;
        }
        return false;
    }

    /**
     * A headerless (blank) file below every segment with records, while the first of those does not start at
     * offset 0, is a hole: that taken segment's first write was lost in a crash (a volatile cache) while a later
     * segment's survived, so the log would open starting above 0. The segments after it are recycled and their
     * records counted as dropped. A blank file can also be a prepared file that failed to open (an I/O error) and
     * was skipped: then the next segment starts where the log did, so it is left alone. A blank file between two
     * segments is checked by recoverCrash's contiguity check (the previous segment's end against the next base).
     * Limitation: retention that deleted every segment below such a skipped file would look like a hole here.
     *
     * @return true when segments were dropped.
     */
    boolean dropAfterBlank(final List<Segment> used, final List<Long> blank, final LogMeta meta)
        throws IOException
    {
        if (used.isEmpty() || blank.isEmpty() || blank.get(0) > used.get(0).sequence() ||
            used.get(0).baseOffset() == 0)
        {
            return false;
        }
        final long hole = blank.get(0);
        int from = 0;
        while (used.get(from).sequence() < hole)
        {
            from++;
        }
        final String where = "log '" + name + "': segment file " + SegmentFiles.segment(dir, hole).getFileName() +
            " has no header but " + (used.size() - from) + " later segment file(s) hold records";
        if (rules.refusesHole())
        {
            throw new CorruptLogException(where + " (recovery mode ABSOLUTE_CONSISTENCY)");
        }
        scope.droppedEnd = Math.max(scope.droppedEnd, scope.endOfDropped(used, from, RecordDescriptor.recordLogId(meta.logId())));
        scope.droppedFrom = scope.droppedFrom < 0 ? used.get(from).baseOffset() : Math.min(scope.droppedFrom, used.get(from).baseOffset());
        for (int k = used.size() - 1; k >= from; k--)
        {
            final Segment later = used.remove(k);
            IndexFile.delete(io, dir, later.sequence());
            scope.recycle(later.path());
        }
        scope.tornTail = true;
        LOG.log(System.Logger.Level.WARNING, where + ": a hole after a crash, the log ends before it");
        return true;
    }
}
