package io.directlog.storage.log;

import io.directlog.storage.format.RecordDescriptor;
import org.agrona.concurrent.AtomicBuffer;

/**
 * What recovery reads in the bytes after damage, without I/O: valid records of this log after it, bytes a
 * segment's own write provably covered, and the unwritten sector a torn write leaves. Stateless.
 */
final class DamageProbe
{
    /** The sector a device writes atomically: a torn write tears between sectors, never inside one. */
    static final int SECTOR_LENGTH = 512;

    private DamageProbe()
    {
    }

    /** Valid records found after damage: where the first starts, its offset, and the end offset of the farthest. */
    static final class ValidAfter
    {
        int firstPosition = -1;
        long firstOffset = -1;
        long endOffset = -1;
    }

    /**
     * @return the valid records of this log at 8-byte positions after {@code from} whose offsets are at least
     * {@code expectedOffset} (both fields -1 when there is none).
     */
    static ValidAfter validRecordAfter(final AtomicBuffer buffer, final int from, final int size,
        final long expectedOffset, final int recordLogId, final int blockSize)
    {
        final RecordScanner probe = new RecordScanner(blockSize);
        final ValidAfter found = new ValidAfter();
        for (int p = from + RecordDescriptor.ALIGNMENT; p + RecordDescriptor.HEADER_LENGTH <= size;
            p += RecordDescriptor.ALIGNMENT)
        {
            if (buffer.getInt(p + RecordDescriptor.LOG_ID_OFFSET) != recordLogId)
            {
                continue;
            }
            final long offset = buffer.getLong(p + RecordDescriptor.OFFSET_OFFSET);
            if (offset < expectedOffset)
            {
                continue;
            }
            probe.scan(buffer, p, size, offset, recordLogId, null, 0, size);
            if (probe.records() > 0)
            {
                if (found.firstPosition < 0)
                {
                    found.firstPosition = p;
                    found.firstOffset = offset;
                }
                found.endOffset = Math.max(found.endOffset, probe.nextOffset());
                p = probe.position() - RecordDescriptor.ALIGNMENT;
            }
        }
        return found;
    }

    /**
     * The write marks of a segment after its records' end (issue 17, defect 1): the gap after each write in a
     * segment with write marks names the segment's base offset and the write's end offset, and no older segment of
     * the log has that base offset, so such a mark past the end proves the segment wrote there (garbage over a
     * write's first record, or a torn write whose first sectors did not land). Marks lie at 8-byte positions off
     * block boundaries.
     *
     * @return the highest end offset of this segment's marks at or after {@code from} that lies above
     *     {@code endOffset}, or -1 when there is none.
     */
    static long markEndAfter(final AtomicBuffer buffer, final int from, final int size, final long baseOffset,
        final long endOffset, final int blockSize)
    {
        long found = -1;
        for (int p = from & -RecordDescriptor.ALIGNMENT; p + RecordDescriptor.WRITE_MARK_LENGTH <= size;
            p += RecordDescriptor.ALIGNMENT)
        {
            if ((p & (blockSize - 1)) != 0 && buffer.getLong(p + RecordDescriptor.WRITE_MARK_BASE_OFFSET) == baseOffset &&
                buffer.getLong(p + RecordDescriptor.WRITE_MARK_END_OFFSET) > endOffset &&
                RecordDescriptor.isWriteMark(buffer, p))
            {
                found = Math.max(found, buffer.getLong(p + RecordDescriptor.WRITE_MARK_END_OFFSET));
            }
        }
        return found;
    }

    /**
     * In a recycled segment, whether the bytes at {@code at}, where the scan stopped on a header that failed its
     * checks, were written by this segment rather than left by an older one (so they are damage, not its end).
     * Every write covers whole blocks from a block boundary, so a position inside a block that the last good record
     * (or its gap) shares was written by that record's write; and within a 512 B sector the write landed whole, so
     * when the sector holding {@code at} also holds bytes already verified, the bytes at {@code at} are as written.
     * A header carrying this log's id and the expected offset is this segment's record, whatever failed. At a block
     * boundary, or at a sector boundary a torn write may not have reached, stale bytes are possible: not provable.
     */
    static boolean writtenHere(final AtomicBuffer buffer, final int at, final int size, final int blockSize,
        final long expectedOffset, final int recordLogId)
    {
        if (at + RecordDescriptor.HEADER_LENGTH <= size &&
            buffer.getInt(at + RecordDescriptor.LOG_ID_OFFSET) == recordLogId &&
            buffer.getLong(at + RecordDescriptor.OFFSET_OFFSET) == expectedOffset)
        {
            return true;
        }
        final int sector = SECTOR_LENGTH;
        if (at % blockSize == 0 || at % sector == 0)
        {
            return false;
        }
        if (buffer.getInt(at + RecordDescriptor.LENGTH_OFFSET) == 0)
        {
            // a gap's start: only its first sector (shared with the record before it) is proof; a later sector of
            // it may be one a torn write did not reach
            final int sectorEnd = Math.min(RecordDescriptor.gapEnd(at, blockSize), (at / sector + 1) * sector);
            return !RecordScanner.isGap(buffer, at, sectorEnd);
        }
        return true;
    }

    /**
     * Whether the damaged record header at {@code at} lost bytes with the end of a short file: it lies in the
     * file's last block, or declares a length that runs past the file's end. Then it is not a torn write. Only where
     * the header says the record ends is used; its other fields are not trusted.
     *
     * @param buffer    the segment's page.
     * @param at        the damaged header's position.
     * @param fileSize  the file's size, below its segment's.
     * @param blockSize the segment's block size.
     * @return true when bytes of that record went with the file's end.
     */
    static boolean runsPastFileEnd(final AtomicBuffer buffer, final int at, final long fileSize, final int blockSize)
    {
        if ((long)(at / blockSize + 1) * blockSize >= fileSize)
        {
            return true;
        }
        final int length = buffer.getInt(at + RecordDescriptor.LENGTH_OFFSET);
        return length >= RecordDescriptor.HEADER_LENGTH && (long)at + RecordDescriptor.alignedLength(length) > fileSize;
    }

    /**
     * Whether damage at {@code [cut, next)} followed by valid records can be a sector-atomic torn write on
     * pre-zeroed space: the writes since the last durable point landed in part, so some 512 B sector of the
     * damaged span still reads as it was before the write. Before the write, every byte at or after the end of
     * the records then written was zero (segments are pre-zeroed; recovery and truncation zero and sync what they
     * cut), so that sector is either all zero, or is the sector holding the previous write's end: zeros from the
     * first record of the write (the cut) up to the sector boundary. A bit flip, random garbage or a misdirected
     * block leaves no such sector: valid records after that are corruption.
     */
    static boolean looksTorn(final AtomicBuffer buffer, final int cut, final int next)
    {
        final int sector = SECTOR_LENGTH;
        final int boundary = (cut + sector - 1) / sector * sector;
        if (boundary > cut && boundary <= next && RecordScanner.isZero(buffer, cut, boundary))
        {
            return true;
        }
        for (int s = boundary; s + sector <= next; s += sector)
        {
            if (RecordScanner.isZero(buffer, s, s + sector))
            {
                return true;
            }
        }
        return false;
    }
}
