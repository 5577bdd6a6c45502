package io.directlog.storage;

/**
 * The records returned by one {@link Log#read(long, int)}: whole appends starting with the one that holds
 * the requested offset.
 * <p>
 * A batch read from a resident cache page is a view over that page, which stays pinned (never evicted, never
 * freed) until {@link #close()}. A batch read from disk owns a pooled buffer, returned on close.
 * Records and their payload views are valid until the batch is closed; using one later throws
 * {@link IllegalStateException} (see {@link #CHECKED_VIEWS_PROP_NAME}).
 * Not thread-safe.
 */
public interface RecordBatch extends Iterable<Record>, AutoCloseable
{
    /**
     * System property that turns checked record views on: {@code -Ddirectlog.checked.views=true}. A payload
     * buffer used after its iterator moved on or after its batch was closed then throws
     * {@link IllegalStateException} at the call that uses it, instead of showing another record's bytes. Each
     * access is checked through a proxy: for tests and debugging, not production. Without it, closing a batch
     * still detaches its views (their accessors throw {@link IllegalStateException}, their payload buffers are
     * empty so Agrona's bounds checks throw), so no use after close reads freed or reused memory.
     */
    String CHECKED_VIEWS_PROP_NAME = "directlog.checked.views";

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
