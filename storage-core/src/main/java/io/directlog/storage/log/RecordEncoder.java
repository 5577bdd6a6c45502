package io.directlog.storage.log;

import io.directlog.storage.format.Checksums;
import io.directlog.storage.format.RecordDescriptor;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

/**
 * Lays one record, or the gap after the last record of a flushed block, into a write page (the layout is
 * {@link RecordDescriptor}'s). A record's length is stored last, with release ordering: a reader that acquire-loads
 * a positive length sees the whole record.
 * <p>
 * Design note: apart from {@link LogAppender} so that the appender keeps to where records go and when they are
 * written and acknowledged; the bytes of a record are this class's alone.
 * <p>
 * Not thread-safe (one checksum calculator); owned by the writer thread of its log.
 */
final class RecordEncoder
{
    private final Checksums.Calculator crc = new Checksums.Calculator();
    private final int recordLogId;

    /** @param logId the log's 64-bit id; each record carries the 32 bits {@link RecordDescriptor#recordLogId} keeps. */
    RecordEncoder(final long logId)
    {
        this.recordLogId = RecordDescriptor.recordLogId(logId);
    }

    /**
     * Writes a record of {@code length} body bytes at {@code position}: the header, the body, the checksum, then
     * the length.
     */
    void write(final AtomicBuffer buffer, final int position, final long offset, final long timestamp,
        final int recordCount, final DirectBuffer source, final int index, final int length)
    {
        final int recordLength = RecordDescriptor.recordLength(length);
        buffer.putLong(position + RecordDescriptor.OFFSET_OFFSET, offset);
        buffer.putLong(position + RecordDescriptor.TIMESTAMP_OFFSET, timestamp);
        buffer.putInt(position + RecordDescriptor.COUNT_OFFSET, recordCount);
        buffer.putInt(position + RecordDescriptor.LOG_ID_OFFSET, recordLogId);
        buffer.putBytes(position + RecordDescriptor.HEADER_LENGTH, source, index, length);
        buffer.putInt(position + RecordDescriptor.CRC_OFFSET, crc.crc32c(buffer,
            position + RecordDescriptor.CRC_COVERAGE_OFFSET, recordLength - RecordDescriptor.CRC_COVERAGE_OFFSET));
        buffer.putIntRelease(position + RecordDescriptor.LENGTH_OFFSET, recordLength); // release: record before length
    }

    /**
     * Fills {@code [end, blockEnd)} as a gap: the next record goes at the block boundary (the block is not written
     * again), and the filler tells the gap from sectors a torn write left unwritten (see RecordDescriptor).
     */
    static void fillGap(final AtomicBuffer buffer, final int end, final int blockEnd)
    {
        if (blockEnd > end)
        {
            buffer.setMemory(end + 4, blockEnd - end - 4, RecordDescriptor.GAP_FILL); // the length field stays 0
        }
    }

    /**
     * Fills a write's gap; in a segment with write marks (a recycled one), ends it with the mark naming the
     * segment and the write's end offset, when it has room for one (see RecordDescriptor): at the block's end, as
     * far from the write's first record as the write reaches, so that damage over that record leaves it. In a
     * segment with zero-ahead (a recycled one, {@code SegmentHeaderDescriptor.FLAG_ZERO_AHEAD}) the write also
     * covers the block after {@code blockEnd}, as zeros: the next write starts there, so whatever is found there at
     * recovery is zeros (no write after this one landed), this segment's records, or damage over a write this
     * segment made; never the stale bytes of the older file (issue 17).
     *
     * @param baseOffset the segment's base offset, or -1 for no mark.
     * @param endOffset  the offset after the write's last record.
     * @param writeEnd   where the write ends: {@code blockEnd}, or the end of the zero-ahead block after it.
     * @return {@code writeEnd}.
     */
    static int fillGap(final AtomicBuffer buffer, final int end, final int blockEnd, final long baseOffset,
        final long endOffset, final int writeEnd)
    {
        fillGap(buffer, end, blockEnd);
        if (baseOffset >= 0 && blockEnd - end >= RecordDescriptor.WRITE_MARK_LENGTH)
        {
            RecordDescriptor.putWriteMark(buffer, blockEnd - RecordDescriptor.WRITE_MARK_LENGTH, baseOffset, endOffset);
        }
        if (writeEnd > blockEnd)
        {
            buffer.setMemory(blockEnd, writeEnd - blockEnd, (byte)0); // no record lies there yet
        }
        return writeEnd;
    }
}
