package io.directlog.cli.bench;

import java.io.IOException;
import java.nio.file.Path;

import io.directlog.nativeio.AlignedMemory;
import io.directlog.nativeio.NativeFile;
import io.directlog.nativeio.OpenFlags;

/**
 * Makes a file the way the engine prepares a segment: zeros physically written with O_DIRECT, then fdatasync.
 * <p>
 * fallocate alone is not enough: it leaves unwritten extents, and the first O_DIRECT write into one needs a journaled
 * extent conversion. After real zeros and fdatasync, overwriting the file changes no filesystem metadata, so the
 * raw overwrite rows measure the device and nothing else.
 * <p>
 * Stateless; thread-safe.
 */
final class PreZeroedFile
{
    static final int CHUNK_BYTES = 1 << 20;
    static final int FILE_MODE = 0644;

    private PreZeroedFile()
    {
    }

    /**
     * @param file      the file, replaced if it exists.
     * @param size      its size; a multiple of {@link #CHUNK_BYTES}.
     * @param alignment O_DIRECT alignment of the directory.
     * @throws IOException when a write or the sync fails.
     */
    static void create(final Path file, final long size, final int alignment) throws IOException
    {
        if (size % CHUNK_BYTES != 0)
        {
            throw new IllegalArgumentException("size must be a multiple of " + CHUNK_BYTES + ": " + size);
        }
        final int flags = OpenFlags.READ_WRITE | OpenFlags.CREATE | OpenFlags.TRUNCATE | OpenFlags.DIRECT |
            OpenFlags.CLOEXEC;
        try (AlignedMemory zeros = AlignedMemory.allocate(CHUNK_BYTES, alignment);
            NativeFile f = NativeFile.open(file, flags, FILE_MODE))
        {
            zeros.zero();
            for (long position = 0; position < size; position += CHUNK_BYTES)
            {
                f.writeFully(zeros.address(), CHUNK_BYTES, position);
            }
            f.datasync();
        }
    }
}
