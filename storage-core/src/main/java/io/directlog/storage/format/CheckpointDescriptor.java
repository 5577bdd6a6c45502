package io.directlog.storage.format;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Layout of one slot of a log's {@code checkpoint} file: the durable watermark. The file holds two slots of one
 * I/O block each (4 KiB, or the device's direct-I/O alignment when larger); generation {@code g} is written to
 * slot {@code g & 1}, so a torn slot write leaves the other slot, one generation older, intact.
 * <p>
 * The watermark says: every record of every segment below {@code sequence}, and every record of segment
 * {@code sequence} below {@code position}, was durable (fdatasync'ed or written with O_DSYNC) when the slot was
 * written. {@code position} is a record boundary whose next offset is {@code offset}.
 * <p>
 * Version 3 also names the segments taken after the watermark's: the newest segment's sequence and base offset, and
 * how many segments of the list lie beyond the watermark's. The writer writes a slot when it takes a segment, before
 * any record in it is acknowledged (issue 17), so a segment file deleted after the watermark is found at recovery
 * rather than taken for the end.
 * <p>
 * Stateless.
 */
public final class CheckpointDescriptor
{
    /** "DLOGCKP1" in little-endian. */
    public static final long MAGIC = 0x31504B43474F4C44L;
    /** The format version written. */
    public static final int VERSION = 3;
    /** The second version, still read: no fields of the segments after the watermark's, CRC at {@link #CRC_OFFSET_V2}. */
    public static final int VERSION_2 = 2;
    /** The first version, still read: no segment-list fields, CRC at {@link #CRC_OFFSET_V1}. */
    public static final int VERSION_1 = 1;
    /** Bytes of a slot that hold fields (the rest of the block is zero). */
    public static final int FIELDS_LENGTH = 128;
    /** Flag bit: written by a clean close, after the final flush and fdatasync. */
    public static final int FLAG_CLEAN = 1;
    /** Flag bit: written by truncateTo before it zeroes the records after the watermark: the watermark is the end. */
    public static final int FLAG_TRUNCATING = 2;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    public static final int FLAGS_OFFSET = 12;
    public static final int GENERATION_OFFSET = 16;
    public static final int LOG_ID_OFFSET = 24;
    public static final int SEQUENCE_OFFSET = 32;
    public static final int POSITION_OFFSET = 40;
    public static final int OFFSET_OFFSET = 48;
    public static final int LAST_RECORD_POSITION_OFFSET = 56;
    public static final int LAST_RECORD_OFFSET_OFFSET = 64;
    public static final int WRITTEN_OFFSET = 72;
    public static final int CRC_OFFSET_V1 = 80;
    public static final int START_OFFSET_OFFSET = 80;
    public static final int FIRST_SEQUENCE_OFFSET = 88;
    public static final int SEGMENT_COUNT_OFFSET = 96;
    public static final int CRC_OFFSET_V2 = 104;
    public static final int NEWEST_SEQUENCE_OFFSET = 104;
    public static final int NEWEST_BASE_OFFSET_OFFSET = 112;
    public static final int TAKEN_AFTER_COUNT_OFFSET = 120;
    public static final int CRC_OFFSET = 124;

    private CheckpointDescriptor()
    {
    }

    /**
     * Fills a slot (fields only; the caller zeroes the rest of the block).
     *
     * @param b                  the slot's bytes.
     * @param generation         increases with every write.
     * @param logId              the log's id.
     * @param sequence           the segment the watermark lies in.
     * @param position           the watermark: a record boundary in that segment.
     * @param offset             the offset of the record that starts there.
     * @param lastRecordPosition the position of the last record below the watermark in that segment, or -1.
     * @param lastRecordOffset   that record's offset, or -1.
     * @param flags              {@link #FLAG_CLEAN}, {@link #FLAG_TRUNCATING} or 0.
     * @param startOffset        the log's start offset (its end when it has no segment).
     * @param firstSequence      the first segment's sequence, or -1.
     * @param segmentCount       segments from the first through the watermark's.
     * @param newestSequence     the newest segment's sequence, or -1.
     * @param newestBase         its base offset, or -1.
     * @param takenAfterCount    segments after the watermark's (taken since it was durable).
     */
    public static void write(final MutableDirectBuffer b, final long generation, final long logId, final long sequence,
        final long position, final long offset, final long lastRecordPosition, final long lastRecordOffset,
        final int flags, final long startOffset, final long firstSequence, final int segmentCount,
        final long newestSequence, final long newestBase, final int takenAfterCount)
    {
        b.putLong(MAGIC_OFFSET, MAGIC);
        b.putInt(VERSION_OFFSET, VERSION);
        b.putInt(FLAGS_OFFSET, flags);
        b.putLong(GENERATION_OFFSET, generation);
        b.putLong(LOG_ID_OFFSET, logId);
        b.putLong(SEQUENCE_OFFSET, sequence);
        b.putLong(POSITION_OFFSET, position);
        b.putLong(OFFSET_OFFSET, offset);
        b.putLong(LAST_RECORD_POSITION_OFFSET, lastRecordPosition);
        b.putLong(LAST_RECORD_OFFSET_OFFSET, lastRecordOffset);
        b.putLong(WRITTEN_OFFSET, System.currentTimeMillis());
        b.putLong(START_OFFSET_OFFSET, startOffset);
        b.putLong(FIRST_SEQUENCE_OFFSET, firstSequence);
        b.putInt(SEGMENT_COUNT_OFFSET, segmentCount);
        b.putLong(NEWEST_SEQUENCE_OFFSET, newestSequence);
        b.putLong(NEWEST_BASE_OFFSET_OFFSET, newestBase);
        b.putInt(TAKEN_AFTER_COUNT_OFFSET, takenAfterCount);
        b.putInt(CRC_OFFSET, Checksums.crc32c(b, 0, CRC_OFFSET));
    }

    /**
     * @param b     a slot's bytes.
     * @param logId the log's id.
     * @return true when the slot holds a valid checkpoint of this log.
     */
    public static boolean isValid(final DirectBuffer b, final long logId)
    {
        final int version = b.getInt(VERSION_OFFSET);
        final int crcAt = version == VERSION ? CRC_OFFSET : version == VERSION_2 ? CRC_OFFSET_V2 : CRC_OFFSET_V1;
        return b.getLong(MAGIC_OFFSET) == MAGIC && (version == VERSION || version == VERSION_2 || version == VERSION_1) &&
            b.getInt(crcAt) == Checksums.crc32c(b, 0, crcAt) && b.getLong(LOG_ID_OFFSET) == logId;
    }
}
