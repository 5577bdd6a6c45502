package io.directlog.storage.log;

import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;

import io.directlog.storage.OffsetOutOfRangeException;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.StorageReadException;
import io.directlog.storage.cache.CachePage;
import io.directlog.storage.format.Checksums;
import io.directlog.storage.format.RecordDescriptor;
import io.directlog.storage.format.SegmentHeaderDescriptor;
import io.directlog.storage.page.PageMemory;
import org.agrona.DirectBuffer;

/**
 * Reads of one log: from a resident page (pinned, zero-copy, no lock the writer takes; a page read-ahead is still
 * loading is read below its loaded end) or from disk, either by paging the segment in ({@link SegmentPageIn}:
 * O_DIRECT, when the budget and the access pattern call for it) or by reading the needed range with O_DIRECT into
 * a pooled buffer. Never mmap.
 * <p>
 * Thread-safe.
 */
final class ReadPath
{
    private final ReadSource log;
    private final LogContext context;
    private final SegmentIndexLoader indexes;
    private final SegmentPageIn pageIns;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    /** Where the last read ended: a read that starts there is taken as sequential (a hint; races only cost that). */
    private volatile long lastReadEnd = -1;

    ReadPath(final ReadSource log, final LogContext context, final SegmentIndexLoader indexes)
    {
        this.log = log;
        this.context = context;
        this.indexes = indexes;
        this.pageIns = new SegmentPageIn(log, context, indexes);
    }

    long hits()
    {
        return hits.sum();
    }

    long misses()
    {
        return misses.sum();
    }

    RecordBatch read(final long offset, final int maxBytes, final boolean sequential)
    {
        try
        {
            if (sequential)
            {
                return readChecked(offset, maxBytes, true); // a LogReader: it declared itself, nothing to detect
            }
            final RecordBatch batch = readChecked(offset, maxBytes, offset == lastReadEnd);
            lastReadEnd = batch.nextOffset();
            return batch;
        }
        catch (final StorageReadException | IllegalStateException e)
        {
            // a read racing close or retention hit a closed descriptor, a closed buffer pool or a deleted file:
            // say what happened
            log.checkOpenForRead();
            final Segment segment = find(log.segments(), offset);
            if (segment == null || segment.isDeleted() || offset < log.startOffset())
            {
                throw new OffsetOutOfRangeException(log.name(), offset, log.startOffset(), log.endOffset());
            }
            throw e;
        }
    }

    private RecordBatch readChecked(final long offset, final int maxBytes, final boolean sequential)
    {
        log.checkOpenForRead();
        if (offset < 0)
        {
            throw new IllegalArgumentException("offset " + offset + " is negative (log '" + log.name() + "')");
        }
        if (maxBytes <= 0)
        {
            throw new IllegalArgumentException("maxBytes " + maxBytes + " must be positive (log '" + log.name() + "')");
        }
        final long visible = log.visibleEndOffset(); // acquire: before the segments and their end positions
        final long start = log.startOffset();
        final long end = Math.max(visible, log.endOffset());
        if (offset < start || offset > end)
        {
            throw new OffsetOutOfRangeException(log.name(), offset, start, end);
        }
        final Segment[] segments = log.segments();
        final Segment afterHole = afterHole(segments, offset);
        if (afterHole != null)
        {
            // an offset in a hole recovery left (issue 17): no record has it; the read goes on at the hole's end
            return readChecked(afterHole.baseOffset(), maxBytes, sequential);
        }
        if (offset >= visible)
        {
            return SegmentRecordBatch.empty(offset);
        }
        final Segment segment = find(segments, offset);
        if (segment == null || segment.isDeleted())
        {
            throw new OffsetOutOfRangeException(log.name(), offset, log.startOffset(), end);
        }
        if (segment != segments[segments.length - 1])
        {
            context.readAhead().reached(segment); // read-ahead holds rolled segments only: a tail read skips this
        }
        for (int attempt = 0; attempt < 3; attempt++)
        {
            final CachePage page = segment.page();
            if (page != null && page.tryPin())
            {
                final SegmentIndex index = segment.index();
                if (index != null && Math.max(SegmentHeaderDescriptor.LENGTH, index.floorPosition(offset)) >= page.validFrom())
                {
                    final RecordBatch batch = fromPage(segment, page, offset, maxBytes);
                    if (batch == null)
                    {
                        break; // a page-in in progress that stopped or lags far behind: from disk
                    }
                    hits.increment();
                    context.cache().onHit();
                    if (sequential)
                    {
                        readAhead(segment);
                    }
                    return batch;
                }
                page.unpin();
                if (index != null && page.validFrom() > 0)
                {
                    break; // below the bytes a recovered or truncated page holds: read from disk
                }
            }
            if (sequential && pagedInAhead(segment))
            {
                break; // the read-ahead thread pages it in; this read goes to disk meanwhile
            }
            if (!pageIns.pageIn(segment, sequential))
            {
                break;
            }
        }
        if (sequential)
        {
            readAhead(segment);
        }
        return fromDisk(segment, offset, maxBytes, sequential);
    }

