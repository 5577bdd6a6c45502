package io.directlog.storage.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import io.directlog.storage.CorruptLogException;
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
 * Recovery after a crash: from the durable watermark, it fdatasyncs each segment it will trust, verifies the
 * records up to the watermark (damage there is corruption), scans on and cuts at the first end or damage, asks
 * {@link RecoveryRules} what the damage means, and re-zeroes and syncs everything after the cut before anything
 * new is acknowledged. Sets {@link RecoveryScope#tail}.
 * <p>
 * Not thread-safe: one open, on the opening thread.
 */
final class CrashRecovery extends RecoveryStep
{
    CrashRecovery(final RecoveryScope scope)
    {
        super(scope);
    }

    /** Where the scan starts: the watermark (or the first segment's start, when the checkpoint names none). */
    private record Start(int first, long sequence, int position, long offset, long lastRecordPosition,
        long lastRecordOffset, boolean truncating)
    {
    }

    /** One segment's scan: what was read, where the records end, and the damage found there. */
    private static final class Scan
    {
        final Segment segment;
        final boolean isLast;
        final Segment next;
        final int size;
        final CachePage page;
        final BlockFile direct;
        final RecordScanner scanner;
        AtomicBuffer buffer;
        SegmentIndex index;
        int from = SegmentHeaderDescriptor.LENGTH;
        long expected;
        int readFrom;
        int cut;
        /** Where damage starts: the cut, or past a gap after it. */
        int damageAt;
        long cutOffset;
        /** The highest end offset a write mark of this segment names past the end (a recycled segment), or -1. */
        long markEnd = -1;
        String damage;
        boolean below;
        boolean bytesMissing;

        Scan(final Segment segment, final Segment next, final CachePage page, final BlockFile direct)
        {
            this.segment = segment;
            this.isLast = next == null;
            this.next = next;
            this.size = segment.capacity();
            this.page = page;
            this.direct = direct;
            this.scanner = new RecordScanner(segment.blockSize());
            this.index = new SegmentIndex(size);
            this.expected = segment.baseOffset();
        }
    }

    /**
     * Crash recovery from the watermark. Returns the active segment.
     */
    Segment recoverCrash(final List<Segment> used, final Checkpoint.State state, final LogMeta meta)
        throws IOException
    {
        final Start start = findStart(used, state, meta);
        for (int i = start.first(); i < used.size(); i++)
        {
            final Segment active = recoverSegment(used, i, start, meta);
            if (active != null)
            {
                return active;
            }
        }
        throw new IllegalStateException("unreachable: the last segment ends the loop");
    }

    /** Finds the watermark's segment; TRUNCATE_AT_CORRUPTION scans the whole log when it names none. */
    private Start findStart(final List<Segment> used, final Checkpoint.State state, final LogMeta meta)
    {
        final Start whole = new Start(0, used.get(0).sequence(), SegmentHeaderDescriptor.LENGTH,
            used.get(0).baseOffset(), -1, -1, false);
        if (state == null || state.sequence() < 0)
        {
            return whole;
        }
        int found = -1;
        for (int i = 0; i < used.size(); i++)
        {
            if (used.get(i).sequence() == state.sequence())
            {
                found = i;
            }
        }
        if (found < 0 || state.position() < SegmentHeaderDescriptor.LENGTH || state.position() > used.get(found).capacity())
        {
            final String where = "log '" + name + "': the checkpoint's watermark (segment " + state.sequence() +
                " position " + state.position() + " offset " + state.offset() + ") names no segment file";
            if (!rules.givesUpLostSegments())
            {
                throw new CorruptLogException(where);
            }
            // the watermark's segment is gone: after a crash it may have held records beyond the watermark
            scope.droppedUnbounded = !state.clean();
            LOG.log(System.Logger.Level.WARNING, where + ": scanning the whole log" + (state.clean() ? "" :
                "; records beyond the watermark it may have held are unknown: the dropped range is open-ended"));
            return whole;
        }
        return new Start(found, state.sequence(), (int)state.position(), state.offset(), state.lastRecordPosition(),
            state.lastRecordOffset(), state.truncating());
    }

    /**
     * Recovers {@code used[i]}: a complete rolled segment beyond the watermark is kept as read cache, the segment
     * where the records end becomes the active one (the segments after it dropped).
     *
     * @return the active segment, or null to go on with the next segment.
     */
    private Segment recoverSegment(final List<Segment> used, final int i, final Start start, final LogMeta meta)
        throws IOException
    {
        final int recordLogId = RecordDescriptor.recordLogId(meta.logId());
        final Segment segment = used.get(i);
        final CachePage page = scope.writePage(segment);
        scope.phase("page");
        final BlockFile direct = io.open(segment.path(), FileMode.DIRECT, false);
        boolean keep = false;
        try
        {
            direct.datasync(); // trust only what is durable
            scope.phase("fdatasync");
            final Scan scan = new Scan(segment, i + 1 < used.size() ? used.get(i + 1) : null, page, direct);
            final boolean atWatermark = segment.sequence() == start.sequence();
            if (atWatermark)
            {
                startFromIndex(scan, start, meta);
            }
            read(scan);
            if (atWatermark && scan.from < start.position())
            {
                verifyToWatermark(scan, start, recordLogId);
            }
            if (atWatermark && start.truncating() && scan.damage == null)
            {
                scan.cut = start.position(); // an interrupted truncateTo: the watermark is the end; what follows goes
                scan.cutOffset = start.offset();
                scope.droppedEnd = -1;
                scope.cutPosition = scan.cut;
                finishActive(used, i, scan, true);
                keep = true;
                return segment;
            }
            if (scan.damage == null)
            {
                scanBeyondWatermark(scan, recordLogId);
            }
            else
            {
                scan.cut = scan.from;
                scan.damageAt = scan.from;
                scan.cutOffset = scan.expected;
            }
            checkShortFile(scan);
            scope.phase("scan");
            if (scan.damage == null && !scan.isLast)
            {
                keepAsReadCache(scan);
                keep = true;
                return null;
            }
            if (scan.damage != null)
            {
                judgeDamage(scan, used, i, recordLogId);
            }
            finishActive(used, i, scan, scan.damage != null);
            keep = true;
            return segment;
        }
        finally
        {
            if (!keep)
            {
                RecoveryScope.closeQuietly(direct);
                context.cache().discard(page);
            }
        }
    }

    /** At the watermark's segment: starts after what its persisted index covers, or at the last record. */
    private void startFromIndex(final Scan scan, final Start start, final LogMeta meta)
    {
        final Segment segment = scan.segment;
        final IndexFile.Loaded loaded = IndexFile.read(io, dir, meta.logId(), segment);
        if (loaded != null && loaded.endPosition() <= start.position() && loaded.endOffset() <= start.offset())
        {
            scan.index = loaded.index();
            segment.maxTimestamp(loaded.maxTimestamp());
            scan.from = loaded.endPosition();
            scan.expected = loaded.endOffset();
        }
        if (start.lastRecordPosition() >= SegmentHeaderDescriptor.LENGTH && start.lastRecordPosition() < scan.from)
        {
            scan.from = (int)start.lastRecordPosition(); // verify at least the record that ends at the watermark
            scan.expected = start.lastRecordOffset();
            // the verification indexes it again: its entry from the persisted index, if it had one, goes first
            // (two entries for one record made the index of the next clean close out of order: issue 17, defect 8)
            scan.index.truncateTo(scan.from);
        }
    }

    /** Reads the segment from the block holding the scan's start into its write page (unread bytes zero). */
    private void read(final Scan scan) throws IOException
    {
        final int size = scan.size;
        final CachePage page = scan.page;
        scan.readFrom = scope.alignDown(scan.from);
        final int n = scope.readTolerant(scan.direct, page.memory().byteBuffer(), scan.readFrom, size - scan.readFrom);
        if (scan.readFrom + n < size)
        {
            page.buffer().setMemory(scan.readFrom + n, size - scan.readFrom - n, (byte)0);
        }
        scope.scannedBytes += n;
        page.validFrom(scan.readFrom);
        scope.phase("read");
        scan.buffer = page.buffer();
    }

    /** Verifies the records up to the watermark: damage there is below it (corruption). */
    private void verifyToWatermark(final Scan scan, final Start start, final int recordLogId)
    {
        final RecordScanner scanner = scan.scanner;
        scanner.scan(scan.buffer, scan.from, start.position(), scan.expected, recordLogId, scan.index, 0, scan.size);
        // a watermark may sit past a write's gap (at the next block, where that write's successor began): reaching
        // it across a valid gap is reaching it, though position() stays at the last record's end
        final boolean reached = scanner.position() == start.position() ||
            scanner.reason() == null && scanner.damagePosition() == start.position();
        if (!reached || scanner.nextOffset() != start.offset())
        {
            scan.below = true;
            scan.damage = scanner.reason() != null ? scanner.reason() : "the records end at position " +
                scanner.position() + " offset " + scanner.nextOffset() + ", before the watermark (position " +
                start.position() + " offset " + start.offset() + ")";
        }
        scan.from = scanner.position();
        scan.expected = scanner.nextOffset();
    }

    /**
     * Scans on from the watermark (or the segment's start) to the first end or invalid record, and says whether
     * that is the segment's end or damage.
     */
    private void scanBeyondWatermark(final Scan scan, final int recordLogId)
    {
        final Segment segment = scan.segment;
        final RecordScanner scanner = scan.scanner;
        final AtomicBuffer buffer = scan.buffer;
        final int size = scan.size;
        final RecordScanner.Stop stop = scanner.scan(buffer, scan.from, size, scan.expected, recordLogId, scan.index,
            0, size);
        scan.cut = scanner.position();
        scan.damageAt = scanner.damagePosition();
        scan.cutOffset = scanner.nextOffset();
        final int cut = scan.cut;
        final int damageAt = scan.damageAt;
        final long cutOffset = scan.cutOffset;
        // from past the gap, if the records end with one (the scanner checked the gap itself); a
        // recycled segment holds stale records of this log there, so only zeros prove nothing
        final boolean garbage = !segment.recycled() &&
            !RecordScanner.isZero(scan.page.memory().byteBuffer(), damageAt, size);
        // in a recycled segment the end is the first header that is not this segment's next record,
        // unless records of this segment's offsets lie after it (a zeroed or garbled block of
        // acknowledged records, issue 17) or its bytes were provably written by this segment
        final boolean recycledStop = segment.recycled() && stop != RecordScanner.Stop.LIMIT;
        final boolean validLater = recycledStop && DamageProbe.validRecordAfter(buffer, cut, size, cutOffset,
            recordLogId, segment.blockSize()).endOffset >= 0;
        // or a write mark of this segment past the end: it wrote there (a write's first record garbled at a block
        // boundary, where stale bytes are possible too: issue 17, defect 1)
        scan.markEnd = recycledStop && !validLater ? DamageProbe.markEndAfter(buffer, cut, size,
            segment.baseOffset(), cutOffset, segment.blockSize()) : -1;
        if (recycledStop && validLater)
        {
            scan.damage = stop == RecordScanner.Stop.INVALID ? scanner.reason() :
                "an all-zero header with valid records of this segment after it";
        }
        else if (scan.markEnd >= 0)
        {
            scan.damage = (stop == RecordScanner.Stop.INVALID ? scanner.reason() : "an all-zero header") +
                ", with a write mark of this segment after it (records up to offset " + scan.markEnd + " were " +
                "written there)";
        }
        else if (recycledStop && stop == RecordScanner.Stop.INVALID &&
            DamageProbe.writtenHere(buffer, damageAt, size, segment.blockSize(), cutOffset, recordLogId))
        {
            scan.damage = scanner.reason() + " (bytes this segment's own write covered, not stale ones)";
        }
        else if (recycledStop && stop == RecordScanner.Stop.INVALID && segment.zeroAhead() && scan.isLast)
        {
            // each write of the segment zeroed the block after it, where the next one starts: past the records
            // lie zeros, not stale bytes, so this header is a write of the segment that was garbled (issue 17;
            // a rolled segment's end is checked against the next one's base instead)
            scan.damage = scanner.reason() + " (where the segment's previous write left a zeroed block: a write " +
                "made there, damaged)";
        }
        else if (recycledStop)
        {
            // the first stale byte after this segment's records: its end, as a zero header is in a
            // zeroed file (a torn last write looks the same, and nothing of it was acknowledged
            // under a promise that survives the crash, or a record after it would have been written)
            scan.damage = notContiguous(scan);
        }
        else if (stop == RecordScanner.Stop.INVALID || garbage)
        {
            scan.damage = stop == RecordScanner.Stop.INVALID ? scanner.reason() :
                "an all-zero header with non-zero bytes after it";
        }
        else
        {
            scan.damage = notContiguous(scan);
        }
    }

    /** @return why the segment's end is not the next segment's start, or null when it is (or it is the last). */
    private static String notContiguous(final Scan scan)
    {
        // the next segment's header may record a hole before it: then this one's records end where the hole starts
        if (!scan.isLast && scan.cutOffset != scan.next.precedingEnd())
        {
            return "the segment ends at offset " + scan.cutOffset + " but the next one (" +
                scan.next.path().getFileName() + ") starts at " + scan.next.baseOffset() +
                (scan.next.holeFrom() >= 0 ? " after a hole from " + scan.next.holeFrom() : "");
        }
        return null;
    }

    /**
     * Segment files are full-size from their preparation on (the size synced before the rename), so a short last
     * one lost bytes; when its records run into its last block, records may have followed there: after a crash
     * nothing says how many (issue 17). A record whose bytes run past the file's end reads as damaged (zeros where
     * its end was), not as a torn write: without this, TOLERATE_TORN_TAIL cut acknowledged records there as a torn
     * tail and reported none dropped.
     */
    private void checkShortFile(final Scan scan) throws IOException
    {
        final long fileSize = scan.direct.size();
        if (scan.isLast && !scope.cleanCheckpoint && fileSize < scan.size && (scan.damage == null ?
            scope.alignUp(scan.cut) >= fileSize :
            !scan.below && DamageProbe.runsPastFileEnd(scan.buffer, scan.damageAt, fileSize, scan.segment.blockSize())))
        {
            scan.damage = (scan.damage == null ? "" : scan.damage + "; ") + "the file is " + fileSize + " bytes, " +
                "shorter than its segment, and its records reach its last block: bytes after them are missing";
            scan.bytesMissing = true;
        }
    }

    /** A complete rolled segment beyond the watermark: keeps its page as read cache. */
    private static void keepAsReadCache(final Scan scan)
    {
        final Segment segment = scan.segment;
        segment.index(scan.index);
        segment.maxTimestamp(scan.scanner.lastTimestamp());
        segment.publishEnd(scan.cut, scan.cutOffset);
        segment.seal(scan.cut, scan.cutOffset);
        scan.page.markReadOnly();
        segment.page(scan.page);
        RecoveryScope.closeQuietly(scan.direct);
    }

    /**
     * Asks {@link RecoveryRules} what the damage means: refuses the open, or cuts there and counts what is
     * dropped (the valid records after it, and the later segments).
     */
    private void judgeDamage(final Scan scan, final List<Segment> used, final int i, final int recordLogId)
        throws IOException
    {
        final Segment segment = scan.segment;
        final int cut = scan.cut;
        final long cutOffset = scan.cutOffset;
        final String where = "log '" + name + "': segment " + segment.path() + " position " + cut +
            " offset " + cutOffset + ": " + scope.unreadable(segment.path(), cut, scan.damage);
        final DamageProbe.ValidAfter valid = DamageProbe.validRecordAfter(scan.buffer, cut, scan.size, cutOffset,
            recordLogId, segment.blockSize());
        final long after = Math.max(valid.endOffset, scan.markEnd);
        final long later = scan.isLast ? -1 : scope.endOfDropped(used, i + 1, recordLogId);
        // looksTorn only where the verdict may depend on it (it reads the damaged span sector by sector)
        final boolean torn = !rules.asksIfTorn(after >= 0, segment.recycled()) ||
            DamageProbe.looksTorn(scan.buffer, scan.damageAt, valid.firstPosition);
        final RecoveryRules.DamageVerdict verdict = rules.judge(new RecoveryRules.Damage(scan.below,
            scan.bytesMissing, after >= 0, segment.recycled(), torn));
        refuseIfTold(verdict, where, after);
        // valid records only in later segments, beyond the watermark: on a volatile cache the rolled
        // segment's unsynced tail can be lost while the next segment's writes survive; the first hole
        // ends the log and the later segments are dropped (counted in droppedRecords)
        scope.droppedEnd = Math.max(scope.droppedEnd, later);
        if (verdict == RecoveryRules.DamageVerdict.CUT_AND_COUNT)
        {
            scope.droppedEnd = Math.max(scope.droppedEnd, Math.max(after, later));
            LOG.log(System.Logger.Level.WARNING, where + ": cut the log there (TRUNCATE_AT_CORRUPTION)");
        }
        else
        {
            // valid records after a torn-looking hole: the survivors of an in-flight write, counted
            scope.droppedEnd = Math.max(scope.droppedEnd, after);
            scope.tornTail = true;
            LOG.log(System.Logger.Level.WARNING, where + ": torn tail beyond the durable watermark, cut" +
                (after < 0 ? "" : segment.recycled() ? " (valid records up to offset " + after + " after " +
                "it, dropped: in a recycled segment a write that did not land leaves stale bytes, not " +
                "zeros, so this cannot be told from damage; zeroRecycledSegments keeps the difference)" :
                " (valid records up to offset " + after + " after a sector that reads as " +
                "never written: the rest of an unacknowledged write, dropped)"));
        }
        scope.cutPosition = cut;
        scope.droppedFrom = scope.droppedFrom < 0 ? cutOffset : Math.min(scope.droppedFrom, cutOffset);
        if (segment.recycled())
        {
            // finishActive counts nothing in a recycled segment (its stale rest is expected): the
            // damaged write's blocks are not stale, so they are counted and logged here
            scope.countZeroed(scan.buffer, segment.path(), cut, Math.min(scan.size,
                (Math.max(cut, scan.damageAt) / segment.blockSize() + 1) * segment.blockSize()));
        }
    }

    /** Throws the refusal {@code verdict} names, with its message; returns for a cut. */
    private void refuseIfTold(final RecoveryRules.DamageVerdict verdict, final String where, final long after)
    {
        switch (verdict)
        {
            case REFUSE_BELOW_WATERMARK -> throw new CorruptLogException(where + " (below the durable " +
                "watermark: corruption, not a torn tail; recovery mode " + mode + ")");
            case REFUSE_ANY_DAMAGE ->
                throw new CorruptLogException(where + " (recovery mode ABSOLUTE_CONSISTENCY)");
            case REFUSE_LOST_FILE_PART ->
                throw new CorruptLogException(where + " (a lost part of a file, not a torn write)");
            case REFUSE_VALID_RECORDS_AFTER -> throw new CorruptLogException(where + ", and valid " +
                "records follow it (up to offset " + after + ") with no unwritten sector between: " +
                "corruption, not a torn tail");
            default ->
            {
                // CUT_AND_COUNT or CUT_TORN_TAIL: the caller cuts
            }
        }
    }

    /** Makes {@code used[i]} the active segment with its end at the scan's cut; drops the segments after it. */
    private void finishActive(final List<Segment> used, final int i, final Scan scan, final boolean cutHere)
        throws IOException
    {
        final Segment segment = scan.segment;
        final int cut = scan.cut;
        zeroAfterCut(scan, cutHere);
        if (cutHere)
        {
            IndexFile.delete(io, dir, segment.sequence());
        }
        boolean dropped = false;
        for (int k = used.size() - 1; k > i; k--)
        {
            final Segment later = used.remove(k);
            IndexFile.delete(io, dir, later.sequence());
            scope.recycle(later.path());
            dropped = true;
        }
        if (dropped)
        {
            io.syncDirectory(dir);
        }
        final BlockFile dsync = io.openDsync(scan.direct);
        scan.index.truncateTo(cut);
        segment.index(scan.index);
        segment.writeFiles(scan.direct, dsync);
        segment.page(scan.page);
        // the last record any scan of this segment saw (the one verified below the watermark counts: a scan from
        // the watermark that finds the end at once has no record, and taking the segment's unset maximum then left
        // the index written at the next clean close with timestamp bounds below its entries, rejected at the next
        // open: issue 17, defect 8)
        final RecordScanner scanner = scan.scanner;
        final long timestamp = scanner.lastRecordPosition() >= 0 ?
            Math.max(scanner.lastTimestamp(), segment.maxTimestamp()) : segment.maxTimestamp();
        segment.maxTimestamp(timestamp);
        scan.page.validFrom(Math.min(scan.readFrom, scope.alignDown(cut)));
        final boolean hasLast = scanner.lastRecordPosition() >= 0 && scanner.lastRecordPosition() < cut;
        scope.tail = new RecoveredLog.Tail(segment, scan.page, cut, scan.cutOffset, timestamp,
            hasLast ? scanner.lastRecordPosition() : -1, hasLast ? scanner.lastRecordOffset() : -1);
    }

    /**
     * Torn, stale or garbage bytes after the end: zeroed in the page and on disk (fdatasync) before anything is
     * acknowledged, and counted in the report. A file shorter than its segment (truncated beyond the end) is
     * written out to its full size with zeros, so later O_DIRECT appends overwrite written blocks inside i_size
     * again (no metadata to make durable) instead of extending the file. The block holding the cut keeps the
     * recovered records: it is written again only when the bytes after the cut in it are not a gap (a torn or
     * garbled write there), never to rewrite what is already right.
     */
    private void zeroAfterCut(final Scan scan, final boolean cutHere) throws IOException
    {
        final Segment segment = scan.segment;
        final int size = scan.size;
        final int cut = scan.cut;
        final AtomicBuffer buffer = scan.page.buffer();
        final long fileSize = scan.direct.size();
        final int gapEnd = RecordDescriptor.gapEnd(cut, segment.blockSize());
        final boolean gapClean = RecordScanner.isGap(buffer, cut, gapEnd) && fileSize >= gapEnd;
        final boolean dirty = !gapClean || !RecordScanner.isZero(scan.page.memory().byteBuffer(), gapEnd, size);
        if (!dirty && fileSize >= size)
        {
            return;
        }
        if (dirty && !segment.recycled())
        {
            scope.countZeroed(buffer, segment.path(), gapClean ? gapEnd : cut, size);
        }
        // a recycled segment's stale bytes are zeroed too (records after a hole there are of this log, and a
        // later crash must not find them where new ones belong), but they are expected: not counted or logged
        final int zeroFrom;
        if (gapClean)
        {
            buffer.setMemory(gapEnd, size - gapEnd, (byte)0);
            zeroFrom = gapEnd;
        }
        else
        {
            buffer.setMemory(cut, size - cut, (byte)0);
            if (gapEnd > cut)
            {
                buffer.setMemory(cut + 4, gapEnd - cut - 4, RecordDescriptor.GAP_FILL);
            }
            zeroFrom = scope.alignDown((int)Math.min(cut, fileSize));
        }
        if (zeroFrom < size)
        {
            scan.direct.write(scan.page.memory().byteBuffer(), zeroFrom, size - zeroFrom, zeroFrom);
        }
        scan.direct.datasync();
        if (fileSize < size)
        {
            if (rules.lostFileEndIsUnbounded(scope.cleanCheckpoint, cutHere))
            {
                // after a crash the lost bytes past the file's end may have held records beyond the watermark:
                // how many cannot be known, so the dropped range is open-ended
                scope.droppedUnbounded = true;
            }
            scope.extendedBytes += size - fileSize;
            LOG.log(System.Logger.Level.WARNING, "log '" + name + "': segment " + segment.path() + " was " +
                fileSize + " bytes, shorter than its " + size + ": re-extended with zeros and synced");
        }
    }
}
