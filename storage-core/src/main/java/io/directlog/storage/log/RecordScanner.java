package io.directlog.storage.log;

import io.directlog.storage.format.Checksums;
import io.directlog.storage.format.RecordDescriptor;
import org.agrona.DirectBuffer;

/**
 * Walks records in a buffer and checks each one: length, log id, expected offset, count, CRC32C.
 * Recovery, index rebuilds and verification use it; it stops at the first all-zero header (the end) or the
 * first record that fails a check, and says which.
 * <p>
 * A zero length off a block boundary right after a good record is a gap (see {@link RecordDescriptor}) when its
 * bytes up to the boundary are zero; the header at the boundary must then be the expected record like any
 * other: a zero header there is the end, anything else a record that fails its checks. Either way
 * {@link #position()} stays the end of the last good record and {@link #damagePosition()} says where the
 * scan stopped looking.
 * <p>
 * Not thread-safe; one per scan.
 */
public final class RecordScanner
{
    /** Why a scan stopped. */
    public enum Stop
    {
        /** An all-zero header: the end of the written records. */
        END,
        /** The scan reached the limit it was given. */
        LIMIT,
        /** A record failed a check: see {@link #reason()}. */
        INVALID
    }

    private final int blockSize;
    private int position;
    private int damagePosition;
    private long nextOffset;
    private long lastTimestamp;
    private int records;
    private int lastRecordPosition = -1;
    private long lastRecordOffset = -1;
    private Stop stop;
    private String reason;

    /** @param blockSize the segment's block size (its header's): where gaps end. */
    public RecordScanner(final int blockSize)
    {
        if (blockSize < 8 || Integer.bitCount(blockSize) != 1)
        {
            throw new IllegalArgumentException("block size " + blockSize + " is not a power of two");
        }
        this.blockSize = blockSize;
    }

    /**
     * Scans records in {@code buffer} from {@code from} up to {@code limit}.
     *
     * @param buffer         the bytes of the segment, where index 0 is the segment's first byte.
     * @param from           a record boundary to start at.
     * @param limit          how far bytes are loaded (or the segment's capacity).
     * @param expectedOffset the offset the first record must have.
     * @param recordLogId    the 32-bit log id each record must carry.
     * @param index          an index to fill, or null.
     * @return why the scan stopped; {@link #position()} is then the end of the last good record.
     */
    public Stop scan(final DirectBuffer buffer, final int from, final int limit, final long expectedOffset,
        final int recordLogId, final SegmentIndex index)
    {
        return scan(buffer, from, limit, expectedOffset, recordLogId, index, 0, buffer.capacity());
    }