    /**
     * Queues page-ins of the rolled segments after {@code current}, whole segments up to the read-ahead bytes, so
     * that a sequential reader finds them resident. The active segment is never paged in (see {@link #pageIn}).
     */
    private void readAhead(final Segment current)
    {
        final ReadAhead ahead = context.readAhead();
        final long budget = ahead.bytes();
        if (budget < current.capacity())
        {
            return;
        }
        final Segment[] segments = log.segments();
        final long active = log.activeSequence();
        long bytes = 0;
        for (int i = indexOf(segments, current.baseOffset()) + 1; i > 0 && i < segments.length; i++)
        {
            final Segment next = segments[i];
            bytes += next.capacity();
            if (bytes > budget || next.sequence() == active || next.isDeleted())
            {
                return;
            }
            if (next.page() == null)
            {
                ahead.request(next, this);
            }
        }
    }

    /**
     * A sequential reader that misses a segment read-ahead would page in hands the page-in to the read-ahead thread
     * (progressive, see {@link SegmentPageIn}) rather than wait for a whole segment: it reads from disk until the
     * page is published, then from the page as it loads.
     *
     * @return true when the page-in was handed over (or is queued already).
     */
    private boolean pagedInAhead(final Segment segment)
    {
        final ReadAhead ahead = context.readAhead();
        if (ahead.bytes() < segment.capacity() || segment.sequence() == log.activeSequence() || segment.isDeleted())
        {
            return false;
        }
        ahead.request(segment, this);
        return true;
    }

    /** A page-in for {@link ReadAhead}: progressive; skipped when the segment is gone or already resident. */
    void pageInAhead(final Segment segment)
    {
        pageIns.pageInProgressively(segment);
    }

    /**
     * The records at {@code offset} from a pinned page; the pin goes to the batch. A page a progressive page-in is
     * still reading is read below its loaded end, after waiting for the chunks the read wants (at most
     * {@link #LOAD_WAIT_NANOS} a time).
     *
     * @return the batch, or null (page unpinned) when the page-in stopped, lags more than {@link #LOAD_WAIT_AHEAD}
     * behind the read, or did not get there in time: the caller reads from disk.
     */
    private RecordBatch fromPage(final Segment segment, final CachePage page, final long offset, final int maxBytes)
    {
        final int end = segment.endPosition();
        final DirectBuffer buffer = page.buffer();
        final int from = Math.max(SegmentHeaderDescriptor.LENGTH, segment.index().floorPosition(offset));
        int limit = Math.min(end, page.loadedEnd());
        // a large maxBytes waits for a few chunks, not for the whole segment: the batch ends at the loaded end
        int want = (int)Math.min(end, (long)from + Math.min(maxBytes, LOAD_WAIT_AHEAD));
        while (true)
        {
            if (limit < want)
            {
                limit = want - page.loadedEnd() > LOAD_WAIT_AHEAD ? -1 :
                    Math.min(end, page.awaitLoaded(want, LOAD_WAIT_NANOS));
                if (limit < 0)
                {
                    page.unpin();
                    return null;
                }
            }
            final int position = locate(buffer, from, limit, offset, segment, 0);
            if (position == NEEDS_MORE && limit < end)
            {
                want = (int)Math.min(end, (long)limit + SegmentPageIn.PAGE_IN_CHUNK); // a record past the loaded end
                continue;
            }
            if (position < 0)
            {
                page.unpin();
                throw new StorageReadException("log '" + log.name() + "': offset " + offset + " not found in " +
                    segment.path().getFileName() + " (index and records disagree)");
            }
            return collect(buffer, position, limit, maxBytes, page::unpin, page.fromDisk(), segment, 0);
        }
    }

    /** How far ahead of a progressive page-in a read may be and still wait for it rather than read from disk. */
    private static final int LOAD_WAIT_AHEAD = 4 * SegmentPageIn.PAGE_IN_CHUNK;
    /** How long a read waits for a progressive page-in's next chunks before it reads from disk itself. */
    private static final long LOAD_WAIT_NANOS = 1_000_000_000L;

