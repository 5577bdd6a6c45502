package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Path;

import io.directlog.storage.format.Checksums;
import io.directlog.storage.format.IndexFileDescriptor;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;
import io.directlog.storage.page.PageMemory;
import org.agrona.concurrent.AtomicBuffer;

/**
 * Persists and loads a segment's index as {@code <seq>.idx} (layout in {@link IndexFileDescriptor}). Written to
 * {@code <seq>.idx.tmp}, fdatasync'ed, renamed over the old one: a reader finds the old file, the new one, or
 * none, never a half-written one that passes its CRC. Derived data: anything wrong means "scan instead".
 * <p>
 * Stateless; thread-safe.
 */
final class IndexFile
{
    /**
     * A loaded index.
     *
     * @param index        the entries.
     * @param endOffset    the offset after the last record it covers.
     * @param endPosition  the end of those records.
     * @param maxTimestamp the latest timestamp among them.
     */
    record Loaded(SegmentIndex index, long endOffset, int endPosition, long maxTimestamp)
    {
    }

    private IndexFile()
    {
    }

    /**
     * Writes the entries of {@code index} below {@code endPosition}.
     *
     * @param io           the I/O layer.
     * @param dir          the log's directory.
     * @param logId        the log's id.
     * @param segment      the segment.
     * @param index        its index (entries read up to the count seen once).
     * @param endPosition  the end of the records covered.
     * @param endOffset    the offset there.
     * @param maxTimestamp the latest timestamp covered.
     * @throws IOException when it cannot be written.
     */
    static void write(final BlockIo io, final Path dir, final long logId, final Segment segment,
        final SegmentIndex index, final int endPosition, final long endOffset, final long maxTimestamp)
        throws IOException
    {
        final int block = IoBlock.of(io).length();
        int n = index.count();
        while (n > 0 && index.positionAt(n - 1) >= endPosition)
        {
            n--;
        }
        int known = 0;
        for (int i = 0; i < n; i++)
        {
            known += isKnown(index, i, maxTimestamp) ? 1 : 0;
        }
        final int length = IndexFileDescriptor.fileLength(known, block);
        final PageMemory memory = PageMemory.allocate(length, block);
        try
        {
            final AtomicBuffer b = memory.buffer();
            b.setMemory(0, length, (byte)0);
            b.putLong(IndexFileDescriptor.MAGIC_OFFSET, IndexFileDescriptor.MAGIC);
            b.putInt(IndexFileDescriptor.VERSION_OFFSET, IndexFileDescriptor.VERSION);
            b.putInt(IndexFileDescriptor.COUNT_OFFSET, known);
            b.putLong(IndexFileDescriptor.LOG_ID_OFFSET, logId);
            b.putLong(IndexFileDescriptor.SEQUENCE_OFFSET, segment.sequence());
            b.putLong(IndexFileDescriptor.BASE_OFFSET_OFFSET, segment.baseOffset());
            b.putLong(IndexFileDescriptor.END_OFFSET_OFFSET, endOffset);
            b.putInt(IndexFileDescriptor.END_POSITION_OFFSET, endPosition);
            b.putInt(IndexFileDescriptor.SEGMENT_SIZE_OFFSET, segment.capacity());
            b.putLong(IndexFileDescriptor.MAX_TIMESTAMP_OFFSET, maxTimestamp);
            int at = IndexFileDescriptor.HEADER_LENGTH;
            for (int i = 0; i < n; i++)
            {
                if (!isKnown(index, i, maxTimestamp))
                {
                    continue; // too far from its chunk's base to be kept in memory: a sparser index is still exact
                }
                b.putLong(at, index.offsetAt(i));
                b.putLong(at + 8, index.timestampBound(i, maxTimestamp));
                b.putInt(at + 16, index.positionAt(i));
                at += IndexFileDescriptor.ENTRY_LENGTH;
            }
            b.putInt(at, Checksums.crc32c(b, 0, at));
            final Path target = SegmentFiles.index(dir, segment.sequence());
            final Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
            io.delete(tmp);
            try (BlockFile f = io.open(tmp, FileMode.DIRECT, true))
            {
                f.write(memory.byteBuffer(), 0, length, 0);
                f.datasync();
            }
            io.rename(tmp, target);
        }
        finally
        {
            memory.free();
        }
    }

