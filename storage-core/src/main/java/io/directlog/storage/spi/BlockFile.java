package io.directlog.storage.spi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * One open file of a {@link BlockIo}. Positions, lengths and buffer addresses of {@link FileMode#DIRECT} and
 * {@link FileMode#DIRECT_DSYNC} files must be multiples of {@link BlockIo#alignment()}.
 * <p>
 * Thread-safe for positional calls; close once.
 */
public interface BlockFile extends AutoCloseable
{
    /** @return the file's path. */
    Path path();

    /**
     * Writes all of {@code length} bytes of a direct buffer, or throws. The buffer's position and limit are
     * ignored and left alone: {@code index} counts from the buffer's first byte.
     *
     * @param source   a direct buffer (aligned memory for direct files).
     * @param index    the first byte in the buffer.
     * @param length   how many bytes.
     * @param position where in the file.
     * @throws IOException when the write fails or cannot be completed.
     */
    void write(ByteBuffer source, int index, int length, long position) throws IOException;

    /**
     * Reads up to {@code length} bytes into a direct buffer; fewer only at the end of the file.
     *
     * @param target   a direct buffer (aligned memory for direct files).
     * @param index    where in the buffer.
     * @param length   how many bytes.
     * @param position where in the file.
     * @return bytes read.
     * @throws IOException when the read fails.
     */
    int read(ByteBuffer target, int index, int length, long position) throws IOException;

    /**
     * fdatasync: makes every completed write durable on a device with a volatile cache.
     *
     * @throws IOException when the sync fails; the caller must treat it as fatal and never retry and believe.
     */
    void datasync() throws IOException;

    /**
     * Allocates space up to {@code length} (fallocate mode 0). The space is unwritten until written.
     *
     * @param length the file's new allocated size.
     * @throws IOException when space cannot be allocated (ENOSPC).
     */
    void allocate(long length) throws IOException;

    /**
     * @return the file's size in bytes.
     * @throws IOException when it cannot be read.
     */
    long size() throws IOException;

    /**
     * Sets the file's size.
     *
     * @param length the new size.
     * @throws IOException when it fails.
     */
    void truncate(long length) throws IOException;

    /** Closes the file. Idempotent. */
    @Override
    void close() throws IOException;
}
