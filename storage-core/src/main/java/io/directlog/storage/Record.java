package io.directlog.storage;

import org.agrona.DirectBuffer;

/**
 * One stored append: a record, or a producer's batch of {@link #recordCount()} records that took the
 * offsets {@code [offset, offset + recordCount)}.
 * <p>
 * Not thread-safe; a view that is valid only until the {@link RecordBatch} it came from is closed, and only
 * until the iterator moves on. After the batch is closed its methods throw {@link IllegalStateException} and its
 * payload buffer holds no bytes (reads throw {@link IndexOutOfBoundsException}); a payload kept after the
 * iterator moved on shows the next record, unless checked views are on ({@link RecordBatch#CHECKED_VIEWS_PROP_NAME}).
 */
public interface Record
{
    /** @return the base offset of this append. */
    long offset();

    /** @return how many records the append declared; at least 1. */
    int recordCount();

    /** @return the writer-assigned timestamp in epoch milliseconds; never decreasing within a log. */
    long timestamp();

    /** @return a view of the payload; valid until the batch is closed. */
    DirectBuffer payload();

    /** @return the payload length in bytes. */
    int payloadLength();

    /** @return the offset following this append. */
    default long nextOffset()
    {
        return offset() + recordCount();
    }

    /** @return a copy of the payload on the heap, valid after close. */
    default byte[] payloadBytes()
    {
        final byte[] bytes = new byte[payloadLength()];
        payload().getBytes(0, bytes);
        return bytes;
    }
}