    /**
     * Scans a part of a segment held in a buffer that starts at segment position {@code base}.
     *
     * @param buffer         the bytes, where index 0 is segment position {@code base}.
     * @param from           a record boundary (buffer index) to start at.
     * @param limit          how far bytes are loaded (buffer index).
     * @param expectedOffset the offset the first record must have.
     * @param recordLogId    the 32-bit log id each record must carry.
     * @param index          an index to fill (with segment positions), or null.
     * @param base           the segment position of buffer index 0.
     * @param segmentSize    the segment's capacity: no record may run past it.
     * @return why the scan stopped.
     */
    public Stop scan(final DirectBuffer buffer, final int from, final int limit, final long expectedOffset,
        final int recordLogId, final SegmentIndex index, final int base, final int segmentSize)
    {
        position = from;
        damagePosition = from;
        nextOffset = expectedOffset;
        records = 0;
        reason = null;
        int at = from; // the next header to read: position, or past a gap after it
        while (true)
        {
            damagePosition = at;
            // a gap first: it can be shorter than a header (8 bytes at the end of a segment, say)
            if (at == position && RecordDescriptor.isGap(base + at, blockSize) &&
                at + RecordDescriptor.ALIGNMENT <= limit && buffer.getInt(at + RecordDescriptor.LENGTH_OFFSET) == 0)
            {
                final int next = skipGap(buffer, at, limit, base, segmentSize);
                if (next < 0)
                {
                    return stop;
                }
                at = next; // a record there must be the expected one: checked below like any other
                continue;
            }
            if (at + RecordDescriptor.HEADER_LENGTH > limit)
            {
                stop = base + limit >= segmentSize && isZero(buffer, at, limit) ? Stop.END : Stop.LIMIT;
                return stop;
            }
            final int length = buffer.getInt(at + RecordDescriptor.LENGTH_OFFSET);
            if (length == 0)
            {
                if (isZero(buffer, at, at + RecordDescriptor.HEADER_LENGTH))
                {
                    stop = Stop.END;
                    return stop;
                }
                return invalid("zero length with a non-zero header");
            }
            if (length < RecordDescriptor.HEADER_LENGTH)
            {
                return invalid("length " + length + " below the header length");
            }
            final int aligned = RecordDescriptor.alignedLength(length);
            if ((long)base + at + aligned > segmentSize)
            {
                return invalid("length " + length + " runs past the segment end");
            }
            if ((long)at + aligned > limit)
            {
                stop = Stop.LIMIT;
                return stop;
            }
            final String bad = checkRecord(buffer, at, length, recordLogId);
            if (bad != null)
            {
                return invalid(bad);
            }
            final long offset = buffer.getLong(at + RecordDescriptor.OFFSET_OFFSET);
            final int count = buffer.getInt(at + RecordDescriptor.COUNT_OFFSET);
            final long timestamp = buffer.getLong(at + RecordDescriptor.TIMESTAMP_OFFSET);
            if (index != null)
            {
                index.onRecord(offset, base + at, timestamp, aligned);
            }
            lastTimestamp = timestamp;
            lastRecordPosition = base + at;
            lastRecordOffset = offset;
            nextOffset = offset + count;
            at += aligned;
            position = at;
            records++;
        }
    }

    /** @return the position after the gap at {@code at}, or -1 when the scan stops there ({@link #stop} set). */
    private int skipGap(final DirectBuffer buffer, final int at, final int limit, final int base,
        final int segmentSize)
    {
        final int next = RecordDescriptor.gapEnd(base + at, blockSize) - base;
        if (next > limit)
        {
            stop = Stop.LIMIT; // the gap is not loaded to its end: the caller reads on from here
            return -1;
        }
        if (!isGap(buffer, at, next))
        {
            invalid("a gap holding bytes that are neither its filler nor zero");
            return -1;
        }
        if (base + next >= segmentSize)
        {
            damagePosition = next;
            stop = Stop.END;
            return -1;
        }
        return next;
    }

    /** @return why the whole record at {@code at} is not the expected next one of this log, or null. */
    private String checkRecord(final DirectBuffer buffer, final int at, final int length, final int recordLogId)
    {
        final long offset = buffer.getLong(at + RecordDescriptor.OFFSET_OFFSET);
        final int count = buffer.getInt(at + RecordDescriptor.COUNT_OFFSET);
        final int logId = buffer.getInt(at + RecordDescriptor.LOG_ID_OFFSET);
        if (logId != recordLogId)
        {
            return "log id 0x" + Integer.toHexString(logId) + " is not this log's";
        }
        if (offset != nextOffset)
        {
            return "offset " + offset + " where " + nextOffset + " was expected";
        }
        if (count < 1)
        {
            return "record count " + count;
        }
        final int crc = buffer.getInt(at + RecordDescriptor.CRC_OFFSET);
        final int actual = Checksums.crc32c(buffer, at + RecordDescriptor.CRC_COVERAGE_OFFSET,
            length - RecordDescriptor.CRC_COVERAGE_OFFSET);
        if (crc != actual)
        {
            return "CRC mismatch";
        }
        return null;
    }

    private Stop invalid(final String why)
    {
        reason = why;
        stop = Stop.INVALID;
        return stop;
    }

