package io.directlog.storage.format;

/**
 * Layout of a record in a segment (format version 1). Records start at {@link SegmentHeaderDescriptor#LENGTH}
 * and are aligned to {@link #ALIGNMENT}; a record never straddles segments.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 length (header + payload, >= 32)              |  0
 *  +---------------------------------------------------------------+
 *  |           CRC32C of bytes [8, length) of this record          |  4
 *  +---------------------------------------------------------------+
 *  |                     offset (absolute, 64 bit)                 |  8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 timestamp (epoch ms, 64 bit)                  | 16
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 record count (>= 1)                           | 24
 *  +---------------------------------------------------------------+
 *  |                 log id (low 32 bits of the log's id)          | 28
 *  +---------------------------------------------------------------+
 *  |                 payload ...                                   | 32
 *  +---------------------------------------------------------------+
 * </pre>
 * The length counts the header, so a real header is never all zeros, not even for an empty payload at offset 0
 * (whose CRC32C over nothing would be 0): an all-zero length marks the end of the written part of a segment,
 * which pre-zeroing makes a strong invariant. The CRC covers offset, timestamp, count, log id and payload, so
 * a stale record of a recycled file or a misdirected write from another log is rejected, never resurrected.
 * <p>
 * Stateless; thread-safe.
 */
public final class RecordDescriptor
{
    /** Offset of the record's length field. */
    public static final int LENGTH_OFFSET = 0;
    /** Offset of the CRC32C field. */
    public static final int CRC_OFFSET = 4;
    /** Offset of the base offset field. */
    public static final int OFFSET_OFFSET = 8;
    /** Offset of the timestamp field. */
    public static final int TIMESTAMP_OFFSET = 16;
    /** Offset of the record count field. */
    public static final int COUNT_OFFSET = 24;
    /** Offset of the log id field. */
    public static final int LOG_ID_OFFSET = 28;
    /** Length of the header: the payload starts here. */
    public static final int HEADER_LENGTH = 32;
    /** The CRC covers bytes from here to the record's end. */
    public static final int CRC_COVERAGE_OFFSET = OFFSET_OFFSET;
    /** Records start at multiples of this. */
    public static final int ALIGNMENT = 8;

    private RecordDescriptor()
    {
    }

    /**
     * @param payloadLength payload bytes.
     * @return the record's length field: header plus payload.
     */
    public static int recordLength(final int payloadLength)
    {
        return HEADER_LENGTH + payloadLength;
    }

    /**
     * @param recordLength a record's length field.
     * @return the space the record takes: its length rounded up to {@link #ALIGNMENT}.
     */
    public static int alignedLength(final int recordLength)
    {
        // clamped, not wrapped: a damaged length near 2^31 must fail bounds checks, never turn negative
        return (int)Math.min(Integer.MAX_VALUE & -ALIGNMENT, ((long)recordLength + ALIGNMENT - 1) & -ALIGNMENT);
    }

    /**
     * @param segmentSize a segment's capacity.
     * @return the largest payload a record in such a segment can hold.
     */
    public static int maxPayloadLength(final int segmentSize)
    {
        return segmentSize - SegmentHeaderDescriptor.LENGTH - HEADER_LENGTH;
    }

    /**
     * @param logId a log's 64-bit id.
     * @return the 32 bits of it that each record carries.
     */
    public static int recordLogId(final long logId)
    {
        return (int)(logId ^ (logId >>> 32));
    }
}