    /**
     * @param io      the I/O layer.
     * @param dir     the log's directory.
     * @param logId   the log's id.
     * @param segment the segment it must match.
     * @return the index, or null when there is no valid one for this segment.
     */
    static Loaded read(final BlockIo io, final Path dir, final long logId, final Segment segment)
    {
        final Path path = SegmentFiles.index(dir, segment.sequence());
        try
        {
            if (!io.exists(path))
            {
                return null;
            }
        }
        catch (final IOException e)
        {
            return null; // as an unreadable index: the segment is scanned instead
        }
        final int block = IoBlock.of(io).length();
        try (BlockFile f = io.open(path, FileMode.READ, false))
        {
            final long size = f.size();
            if (size < block || size > IndexFileDescriptor.fileLength(segment.capacity() / SegmentIndex.INTERVAL + 2,
                block) || size % block != 0)
            {
                return null;
            }
            final PageMemory memory = PageMemory.allocate((int)size, block);
            try
            {
                final int read = f.read(memory.byteBuffer(), 0, (int)size, 0);
                final AtomicBuffer b = memory.buffer();
                final int n = b.getInt(IndexFileDescriptor.COUNT_OFFSET);
                if (read < size || b.getLong(IndexFileDescriptor.MAGIC_OFFSET) != IndexFileDescriptor.MAGIC ||
                    b.getInt(IndexFileDescriptor.VERSION_OFFSET) != IndexFileDescriptor.VERSION || n < 0 ||
                    IndexFileDescriptor.crcOffset(n) + 4 > size)
                {
                    return null;
                }
                final int crcAt = IndexFileDescriptor.crcOffset(n);
                if (b.getInt(crcAt) != Checksums.crc32c(b, 0, crcAt) ||
                    b.getLong(IndexFileDescriptor.LOG_ID_OFFSET) != logId ||
                    b.getLong(IndexFileDescriptor.SEQUENCE_OFFSET) != segment.sequence() ||
                    b.getLong(IndexFileDescriptor.BASE_OFFSET_OFFSET) != segment.baseOffset() ||
                    b.getInt(IndexFileDescriptor.SEGMENT_SIZE_OFFSET) != segment.capacity())
                {
                    return null;
                }
                final int endPosition = b.getInt(IndexFileDescriptor.END_POSITION_OFFSET);
                final long endOffset = b.getLong(IndexFileDescriptor.END_OFFSET_OFFSET);
                if (endPosition < 4096 || endPosition > segment.capacity() || endOffset < segment.baseOffset())
                {
                    return null;
                }
                final SegmentIndex index = new SegmentIndex(segment.capacity());
                int at = IndexFileDescriptor.HEADER_LENGTH;
                for (int i = 0; i < n; i++)
                {
                    final long offset = b.getLong(at);
                    final int position = b.getInt(at + 16);
                    if (position < 4096 || position >= endPosition || offset < segment.baseOffset() ||
                        offset >= endOffset || !index.restore(offset, position, b.getLong(at + 8)))
                    {
                        return null;
                    }
                    at += IndexFileDescriptor.ENTRY_LENGTH;
                }
                return new Loaded(index, endOffset, endPosition, b.getLong(IndexFileDescriptor.MAX_TIMESTAMP_OFFSET));
            }
            finally
            {
                memory.free();
            }
        }
        catch (final IOException | RuntimeException e)
        {
            return null; // derived data: scan instead
        }
    }

    /**
     * Deletes a segment's persisted index, if any (durable with the next directory fsync).
     *
     * @param io       the I/O layer.
     * @param dir      the log's directory.
     * @param sequence the segment.
     * @throws IOException when it cannot be deleted.
     */
    static void delete(final BlockIo io, final Path dir, final long sequence) throws IOException
    {
        io.delete(SegmentFiles.index(dir, sequence));
    }

    private static boolean isKnown(final SegmentIndex index, final int i, final long maxTimestamp)
    {
        return index.offsetAt(i) != Long.MAX_VALUE && index.timestampBound(i, maxTimestamp) != Long.MAX_VALUE;
    }
}
