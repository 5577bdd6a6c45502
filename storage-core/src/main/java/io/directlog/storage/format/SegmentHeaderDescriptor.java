package io.directlog.storage.format;

import org.agrona.BitUtil;
import org.agrona.concurrent.AtomicBuffer;

/**
 * Layout of a segment's first block (format version 3; version 2 is still read). The header is written by the
 * writer with the first write into the segment, so a prepared segment's first block stays all zero until the writer
 * takes it.
 * <pre>
 *  offset  field
 *   0      magic            8 bytes  "DLOGSEG1" (little-endian long {@link #MAGIC})
 *   8      version          int      {@link #VERSION}
 *  12      header length    int      {@link #LENGTH}: records start there
 *  16      log id           long     the log's random id (also in log.meta)
 *  24      base offset      long     offset of the segment's first record
 *  32      sequence         long     the file's sequence number (its name)
 *  40      segment size     int      capacity in bytes, this block included
 *  44      block size       int      the write unit: no block is written twice, so records after a flush start at
 *                                    the next multiple of it (a gap, see RecordDescriptor); 4096 or a larger
 *                                    direct-I/O alignment
 *  48      created          long     epoch ms when the writer took the segment
 *  56      flags            int      version 3: {@link #FLAG_RECYCLED}, {@link #FLAG_HOLE_BEFORE},
 *                                    {@link #FLAG_WRITE_MARKS}, {@link #FLAG_ZERO_AHEAD}
 *  60      CRC32C           int      version 3: of bytes [0, 60)
 *  64      hole from        long     with {@link #FLAG_HOLE_BEFORE} only: where the previous segment's records end
 *  72      hole CRC32C      int      with {@link #FLAG_HOLE_BEFORE} only: of bytes [0, 72)
 *  64 .. 4095               zero otherwise
 * </pre>
 * Version 2 has no flags: its CRC32C is at 56, of bytes [0, 56), and its segments are always pre-zeroed. A reader
 * that knows only {@link #FLAG_RECYCLED} refuses a header with {@link #FLAG_HOLE_BEFORE} ("unknown flags"), so an
 * older build never reads a log with a hole as if its offsets ran on.
 * Stateless; thread-safe.
 */
public final class SegmentHeaderDescriptor
{
    /** "DLOGSEG1" as a little-endian long. */
    public static final long MAGIC = 0x31474553474F4C44L;
    /**
     * The format version this code writes and reads. Version 2 added the block size and the gaps it implies;
     * version 1 (development builds only) is refused, since its readers would take a gap for the end.
     */
    public static final int VERSION = 3;
    /** The previous version, still read: no flags field, the CRC at {@link #CRC_OFFSET_V2}. */
    public static final int VERSION_2 = 2;
    /** The header takes one 4 KiB block; records start here. */
    public static final int LENGTH = 4096;
    /** Offset of the magic. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the version. */
    public static final int VERSION_OFFSET = 8;
    /** Offset of the header length. */
    public static final int HEADER_LENGTH_OFFSET = 12;
    /** Offset of the log id. */
    public static final int LOG_ID_OFFSET = 16;
    /** Offset of the base offset. */
    public static final int BASE_OFFSET_OFFSET = 24;
    /** Offset of the sequence number. */
    public static final int SEQUENCE_OFFSET = 32;
    /** Offset of the segment size. */
    public static final int SEGMENT_SIZE_OFFSET = 40;
    /** Offset of the block size. */
    public static final int BLOCK_SIZE_OFFSET = 44;
    /** Offset of the creation time. */
    public static final int CREATED_OFFSET = 48;
    /** Offset of the flags (version 3). */
    public static final int FLAGS_OFFSET = 56;
    /** Offset of the CRC (version 3). */
    public static final int CRC_OFFSET = 60;
    /** Offset of the CRC in version 2, which has no flags. */
    public static final int CRC_OFFSET_V2 = 56;
    /**
     * The file was reused without being zeroed again (a segment retention dropped): bytes after the segment's end
     * may be stale records of this log, all with offsets below the segment's base offset, or parts of them. Recovery
     * therefore takes a record that fails its checks, with no record of this segment's offsets after it, as the end
     * and not as damage; without the flag everything after the end must be zero.
     */
    public static final int FLAG_RECYCLED = 1;
    /**
     * The offsets {@code [holeFrom, baseOffset)} before this segment belong to no record: recovery found the
     * records ending below an offset a dropped record may have held (under TRUNCATE_AT_CORRUPTION one the checkpoint
     * names as acknowledged after a lost segment or damage below the watermark; in any mode the end of valid records
     * dropped after a cut, the default's torn tail included) and went on there, so that no offset is given to a
     * second record (issue 17). The previous segment's records end at {@link #HOLE_FROM_OFFSET}, not at this base offset.
     */
    public static final int FLAG_HOLE_BEFORE = 2;
    /**
     * The gaps of this segment start with write marks ({@link RecordDescriptor#putWriteMark}): set with
     * {@link #FLAG_RECYCLED} by this build, so that garbage over a write's first record at a block boundary is told
     * from the stale bytes of the older file (issue 17, defect 1). A reader that does not know marks refuses the
     * header ("unknown flags") instead of taking a marked gap for damage.
     */
    public static final int FLAG_WRITE_MARKS = 4;
    /**
     * Every write into this segment also wrote zeros over the block after its last block (when the segment has one),
     * where the next write starts: set with {@link #FLAG_RECYCLED} by this build. So after the records of a segment
     * with the flag comes a zero block, never the stale bytes of the older file: a header after the last good record
     * that is neither zero nor a record is damage over a write the segment made (issue 17: garbage over a whole write
     * at a block boundary), not its end. A reader that does not know the flag refuses the header ("unknown flags").
     */
    public static final int FLAG_ZERO_AHEAD = 8;
    /** Offset of where the hole before the segment starts (with {@link #FLAG_HOLE_BEFORE}). */
    public static final int HOLE_FROM_OFFSET = 64;
    /** Offset of the CRC of bytes [0, 72) (with {@link #FLAG_HOLE_BEFORE}). */
    public static final int HOLE_CRC_OFFSET = 72;

