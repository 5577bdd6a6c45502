package io.directlog.benchmarks.raw;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * A file opened for direct I/O by one of the two paths the raw suites compare, with the aligned buffers that
 * path writes from.
 * <p>
 * Positional reads and writes are thread-safe; each thread uses its own {@link Block}.
 */
public interface RawFile extends AutoCloseable
{
    /** Direct-I/O alignment of positions, lengths and buffer addresses. */
    int ALIGNMENT = 4096;

    /**
     * Opens a file for direct I/O, creating it if needed.
     *
     * @param impl  "nativeio" or "jdk".
     * @param path  the file.
     * @param dsync true to open with O_DSYNC as well: every write is durable when it returns.
     * @return the open file.
     * @throws IOException when it cannot be opened with O_DIRECT.
     */
    static RawFile open(final String impl, final Path path, final boolean dsync) throws IOException
    {
        switch (impl)
        {
            case "nativeio":
                return new NativeRawFile(path, dsync);
            case "jdk":
                return new JdkRawFile(path, dsync);
            default:
                throw new IllegalArgumentException("impl=" + impl + " must be nativeio or jdk");
        }
    }

    /**
     * @param size bytes, a multiple of {@link #ALIGNMENT}.
     * @return a zeroed, aligned block that this file can write from and read into.
     */
    Block allocate(int size);

    /**
     * Writes the whole block at {@code position}.
     *
     * @param block    the bytes.
     * @param position an aligned file offset.
     * @throws IOException when the write fails.
     */
    void write(Block block, long position) throws IOException;

    /**
     * Reads a whole block's worth at {@code position}.
     *
     * @param block    where the bytes go.
     * @param position an aligned file offset.
     * @throws IOException when the read fails or ends early.
     */
    void read(Block block, long position) throws IOException;

    /** @throws IOException when fdatasync fails. */
    void datasync() throws IOException;

    @Override
    void close() throws IOException;

    /**
     * Fills {@code [0, length)} with zeros by real writes and fdatasyncs: the state a log segment is in before the
     * writer gets it, so later overwrites change no filesystem metadata.
     *
     * @param length bytes, a multiple of 1 MiB.
     * @throws IOException when a write fails.
     */
    default void preZero(final long length) throws IOException
    {
        try (Block zeros = allocate(1 << 20))
        {
            for (long pos = 0; pos < length; pos += zeros.size())
            {
                write(zeros, pos);
            }
        }
        datasync();
    }

    /** An aligned block of native memory. Not thread-safe. */
    interface Block extends AutoCloseable
    {
        /** @return the block as a direct buffer (position 0, limit = size). */
        ByteBuffer buffer();

        /** @return the size in bytes. */
        int size();

        @Override
        void close();
    }
}
