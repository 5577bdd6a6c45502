package io.directlog.storage.format;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

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
 * <b>Write marks.</b> In a segment made from a recycled file ({@link SegmentHeaderDescriptor#FLAG_WRITE_MARKS}) the
 * bytes after the end are stale records of older segments, so garbage over a record that starts at a block boundary
 * (its write's first record) cannot be told from them by itself. So the gap after each write there ends with a
 * mark, in the last {@link #WRITE_MARK_LENGTH} bytes before the block boundary (as far from the write's first record
 * as the write reaches), that names the segment (its base offset) and the offset after the write's last record,
 * under a CRC32C:
 * <pre>
 *  gap          length   int   0 (the gap), then filler as in any gap up to the mark
 *  mark+0       zero     int   0 (the gap's length field when the gap is just the mark)
 *  mark+4       CRC32C   int   of bytes [mark+8, mark+24), XOR {@link #WRITE_MARK_SEED}
 *  mark+8       base     long  the segment's base offset (no older segment of the log has it)
 *  mark+16      end      long  the offset after the write's last record
 *  mark+24                     the block boundary
 * </pre>
 * A mark of the segment after the end of its records proves the segment wrote there (issue 17, defect 1). A gap too
 * short for a mark (under {@link #WRITE_MARK_LENGTH} bytes), or a write that ends on a block boundary, has none; nor
 * does garbage over a whole write leave one. Those are found by the write before: in such a segment each write also
 * zeroes the block after its last one ({@link SegmentHeaderDescriptor#FLAG_ZERO_AHEAD}).
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
    /** Bytes of a write mark, from the gap's start (its zero length field included). */
    public static final int WRITE_MARK_LENGTH = 24;
    /** Offset in a mark of its CRC32C. */
    public static final int WRITE_MARK_CRC_OFFSET = 4;
    /** Offset in a mark of the segment's base offset. */
    public static final int WRITE_MARK_BASE_OFFSET = 8;
    /** Offset in a mark of the offset after the write's last record. */
    public static final int WRITE_MARK_END_OFFSET = 16;
    /** XORed into a mark's CRC, so that a mark is never a CRC of zeros or of filler by chance. */
    public static final int WRITE_MARK_SEED = 0x4B524D57;

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
     * Writes a write mark (the gap's filler before it is the caller's).
     *
     * @param buffer     the segment's bytes.
     * @param gap        where the mark goes: {@link #WRITE_MARK_LENGTH} bytes before the block boundary.
     * @param baseOffset the segment's base offset.
     * @param endOffset  the offset after the write's last record.
     */
    public static void putWriteMark(final MutableDirectBuffer buffer, final int gap, final long baseOffset,
        final long endOffset)
    {
        buffer.putInt(gap + LENGTH_OFFSET, 0);
        buffer.putLong(gap + WRITE_MARK_BASE_OFFSET, baseOffset);
        buffer.putLong(gap + WRITE_MARK_END_OFFSET, endOffset);
        buffer.putInt(gap + WRITE_MARK_CRC_OFFSET, Checksums.crc32c(buffer, gap + WRITE_MARK_BASE_OFFSET, 16) ^
            WRITE_MARK_SEED);
    }

    /**
     * @param buffer the bytes.
     * @param at     an 8-byte aligned buffer index with at least {@link #WRITE_MARK_LENGTH} bytes after it.
     * @return true when a valid write mark starts there (any segment's: compare its base offset).
     */
    public static boolean isWriteMark(final DirectBuffer buffer, final int at)
    {
        return buffer.getInt(at + LENGTH_OFFSET) == 0 && buffer.getLong(at + WRITE_MARK_BASE_OFFSET) >= 0 &&
            buffer.getLong(at + WRITE_MARK_END_OFFSET) > buffer.getLong(at + WRITE_MARK_BASE_OFFSET) &&
            buffer.getInt(at + WRITE_MARK_CRC_OFFSET) ==
            (Checksums.crc32c(buffer, at + WRITE_MARK_BASE_OFFSET, 16) ^ WRITE_MARK_SEED);
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