    private SegmentHeaderDescriptor()
    {
    }

    /**
     * Writes a header at index 0 of {@code buffer}.
     *
     * @param buffer      the segment's page.
     * @param logId       the log's id.
     * @param baseOffset  the first record's offset.
     * @param sequence    the file's sequence number.
     * @param segmentSize the segment's capacity.
     * @param blockSize   the write unit, a power of two of at least 4096 that divides the segment size.
     * @param created     epoch ms.
     * @param flags       {@link #FLAG_RECYCLED} or 0.
     */
    public static void write(final AtomicBuffer buffer, final long logId, final long baseOffset, final long sequence,
        final int segmentSize, final int blockSize, final long created, final int flags)
    {
        buffer.setMemory(0, LENGTH, (byte)0);
        buffer.putLong(MAGIC_OFFSET, MAGIC);
        buffer.putInt(VERSION_OFFSET, VERSION);
        buffer.putInt(HEADER_LENGTH_OFFSET, LENGTH);
        buffer.putLong(LOG_ID_OFFSET, logId);
        buffer.putLong(BASE_OFFSET_OFFSET, baseOffset);
        buffer.putLong(SEQUENCE_OFFSET, sequence);
        buffer.putInt(SEGMENT_SIZE_OFFSET, segmentSize);
        buffer.putInt(BLOCK_SIZE_OFFSET, blockSize);
        buffer.putLong(CREATED_OFFSET, created);
        buffer.putInt(FLAGS_OFFSET, flags);
        buffer.putInt(CRC_OFFSET, Checksums.crc32c(buffer, 0, CRC_OFFSET));
    }

    /**
     * Writes the header of a segment that follows a hole in the offsets ({@link #FLAG_HOLE_BEFORE}).
     *
     * @param buffer      the segment's first block.
     * @param logId       the log's id.
     * @param baseOffset  the first record's offset.
     * @param sequence    the file's sequence number.
     * @param segmentSize the segment's capacity.
     * @param blockSize   the write unit.
     * @param created     epoch ms.
     * @param holeFrom    where the previous segment's records end: below {@code baseOffset}.
     */
    public static void writeAfterHole(final AtomicBuffer buffer, final long logId, final long baseOffset,
        final long sequence, final int segmentSize, final int blockSize, final long created, final long holeFrom)
    {
        if (holeFrom < 0 || holeFrom >= baseOffset)
        {
            throw new IllegalArgumentException("hole from " + holeFrom + " is not below the base offset " + baseOffset);
        }
        write(buffer, logId, baseOffset, sequence, segmentSize, blockSize, created, FLAG_HOLE_BEFORE);
        buffer.putLong(HOLE_FROM_OFFSET, holeFrom);
        buffer.putInt(HOLE_CRC_OFFSET, Checksums.crc32c(buffer, 0, HOLE_CRC_OFFSET));
    }

