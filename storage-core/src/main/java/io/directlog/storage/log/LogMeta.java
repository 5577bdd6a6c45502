package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Path;

import io.directlog.storage.CorruptLogException;
import io.directlog.storage.format.Checksums;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;
import io.directlog.storage.page.PageMemory;
import org.agrona.concurrent.AtomicBuffer;

/**
 * A log's identity, in the 4 KiB file {@code log.meta}, written once when the log is created:
 * <pre>
 *  0 magic "DLOGMETA" (long)   8 version (int)   12 segment size (int)
 * 16 log id (long)            24 created epoch ms (long)   32 CRC32C of [0, 32) (int)
 * </pre>
 *
 * @param logId       the log's random 64-bit id (records carry 32 bits of it).
 * @param segmentSize the log's segment size, fixed at creation.
 * @param created     epoch ms of creation.
 */
public record LogMeta(long logId, int segmentSize, long created)
{
    private static final long MAGIC = 0x4154454D474F4C44L; // "DLOGMETA" little-endian
    private static final int VERSION = 1;
    private static final int LENGTH = 4096;

    /**
     * Writes the file durably (fdatasync'ed, renamed into place, then the directory fsync).
     *
     * @param io  the I/O layer.
     * @param dir the log's directory.
     * @throws IOException when it cannot be written.
     */
    public void write(final BlockIo io, final Path dir) throws IOException
    {
        writeFile(io, dir);
        io.syncDirectory(dir);
    }

    /**
     * Writes the file's content durably and renames it into place; the rename is durable once the caller
     * fsyncs the directory.
     *
     * @param io  the I/O layer.
     * @param dir the log's directory.
     * @throws IOException when it cannot be written.
     */
    void writeFile(final BlockIo io, final Path dir) throws IOException
    {
        final PageMemory block = PageMemory.allocate(LENGTH, Math.max(io.alignment(), 4096));
        try
        {
            final AtomicBuffer b = block.buffer();
            b.putLong(0, MAGIC);
            b.putInt(8, VERSION);
            b.putInt(12, segmentSize);
            b.putLong(16, logId);
            b.putLong(24, created);
            b.putInt(32, Checksums.crc32c(b, 0, 32));
            final Path tmp = dir.resolve(SegmentFiles.META_FILE + ".tmp");
            try (BlockFile f = io.open(tmp, FileMode.DIRECT, true))
            {
                f.write(block.byteBuffer(), 0, LENGTH, 0);
                f.datasync(); // content and size (the write extended the file): one journal commit, one flush
            }
            io.rename(tmp, dir.resolve(SegmentFiles.META_FILE));
        }
        finally
        {
            block.free();
        }
    }

    /**
     * @param io   the I/O layer.
     * @param dir  the log's directory.
     * @param name the log's name, for messages.
     * @return the metadata.
     * @throws IOException when it cannot be read.
     */
    public static LogMeta read(final BlockIo io, final Path dir, final String name) throws IOException
    {
        final PageMemory block = PageMemory.allocate(LENGTH, Math.max(io.alignment(), 4096));
        final Path path = dir.resolve(SegmentFiles.META_FILE);
        try (BlockFile f = io.open(path, FileMode.READ, false))
        {
            final int n = f.read(block.byteBuffer(), 0, LENGTH, 0);
            final AtomicBuffer b = block.buffer();
            if (n < 36 || b.getLong(0) != MAGIC || b.getInt(32) != Checksums.crc32c(b, 0, 32))
            {
                throw new CorruptLogException("log '" + name + "': " + path + " is not a valid log.meta file");
            }
            if (b.getInt(8) != VERSION)
            {
                throw new CorruptLogException("log '" + name + "': " + path + " has unsupported version " +
                    b.getInt(8));
            }
            return new LogMeta(b.getLong(16), b.getInt(12), b.getLong(24));
        }
        finally
        {
            block.free();
        }
    }
}
