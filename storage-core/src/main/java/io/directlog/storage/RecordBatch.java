package io.directlog.storage;

/**
 * The records returned by one {@link Log#read(long, int)}: whole appends starting with the one that holds
 * the requested offset.
 * <p>
 * A batch read from a resident cache page is a view over that page, which stays pinned (never evicted, never
 * freed) until {@link #close()}. A batch read from disk owns a pooled buffer, returned on close.
 * Not thread-safe.
 */
public interface RecordBatch extends Iterable<Record>, AutoCloseable
{
    /** @return the number of appends in the batch. */
    int size();

    /** @return true when the batch holds no record (the offset is not yet readable). */
    default boolean isEmpty()
    {
        return size() == 0;
    }

    /** @return the offset a consumer reads next: after the last record of the batch. */
    long nextOffset();

    /** @return bytes of records (headers and payloads) in the batch. */
    int sizeInBytes();

    /** Unpins the page or returns the buffer. Idempotent. */
    @Override
    void close();
}