    /**
     * @param buffer a segment's first block with a valid header.
     * @return where the hole before the segment starts, or -1 when its offsets follow on from the previous one's.
     */
    public static long holeFrom(final AtomicBuffer buffer)
    {
        return (flags(buffer) & FLAG_HOLE_BEFORE) != 0 ? buffer.getLong(HOLE_FROM_OFFSET) : -1;
    }

    /**
     * @param buffer a segment's first block.
     * @return true when every byte of the block is zero: a prepared segment the writer has not taken.
     */
    public static boolean isBlank(final AtomicBuffer buffer)
    {
        for (int i = 0; i < LENGTH; i += 8)
        {
            if (buffer.getLong(i) != 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @param buffer a segment's first block with a valid header.
     * @return its flags: 0 for version 2.
     */
    public static int flags(final AtomicBuffer buffer)
    {
        return buffer.getInt(VERSION_OFFSET) == VERSION_2 ? 0 : buffer.getInt(FLAGS_OFFSET);
    }

    /**
     * @param buffer a segment's first block.
     * @return null when the header is valid, else what is wrong with it.
     */
    public static String validate(final AtomicBuffer buffer)
    {
        if (buffer.getLong(MAGIC_OFFSET) != MAGIC)
        {
            return "bad magic 0x" + Long.toHexString(buffer.getLong(MAGIC_OFFSET));
        }
        // the version says where the CRC is; a damaged version field fails the CRC of either layout
        final int version = buffer.getInt(VERSION_OFFSET);
        final int crcAt = version == VERSION_2 ? CRC_OFFSET_V2 : CRC_OFFSET;
        if (buffer.getInt(crcAt) != Checksums.crc32c(buffer, 0, crcAt))
        {
            return "header CRC mismatch";
        }
        if (version != VERSION && version != VERSION_2)
        {
            return "unsupported format version " + version;
        }
        if (version == VERSION && (buffer.getInt(FLAGS_OFFSET) & ~(FLAG_RECYCLED | FLAG_HOLE_BEFORE | FLAG_WRITE_MARKS |
            FLAG_ZERO_AHEAD)) != 0)
        {
            return "unknown flags 0x" + Integer.toHexString(buffer.getInt(FLAGS_OFFSET));
        }
        if (version == VERSION && (buffer.getInt(FLAGS_OFFSET) & FLAG_HOLE_BEFORE) != 0)
        {
            final String hole = validateHole(buffer);
            if (hole != null)
            {
                return hole;
            }
        }
        if (buffer.getInt(HEADER_LENGTH_OFFSET) != LENGTH)
        {
            return "unexpected header length " + buffer.getInt(HEADER_LENGTH_OFFSET);
        }
        final int blockSize = buffer.getInt(BLOCK_SIZE_OFFSET);
        final int segmentSize = buffer.getInt(SEGMENT_SIZE_OFFSET);
        if (blockSize < LENGTH || !BitUtil.isPowerOfTwo(blockSize) || segmentSize <= 0 || segmentSize % blockSize != 0)
        {
            return "block size " + blockSize + " is not a power of two of at least " + LENGTH + " dividing the " +
                "segment size " + segmentSize;
        }
        return null;
    }

    private static String validateHole(final AtomicBuffer buffer)
    {
        if (buffer.getInt(HOLE_CRC_OFFSET) != Checksums.crc32c(buffer, 0, HOLE_CRC_OFFSET))
        {
            return "hole CRC mismatch";
        }
        final long from = buffer.getLong(HOLE_FROM_OFFSET);
        final long base = buffer.getLong(BASE_OFFSET_OFFSET);
        if (from < 0 || from >= base)
        {
            return "hole from offset " + from + " is not below the base offset " + base;
        }
        return null;
    }
}
