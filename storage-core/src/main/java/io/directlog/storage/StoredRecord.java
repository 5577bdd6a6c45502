package io.directlog.storage;

/**
 * A record copied to the heap: what {@link LogReader#next()} returns.
 *
 * @param offset      the base offset.
 * @param recordCount the number of records the append declared.
 * @param timestamp   the writer's timestamp in epoch milliseconds.
 * @param payload     the payload bytes.
 */
public record StoredRecord(long offset, int recordCount, long timestamp, byte[] payload)
{
}
