package io.directlog.storage;

import java.time.Duration;

/**
 * A sequential consumer of one log: it remembers its next offset, and declares it to the cache so that
 * pages it has yet to read are kept in preference to pages every consumer has passed.
 * <p>
 * Not thread-safe; one consumer thread.
 */
public interface LogReader extends AutoCloseable
{
    /** @return the offset of the next record this reader returns. */
    long position();

    /**
     * Moves the reader.
     *
     * @param offset the next offset to read.
     */
    void seek(long offset);

    /**
     * Reads the next records, without waiting.
     *
     * @param maxBytes an upper bound on the batch's bytes (at least one whole record is returned).
     * @return the batch, empty when nothing new is readable; close it before the next call.
     */
    RecordBatch poll(int maxBytes);

    /**
     * Reads the next records, waiting up to {@code timeout} for one to become readable.
     *
     * @param maxBytes an upper bound on the batch's bytes.
     * @param timeout  how long to wait.
     * @return the batch, empty on timeout.
     * @throws InterruptedException when interrupted while waiting.
     */
    RecordBatch poll(int maxBytes, Duration timeout) throws InterruptedException;

    /**
     * Reads the next record and moves past it.
     *
     * @return a heap copy of the next record, or null when none is readable now.
     */
    StoredRecord next();

    /** Withdraws this reader's position from the cache policy. Idempotent. */
    @Override
    void close();
}
