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
import io.directlog.storage.io.BlockFile;
import io.directlog.storage.io.BlockIo;
import io.directlog.storage.io.FileMode;
import io.directlog.storage.page.PageMemory;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Recovery after a crash: from the durable watermark, it fdatasyncs each segment it will trust, verifies the
 * records up to the watermark (damage there is corruption), scans on and cuts at the first end or damage, asks
 * {@link RecoveryRules} what the damage means, and re-zeroes and syncs everything after the cut before anything
 * new is acknowledged. Sets {@link RecoveryScope#tail}.
 * <p>
 * Not thread-safe: one open, on the opening thread.
 */
final class CrashRecovery
{
    private static final System.Logger LOG = RecoveryScope.LOG;

    private final RecoveryScope scope;
    private final String name;
    private final Path dir;
    private final LogContext context;
    private final BlockIo io;
    private final RecoveryMode mode;
    private final RecoveryRules rules;
    private final int align;

    CrashRecovery(final RecoveryScope scope)
    {
        this.scope = scope;
        this.name = scope.name;
        this.dir = scope.dir;
        this.context = scope.context;
        this.io = scope.io;
        this.mode = scope.mode;
        this.rules = scope.rules;
        this.align = scope.align;
    }

    /**
     * Crash recovery from the watermark. Returns the active segment.
     */
    Segment recoverCrash(final List<Segment> used, final Checkpoint.State state,
        final LogMeta meta) throws IOException
    {
        final int recordLogId = RecordDescriptor.recordLogId(meta.logId());
        int first = 0;
        long wSequence = used.get(0).sequence();
        int wPosition = SegmentHeaderDescriptor.LENGTH;
        long wOffset = used.get(0).baseOffset();
        long lastRecordPosition = -1;
        long lastRecordOffset = -1;
        boolean truncating = false;
        if (state != null && state.sequence() >= 0)
        {
            int found = -1;
            for (int i = 0; i < used.size(); i++)
            {
                if (used.get(i).sequence() == state.sequence())
                {
                    found = i;
                }
            }
            if (found < 0 || state.position() < SegmentHeaderDescriptor.LENGTH || state.position() > meta.segmentSize())
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
            }
            else
            {
                first = found;
                wSequence = state.sequence();
                wPosition = (int)state.position();
                wOffset = state.offset();
                lastRecordPosition = state.lastRecordPosition();
                lastRecordOffset = state.lastRecordOffset();
                truncating = state.truncating();
            }
        }
        for (int i = first; i < used.size(); i++)
        {
            final Segment segment = used.get(i);
            final boolean isLast = i == used.size() - 1;
            final int size = segment.capacity();
            final CachePage page = scope.writePage(segment);
            scope.phase("page");
            final BlockFile direct = io.open(segment.path(), FileMode.DIRECT, false);
            boolean keep = false;
            try
            {
                direct.datasync(); // trust only what is durable
                scope.phase("fdatasync");
                SegmentIndex index = new SegmentIndex(size);
                int from = SegmentHeaderDescriptor.LENGTH;
                long expected = segment.baseOffset();
                final boolean atWatermark = segment.sequence() == wSequence;
                if (atWatermark)
                {
                    final IndexFile.Loaded loaded = IndexFile.read(io, dir, meta.logId(), segment);
                    if (loaded != null && loaded.endPosition() <= wPosition && loaded.endOffset() <= wOffset)
                    {
                        index = loaded.index();
                        segment.maxTimestamp(loaded.maxTimestamp());
                        from = loaded.endPosition();
                        expected = loaded.endOffset();
                    }
                    if (lastRecordPosition >= SegmentHeaderDescriptor.LENGTH && lastRecordPosition < from)
                    {
                        from = (int)lastRecordPosition; // verify at least the record that ends at the watermark
                        expected = lastRecordOffset;
                    }
                }
                final int readFrom = scope.alignDown(from);
                final int n = scope.readTolerant(direct, page.memory().byteBuffer(), readFrom, size - readFrom);
                if (readFrom + n < size)
                {
                    page.buffer().setMemory(readFrom + n, size - readFrom - n, (byte)0);
                }
                scope.scannedBytes += n;
                page.validFrom(readFrom);
                scope.phase("read");
                final UnsafeBuffer buffer = page.buffer();
                final RecordScanner scanner = new RecordScanner(segment.blockSize());
                int cut;
                int damageAt; // where damage starts: the cut, or past a gap after it
                long cutOffset;
                String damage = null;
                boolean below = false;
                if (atWatermark && from < wPosition)
                {
                    scanner.scan(buffer, from, wPosition, expected, recordLogId, index, 0, size);
                    if (scanner.position() != wPosition || scanner.nextOffset() != wOffset)
                    {
                        below = true;
                        damage = scanner.reason() != null ? scanner.reason() : "the records end at position " +
                            scanner.position() + " offset " + scanner.nextOffset() + ", before the watermark (position " +
                            wPosition + " offset " + wOffset + ")";
                    }
                    from = scanner.position();
                    expected = scanner.nextOffset();
                }
                if (atWatermark && truncating && damage == null)
                {
                    cut = wPosition; // an interrupted truncateTo: the watermark is the end; what follows goes
                    cutOffset = wOffset;
                    scope.droppedEnd = -1;
                    scope.cutPosition = cut;
                    finishActive(used, i, segment, page, direct, index, cut, cutOffset, scanner, readFrom, true);
                    keep = true;
                    return segment;
                }
                if (damage == null)
                {
                    final RecordScanner.Stop stop = scanner.scan(buffer, from, size, expected, recordLogId, index, 0,
                        size);
                    cut = scanner.position();
                    damageAt = scanner.damagePosition();
                    cutOffset = scanner.nextOffset();
                    // from past the gap, if the records end with one (the scanner checked the gap itself); a
                    // recycled segment holds stale records of this log there, so only zeros prove nothing
                    final boolean garbage = !segment.recycled() &&
                        !RecordScanner.isZero(page.memory().byteBuffer(), damageAt, size);
                    // in a recycled segment the end is the first header that is not this segment's next record,
                    // unless records of this segment's offsets lie after it (a zeroed or garbled block of
                    // acknowledged records, issue 17) or its bytes were provably written by this segment
                    final boolean recycledStop = segment.recycled() && stop != RecordScanner.Stop.LIMIT;
                    final boolean validLater = recycledStop && DamageProbe.validRecordAfter(buffer, cut, size, cutOffset,
                        recordLogId, segment.blockSize()).endOffset >= 0;
                    if (recycledStop && validLater)
                    {
                        damage = stop == RecordScanner.Stop.INVALID ? scanner.reason() :
                            "an all-zero header with valid records of this segment after it";
                    }
                    else if (recycledStop && stop == RecordScanner.Stop.INVALID &&
                        DamageProbe.writtenHere(buffer, damageAt, size, segment.blockSize(), cutOffset, recordLogId))
                    {
                        damage = scanner.reason() + " (bytes this segment's own write covered, not stale ones)";
                    }
                    else if (recycledStop)
                    {
                        // the first stale byte after this segment's records: its end, as a zero header is in a
                        // zeroed file (a torn last write looks the same, and nothing of it was acknowledged
                        // under a promise that survives the crash, or a record after it would have been written)
                        damage = null;
                        if (!isLast && cutOffset != used.get(i + 1).baseOffset())
                        {
                            damage = "the segment ends at offset " + cutOffset + " but the next one (" +
                                used.get(i + 1).path().getFileName() + ") starts at " + used.get(i + 1).baseOffset();
                        }
                    }
                    else if (stop == RecordScanner.Stop.INVALID || garbage)
                    {
                        damage = stop == RecordScanner.Stop.INVALID ? scanner.reason() :
                            "an all-zero header with non-zero bytes after it";
                    }
                    else if (!isLast && cutOffset != used.get(i + 1).baseOffset())
                    {
                        damage = "the segment ends at offset " + cutOffset + " but the next one (" +
                            used.get(i + 1).path().getFileName() + ") starts at " + used.get(i + 1).baseOffset();
                    }
                }
                else
                {
                    cut = from;
                    damageAt = from;
                    cutOffset = expected;
                }
                boolean bytesMissing = false;
                if (damage == null && isLast && !scope.cleanCheckpoint && direct.size() < size &&
                    scope.alignUp(cut) >= direct.size())
                {
                    // segment files are full-size from their preparation on (the size synced before the rename), so a
                    // short one lost bytes; when its records run into its last block, records may have followed
                    // there: after a crash nothing says how many (issue 17)
                    damage = "the file is " + direct.size() + " bytes, shorter than its segment, and its records " +
                        "reach its last block: bytes after them are missing";
                    bytesMissing = true;
                }
                scope.phase("scan");
                if (damage == null && !isLast)
                {
                    // a complete rolled segment beyond the watermark: keep its page as read cache
                    segment.index(index);
                    segment.maxTimestamp(scanner.lastTimestamp());
                    segment.publishEnd(cut, cutOffset);
                    segment.seal(cut, cutOffset);
                    page.markReadOnly();
                    segment.page(page);
                    RecoveryScope.closeQuietly(direct);
                    keep = true;
                    continue;
                }
                if (damage != null)
                {
                    final String where = "log '" + name + "': segment " + segment.path() + " position " + cut +
                        " offset " + cutOffset + ": " + scope.unreadable(segment.path(), cut, damage);
                    final DamageProbe.ValidAfter valid = DamageProbe.validRecordAfter(buffer, cut, size, cutOffset, recordLogId,
                        segment.blockSize());
                    final long after = valid.endOffset;
                    final long later = isLast ? -1 : scope.endOfDropped(used, i + 1, recordLogId);
                    // looksTorn only where the verdict may depend on it (it reads the damaged span sector by sector)
                    final boolean torn = !rules.asksIfTorn(after >= 0, segment.recycled()) ||
                        DamageProbe.looksTorn(buffer, damageAt, valid.firstPosition);
                    final RecoveryRules.DamageVerdict verdict = rules.judge(new RecoveryRules.Damage(below,
                        bytesMissing, after >= 0, segment.recycled(), torn));
                    switch (verdict)
                    {
                        case REFUSE_BELOW_WATERMARK -> throw new CorruptLogException(where + " (below the durable " +
                            "watermark: corruption, not a torn scope.tail; recovery mode " + mode + ")");
                        case REFUSE_ANY_DAMAGE ->
                            throw new CorruptLogException(where + " (recovery mode ABSOLUTE_CONSISTENCY)");
                        case REFUSE_LOST_FILE_PART ->
                            throw new CorruptLogException(where + " (a lost part of a file, not a torn write)");
                        case REFUSE_VALID_RECORDS_AFTER -> throw new CorruptLogException(where + ", and valid " +
                            "records follow it (up to offset " + after + ") with no unwritten sector between: " +
                            "corruption, not a torn scope.tail");
                        default ->
                        {
                            // CUT_AND_COUNT or CUT_TORN_TAIL: below
                        }
                    }
                    // valid records only in later segments, beyond the watermark: on a volatile cache the rolled
                    // segment's unsynced scope.tail can be lost while the next segment's writes survive; the first hole
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
                        LOG.log(System.Logger.Level.WARNING, where + ": torn scope.tail beyond the durable watermark, cut" +
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
                        scope.countZeroed(buffer, segment.path(), cut, Math.min(size,
                            (Math.max(cut, damageAt) / segment.blockSize() + 1) * segment.blockSize()));
                    }
                }
                finishActive(used, i, segment, page, direct, index, cut, cutOffset, scanner, readFrom,
                    damage != null);
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
        throw new IllegalStateException("unreachable: the last segment ends the loop");
    }

    /** Makes {@code used[i]} the active segment with its end at {@code cut}; drops the segments after it. */
    private void finishActive(final List<Segment> used, final int i, final Segment segment,
        final CachePage page, final BlockFile direct, final SegmentIndex index, final int cut, final long cutOffset,
        final RecordScanner scanner, final int readFrom, final boolean cutHere) throws IOException
    {
        final int size = segment.capacity();
        final UnsafeBuffer buffer = page.buffer();
        final long fileSize = direct.size();
        // the block holding the cut keeps the recovered records: it is written again only when the bytes after
        // the cut in it are not a gap (a torn or garbled write there), never to rewrite what is already right
        final int gapEnd = RecordDescriptor.gapEnd(cut, segment.blockSize());
        final boolean gapClean = RecordScanner.isGap(buffer, cut, gapEnd) && fileSize >= gapEnd;
        final boolean dirty = !gapClean || !RecordScanner.isZero(page.memory().byteBuffer(), gapEnd, size);
        if (dirty || fileSize < size)
        {
            // torn, stale or garbage bytes after the end: zero them in the page and on disk before anything is
            // acknowledged, and counted in the report. A file shorter than its segment (truncated beyond the end)
            // is written out to its full size with zeros, so later O_DIRECT appends overwrite written blocks
            // inside i_size again (no metadata to make durable) instead of extending the file.
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
                direct.write(page.memory().byteBuffer(), zeroFrom, size - zeroFrom, zeroFrom);
            }
            direct.datasync();
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
        final BlockFile dsync = io.open(segment.path(), FileMode.DIRECT_DSYNC, false);
        index.truncateTo(cut);
        segment.index(index);
        segment.writeFiles(direct, dsync);
        segment.page(page);
        // the last record any scan of this segment saw (the one verified below the watermark counts: a scan from
        // the watermark that finds the end at once has no record, and taking the segment's unset maximum then left
        // the index written at the next clean close with timestamp bounds below its entries, rejected at the next
        // open: issue 17, defect 8)
        final long timestamp = scanner.lastRecordPosition() >= 0 ?
            Math.max(scanner.lastTimestamp(), segment.maxTimestamp()) : segment.maxTimestamp();
        segment.maxTimestamp(timestamp);
        page.validFrom(Math.min(readFrom, scope.alignDown(cut)));
        final boolean hasLast = scanner.lastRecordPosition() >= 0 && scanner.lastRecordPosition() < cut;
        scope.tail = new RecoveredLog.Tail(segment, page, cut, cutOffset, timestamp,
            hasLast ? scanner.lastRecordPosition() : -1, hasLast ? scanner.lastRecordOffset() : -1);
    }
}
