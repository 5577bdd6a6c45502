package io.directlog.storage.spi;

import java.nio.ByteBuffer;

/**
 * Writes to several files that a writer thread issues together and waits for together: the blocks of every log
 * whose DSYNC flush shares one device flush in a duty cycle. An I/O layer that can have them in flight at once
 * (Linux native AIO) lets the device overlap them; the default ({@link BlockIo#newWriteBatch()}) writes them one
 * after another through {@link BlockFile#write}, which every {@link BlockIo} already has.
 * <p>
 * Each write ends written in full or failed on its own ({@link #failure}): a failed or short write fails that write
 * only, never the others, and {@link #writeAll()} does not throw for it. Nothing here makes a write durable; the
 * caller's {@link BlockFile#datasync()} after {@link #writeAll()} does.
 * <p>
 * Not thread-safe: one owner thread, which closes it when done. Meant to allocate nothing per write in the steady
 * state.
 */
public interface BlockWriteBatch extends AutoCloseable
{
    /**
     * Adds a write, with the contract of {@link BlockFile#write}: all {@code length} bytes from {@code index} of a
     * direct buffer to {@code position} of {@code file}. The buffer's bytes must not change until {@link #writeAll()}
     * returns.
     *
     * @param file     a file open for writing.
     * @param source   a direct buffer (aligned memory for direct files).
     * @param index    the first byte in the buffer.
     * @param length   how many bytes.
     * @param position where in the file.
     * @return the write's number in this batch, for {@link #failure}: 0, 1, ... in the order added.
     */
    int add(BlockFile file, ByteBuffer source, int index, int length, long position);

    /** @return the writes added since the last {@link #clear()}. */
    int size();

    /** Makes every write added; each ends written in full, or with its {@link #failure}. */
    void writeAll();

    /**
     * @param write a write's number, from {@link #add}.
     * @return null when it wrote all its bytes, else why not (a short write is a failure).
     */
    Throwable failure(int write);

    /** Forgets the writes added and their outcomes, for the next batch. */
    void clear();

    /** Lets go of what the batch holds (kernel resources). Idempotent. */
    @Override
    void close();
}
