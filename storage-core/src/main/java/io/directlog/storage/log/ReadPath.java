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
 * Reads of one log: from a resident page (pinned, zero-copy, no lock the writer takes) or from disk, either by
 * paging the whole segment in (O_DIRECT, when the budget and the access pattern call for it) or by reading the
 * needed range with O_DIRECT into a pooled buffer. Never mmap.
 * <p>
 * Thread-safe.
 */
final class ReadPath
{
    private final ReadSource log;
    private final LogContext context;
    private final SegmentIndexLoader indexes;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    /** Where the last read ended: a read that starts there is taken as sequential (a hint; races only cost that). */
    private volatile long lastReadEnd = -1;

    ReadPath(final ReadSource log, final LogContext context, final SegmentIndexLoader indexes)
    {
        this.log = log;
        this.context = context;
        this.indexes = indexes;
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
        for (int attempt = 0; attempt < 3; attempt++)
        {
            final CachePage page = segment.page();
            if (page != null && page.tryPin())
            {
                final SegmentIndex index = segment.index();
                if (index != null && Math.max(SegmentHeaderDescriptor.LENGTH, index.floorPosition(offset)) >= page.validFrom())
                {
                    hits.increment();
                    context.cache().onHit();
                    if (sequential)
                    {
                        readAhead(segment);
                    }
                    return fromPage(segment, page, offset, maxBytes);
                }
                page.unpin();
                if (index != null && page.validFrom() > 0)
                {
                    break; // below the bytes a recovered or truncated page holds: read from disk
                }
            }
            if (!pageIn(segment, sequential))
            {
                break;
            }
        }
        if (sequential)
        {
            readAhead(segment);
        }
        return fromDisk(segment, offset, maxBytes);
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

    /** A page-in for {@link ReadAhead}: skipped when the segment is gone or already resident. */
    void pageInAhead(final Segment segment)
    {
        if (!log.isClosed() && !segment.isDeleted() && segment.page() == null)
        {
            pageIn(segment, true);
        }
    }

    private RecordBatch fromPage(final Segment segment, final CachePage page, final long offset, final int maxBytes)
    {
        final int limit = segment.endPosition();
        final DirectBuffer buffer = page.buffer();
        final int from = Math.max(SegmentHeaderDescriptor.LENGTH, segment.index().floorPosition(offset));
        final int position = locate(buffer, from, limit, offset, segment, 0);
        if (position < 0)
        {
            page.unpin();
            throw new StorageReadException("log '" + log.name() + "': offset " + offset + " not found in " +
                segment.path().getFileName() + " (index and records disagree)");
        }
        return collect(buffer, position, limit, maxBytes, page::unpin, page.fromDisk(), segment, 0);
    }

    private RecordBatch fromDisk(final Segment segment, final long offset, final int maxBytes)
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

    /** Bytes per O_DIRECT read of a page-in (see {@link #readWhole}). */
    static final int PAGE_IN_CHUNK = 1 << 20;
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

    /** Reads a whole rolled segment into a cache page when that is worth it; true when a page is now resident. */
    private boolean pageIn(final Segment segment, final boolean sequential)
    {
        if (segment.page() != null)
        {
            return true;
        }
        if (segment.sequence() == log.activeSequence())
        {
            // the active segment's page is the writer's to take (from its next block): a paged-in page would
            // replace the writer's in the segment and lack what it writes next. Its records are read from disk
            // while the log holds no write page (idle, or opened clean); a truncation that makes a rolled
            // segment active again discards its page under the same rule
            return false;
        }
        if (!sequential && !context.cache().pool().hasRoomFor(segment.capacity()))
        {
            return false;
        }
        synchronized (segment.loadLock())
        {
            if (segment.page() != null)
            {
                return true;
            }
            final CachePage page = context.cache().tryAcquireForPageIn(segment, segment.capacity());
            if (page == null)
            {
                return false;
            }
            try
            {
                final int read = readWhole(segment, page);
                context.cache().onPageInBytes(read);
                // the persisted index when there is one: scanning the page would check the CRC32C of all 64 MiB
                // under the load lock (5-10 ms of a read-ahead thread that the device waits for), and every
                // record read from this page is checked at read anyway
                if (segment.index() == null && !indexes.loadPersistedIndex(segment))
                {
                    final SegmentIndex index = new SegmentIndex(segment.capacity());
                    final RecordScanner scanner = new RecordScanner(segment.blockSize());
                    scanner.scan(page.buffer(), SegmentHeaderDescriptor.LENGTH, Math.min(read, segment.capacity()),
                        segment.baseOffset(), log.recordLogId(), index);
                    segment.publishScannedEnd(scanner.position());
                    segment.maxTimestamp(scanner.lastTimestamp());
                    segment.index(index);
                }
                segment.page(page);
                page.unpin(); // the page-in's own pin: now readers pin it, and eviction may take it
                if (segment.filesClosed() || segment.isDeleted())
                {
                    // close or retention ran while the page was read: they set their flag before looking for a
                    // page to discard, so either they saw this one or this check sees their flag
                    segment.page(null);
                    context.cache().discard(page);
                    return false;
                }
                return true;
            }
            catch (final IOException | RuntimeException e)
            {
                context.cache().discard(page);
                page.unpin(); // the page-in's pin: its release frees the retired page
                if (e instanceof RuntimeException re)
                {
                    throw re;
                }
                throw new StorageReadException("log '" + log.name() + "': page-in of " + segment.path() +
                    " failed: " + e.getMessage(), e);
            }
        }
    }

    /**
     * Reads the segment into the page in {@link #PAGE_IN_CHUNK} reads. Why not one read of the whole segment: on the
     * virtio disk measured, O_DIRECT sequential reads ran at about 1.2-1.4 GiB/s in 1 MiB requests and 0.9 GiB/s
     * in 64 MiB ones (dd, same files, same minute); the kernel splits a huge request into a burst the device serves
     * worse than a steady stream.
     *
     * @return the bytes read (less than the capacity only at the end of a short file, whose missing rest is then
     * zeroed: the page was taken without zeroing).
     */
    private static int readWhole(final Segment segment, final CachePage page) throws IOException
    {
        final int capacity = segment.capacity();
        int position = 0;
        while (position < capacity)
        {
            final int length = Math.min(PAGE_IN_CHUNK, capacity - position);
            final int read = segment.read(page.memory().byteBuffer(), position, length, position);
            position += Math.max(0, read);
            if (read < length)
            {
                page.buffer().setMemory(position, capacity - position, (byte)0);
                break;
            }
        }
        return position;
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