    /**
     * @param buffer bytes.
     * @param from   first byte.
     * @param to     end, exclusive.
     * @return true when every byte in the range is zero.
     */
    public static boolean isZero(final DirectBuffer buffer, final int from, final int to)
    {
        int i = from;
        for (; i + 8 <= to; i += 8)
        {
            if (buffer.getLong(i) != 0)
            {
                return false;
            }
        }
        for (; i < to; i++)
        {
            if (buffer.getByte(i) != 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code [from, to)} is a gap as the format defines it (see {@link RecordDescriptor}): empty, or a zero
     * length field followed by sectors each all {@link RecordDescriptor#GAP_FILL} or all zero (a torn write of the
     * gap's block), up to the boundary or to a write mark that ends there. Buffer index 0 must lie on a sector boundary of the segment.
     *
     * @param buffer bytes.
     * @param from   the gap's start (a record's end).
     * @param to     the next block boundary.
     * @return true when the bytes are a gap.
     */
    public static boolean isGap(final DirectBuffer buffer, final int from, final int to)
    {
        if (from == to)
        {
            return true;
        }
        if (to - from < RecordDescriptor.ALIGNMENT || buffer.getInt(from + RecordDescriptor.LENGTH_OFFSET) != 0)
        {
            return false;
        }
        // a write mark (a recycled segment's gaps end with one): the filler rule holds before it
        final int mark = to - RecordDescriptor.WRITE_MARK_LENGTH;
        final int limit = mark >= from && RecordDescriptor.isWriteMark(buffer, mark) ? mark : to;
        int at = from + 4;
        while (at < limit)
        {
            final int end = Math.min(limit, (at & -RecordDescriptor.GAP_SECTOR) + RecordDescriptor.GAP_SECTOR);
            final byte first = buffer.getByte(at);
            if (first != 0 && first != RecordDescriptor.GAP_FILL)
            {
                return false;
            }
            for (int i = at + 1; i < end; i++)
            {
                if (buffer.getByte(i) != first)
                {
                    return false;
                }
            }
            at = end;
        }
        return true;
    }

    private static final java.nio.ByteBuffer ZEROS = java.nio.ByteBuffer.allocateDirect(1 << 20).asReadOnlyBuffer();

    /**
     * The same as {@link #isZero(DirectBuffer, int, int)} over a direct buffer, compared 1 MiB at a time with a
     * zero buffer ({@code ByteBuffer.mismatch}, vectorized by the JDK): recovery checks up to a whole segment.
     *
     * @param buffer bytes.
     * @param from   first byte.
     * @param to     end, exclusive.
     * @return true when every byte in the range is zero.
     */
    public static boolean isZero(final java.nio.ByteBuffer buffer, final int from, final int to)
    {
        int at = from;
        while (at < to)
        {
            final int n = Math.min(ZEROS.capacity(), to - at);
            if (buffer.slice(at, n).mismatch(ZEROS.slice(0, n)) != -1)
            {
                return false;
            }
            at += n;
        }
        return true;
    }

    /** @return the end of the last good record (a gap after it is not included). */
    public int position()
    {
        return position;
    }

    /**
     * @return where the scan stopped looking: the header that ended it, past a gap after the last good record
     * when there was one (so damage after a gap is judged where it lies, not by the gap's written zeros).
     */
    public int damagePosition()
    {
        return damagePosition;
    }

    /** @return the offset after the last good record. */
    public long nextOffset()
    {
        return nextOffset;
    }

    /** @return the last good record's timestamp. */
    public long lastTimestamp()
    {
        return lastTimestamp;
    }

    /** @return the segment position of the last good record any scan of this scanner saw, or -1. */
    public int lastRecordPosition()
    {
        return lastRecordPosition;
    }

    /** @return the offset of that record, or -1. */
    public long lastRecordOffset()
    {
        return lastRecordOffset;
    }

    /** @return good records seen by the last scan. */
    public int records()
    {
        return records;
    }

    /** @return why the last scan stopped. */
    public Stop stop()
    {
        return stop;
    }

    /** @return what was wrong, for {@link Stop#INVALID}. */
    public String reason()
    {
        return reason;
    }
}