    private RecordBatch fromDisk(final Segment segment, final long offset, final int maxBytes,
        final boolean sequential)
    {
        try
        {
            indexes.ensureIndex(segment);
            final SegmentIndex index = segment.index();
            final int from = Math.max(SegmentHeaderDescriptor.LENGTH, index.floorPosition(offset));
            // the needed range only: the record holding offset starts before the next entry (or before the end,
            // after the last entry), and a longer record or batch grows the read below; a pooled buffer's size is
            // a cap, not a minimum
            final int next = index.nextEntryPosition(offset);
            final long reach = Math.max(0, (next > from ? next : segment.endPosition()) - from);
            long want = Math.min(segment.capacity(),
                (long)maxBytes + (from & 4095) + reach + RecordDescriptor.HEADER_LENGTH);
            while (true)
            {
                final int chunkStart = log.block().down(from);
                final int length = log.block().up((int)Math.min(want, segment.capacity() - chunkStart));
                final PageMemory memory = context.readBuffers().acquire(length);
                boolean handedOver = false;
                try
                {
                    final int read = segment.read(memory.byteBuffer(), 0, length, chunkStart);
                    misses.increment();
                    context.cache().onMiss(read);
                    final int limit = Math.min(read, segment.endPosition() - chunkStart);
                    if (sequential)
                    {
                        segment.readFromDiskTo(chunkStart + Math.max(0, limit)); // read-ahead need not read it again
                    }
                    final DirectBuffer buffer = memory.buffer();
                    final int position = locate(buffer, from - chunkStart, limit, offset, segment, chunkStart);
                    if (position >= 0)
                    {
                        handedOver = true;
                        return collect(buffer, position, limit, maxBytes, () -> context.readBuffers().release(memory),
                            true, segment, chunkStart);
                    }
                    if (position == NEEDS_MORE && length < segment.capacity() - chunkStart)
                    {
                        want = 2L * length; // long: a damaged length must not wrap the read size to zero
                        continue;
                    }
                    throw new StorageReadException("log '" + log.name() + "': offset " + offset + " not found in " +
                        segment.path().getFileName());
                }
                finally
                {
                    if (!handedOver)
                    {
                        context.readBuffers().release(memory);
                    }
                }
            }
        }
        catch (final IOException e)
        {
            throw new StorageReadException("log '" + log.name() + "': read of offset " + offset + " from " +
                segment.path() + " failed: " + e.getMessage(), e);
        }
    }

    /** How much offsetForTimestamp reads at a time while it looks for the first record at the timestamp. */
    private static final int TIMESTAMP_SCAN_BYTES = 1 << 20;

    private static final int NOT_FOUND = -1;
    private static final int NEEDS_MORE = -2;

    /**
     * Finds the record holding {@code offset}, scanning from a record boundary and over gaps; NEEDS_MORE if bytes
     * run out. {@code base} is the segment position of buffer index 0.
     */
    private static int locate(final DirectBuffer buffer, final int from, final int limit, final long offset,
        final Segment segment, final int base)
    {
        int position = from;
        while (position + RecordDescriptor.HEADER_LENGTH <= limit)
        {
            final int length = buffer.getInt(position + RecordDescriptor.LENGTH_OFFSET);
            if (length == 0 && RecordDescriptor.isGap(base + position, segment.blockSize()))
            {
                position = segment.skipGap(base + position) - base;
                continue;
            }
            if (length < RecordDescriptor.HEADER_LENGTH)
            {
                return NOT_FOUND;
            }
            final int aligned = RecordDescriptor.alignedLength(length);
            final long first = buffer.getLong(position + RecordDescriptor.OFFSET_OFFSET);
            final int count = buffer.getInt(position + RecordDescriptor.COUNT_OFFSET);
            if (first > offset)
            {
                return NOT_FOUND;
            }
            if (offset < first + count)
            {
                return (long)position + aligned <= limit ? position : NEEDS_MORE;
            }
            if ((long)position + aligned > limit)
            {
                return NEEDS_MORE;
            }
            position += aligned;
        }
        return NEEDS_MORE;
    }

