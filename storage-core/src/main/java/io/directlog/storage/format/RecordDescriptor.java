package io.directlog.storage.format;

/**
 * Layout of a record in a segment (format version 2). Records start at {@link SegmentHeaderDescriptor#LENGTH}
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
 * <b>Gaps.</b> The writer never writes a block (the segment's block size, see
 * {@link SegmentHeaderDescriptor#BLOCK_SIZE_OFFSET}) twice: a crash during a write can leave garbage in the sectors
 * it was writing, and a rewritten tail block would take the acknowledged records that share it along. So the
 * first record after a write starts at the next block boundary, and the bytes between the last record and that
 * boundary are a gap. A gap's first four bytes (where a length would be) are zero, the rest is {@link #GAP_FILL}:
 * a zero length field at a position that is not a multiple of the block size is a gap, and the records go on at
 * the next boundary ({@link #gapEnd}). The filler keeps a gap apart from sectors that were never written, which
 * recovery takes as the mark of a torn write (a gap of zeros would look like one). A sector of a gap that reads
 * as zero is a torn write of the gap's own block; any other byte is damage. A reader below a known end skips a
 * gap; a scan that does not know the end (recovery) goes on after it only if the header at the boundary is the
 * record it expects. A zero length at a block boundary is always the end.
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
    /** The bytes of a gap after its zero length field. */
    public static final byte GAP_FILL = 0x5A;
    /** A gap is judged sector by sector: each is all filler, or all zero (never written). */
    public static final int GAP_SECTOR = 512;

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
     * @param segmentPosition where a zero length field was found, as a position in the segment.
     * @param blockSize       the segment's block size (a power of two).
     * @return true when a zero length there is a gap rather than the end: it is not on a block boundary.
     */
    public static boolean isGap(final int segmentPosition, final int blockSize)
    {
        return (segmentPosition & (blockSize - 1)) != 0;
    }

    /**
     * @param segmentPosition the position of a gap in a segment.
     * @param blockSize       the segment's block size (a power of two).
     * @return where the records go on: the next block boundary.
     */
    public static int gapEnd(final int segmentPosition, final int blockSize)
    {
        return (segmentPosition + blockSize - 1) & -blockSize;
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