    /**
     * The records from {@code from}: at least one, at most {@code maxBytes}. Bytes that came from disk are checked
     * record by record (CRC32C, log id, dense offsets) before a reader sees them: damage below the durable
     * watermark, which a clean open does not scan, is reported at read, never returned as a record: a batch ends
     * before a damaged record, and a read that starts at one fails with StorageReadException.
     */
    private RecordBatch collect(final DirectBuffer buffer, final int from, final int limit, final int maxBytes,
        final Runnable release, final boolean verify, final Segment segment, final int base)
    {
        int position = from;
        int end = from;
        int count = 0;
        long next = -1;
        while (position + RecordDescriptor.HEADER_LENGTH <= limit)
        {
            final int length = buffer.getInt(position + RecordDescriptor.LENGTH_OFFSET);
            if (length == 0 && RecordDescriptor.isGap(base + position, segment.blockSize()))
            {
                position = segment.skipGap(base + position) - base;
                continue;
            }
            if (length < RecordDescriptor.HEADER_LENGTH)
            {
                break;
            }
            final int aligned = RecordDescriptor.alignedLength(length);
            if ((long)position + aligned > limit || (count > 0 && (long)position + aligned - from > maxBytes))
            {
                break;
            }
            final long first = buffer.getLong(position + RecordDescriptor.OFFSET_OFFSET);
            if (verify && (count > 0 && first != next || !intact(buffer, position, length)))
            {
                if (count > 0)
                {
                    break; // the good records before it; a read that starts at the damaged one reports it
                }
                release.run();
                throw new StorageReadException("log '" + log.name() + "': the record at position " + (base + position) +
                    " of " + segment.path().getFileName() + " (offset " + (count > 0 ? next : first) +
                    ") fails its checks (CRC32C, log id or offset): corruption below the durable watermark");
            }
            next = first + buffer.getInt(position + RecordDescriptor.COUNT_OFFSET);
            position += aligned;
            end = position;
            count++;
        }
        return new SegmentRecordBatch(buffer, from, end, count, next, release, segment.blockSize(), base);
    }

    private boolean intact(final DirectBuffer buffer, final int position, final int length)
    {
        return buffer.getInt(position + RecordDescriptor.LOG_ID_OFFSET) == log.recordLogId() &&
            buffer.getInt(position + RecordDescriptor.COUNT_OFFSET) >= 1 &&
            buffer.getInt(position + RecordDescriptor.CRC_OFFSET) == Checksums.crc32c(buffer,
                position + RecordDescriptor.CRC_COVERAGE_OFFSET, length - RecordDescriptor.CRC_COVERAGE_OFFSET);
    }

    long offsetForTimestamp(final long timestamp)
    {
        log.checkOpenForRead();
        final long visible = log.visibleEndOffset();
        long offset = -1;
        for (final Segment segment : log.segments())
        {
            if (segment.baseOffset() >= visible || segment.isDeleted())
            {
                continue;
            }
            try
            {
                indexes.ensureIndex(segment);
            }
            catch (final IOException e)
            {
                throw new StorageReadException("log '" + log.name() + "': index of " + segment.path() +
                    " could not be built: " + e.getMessage(), e);
            }
            final boolean active = segment.sequence() == log.activeSequence();
            if (!active && segment.maxTimestamp() < timestamp)
            {
                continue;
            }
            final long floor = segment.index().floorOffsetForTimestamp(timestamp);
            offset = Math.max(segment.baseOffset(), floor < 0 ? segment.baseOffset() : floor);
            break;
        }
        if (offset < 0)
        {
            return visible;
        }
        offset = Math.max(offset, log.startOffset());
        while (offset < visible)
        {
            try (RecordBatch batch = read(offset, TIMESTAMP_SCAN_BYTES, true))
            {
                if (batch.isEmpty())
                {
                    break;
                }
                for (final Record r : batch)
                {
                    if (r.timestamp() >= timestamp)
                    {
                        return r.offset();
                    }
                }
                offset = batch.nextOffset();
            }
        }
        return visible;
    }

    /**
     * @return the segment after the hole in the offsets that holds {@code offset} (its header's FLAG_HOLE_BEFORE:
     *     no record has an offset in {@code [holeFrom, baseOffset)}), or null when {@code offset} is in no hole.
     */
    static Segment afterHole(final Segment[] segments, final long offset)
    {
        final int i = indexOf(segments, offset) + 1;
        if (i < segments.length && segments[i].holeFrom() >= 0 && offset >= segments[i].holeFrom() &&
            offset < segments[i].baseOffset())
        {
            return segments[i];
        }
        return null;
    }

    static Segment find(final Segment[] segments, final long offset)
    {
        final int i = indexOf(segments, offset);
        return i < 0 ? null : segments[i];
    }

    /** @return the index of the last segment whose base offset is at or below {@code offset}, or -1. */
    private static int indexOf(final Segment[] segments, final long offset)
    {
        int lo = 0;
        int hi = segments.length - 1;
        int found = -1;
        while (lo <= hi)
        {
            final int mid = (lo + hi) >>> 1;
            if (segments[mid].baseOffset() <= offset)
            {
                found = mid;
                lo = mid + 1;
            }
            else
            {
                hi = mid - 1;
            }
        }
        return found;
    }
}
