package io.directlog.replication.ratis;

import java.nio.ByteBuffer;

/**
 * Kafka-shaped record batches (magic 2 header, then an id and filler) for the replication tests: the id lets a test
 * find each acknowledged batch exactly once after failures.
 */
final class TestBatches
{
    static final int HEADER = 61;

    private TestBatches()
    {
    }

    static int recordCount(final long id)
    {
        return (int)(id % 3) + 1;
    }

    /** A batch of {@link #recordCount(long)} records carrying id, with producer values (offset 0, epoch -1). */
    static byte[] batch(final long id)
    {
        final int fill = (int)(id % 97);
        final ByteBuffer b = ByteBuffer.allocate(HEADER + Long.BYTES + fill);
        b.putLong(0, 0L);
        b.putInt(8, b.capacity() - 12);
        b.putInt(12, -1);
        b.put(16, (byte)2);
        b.putInt(57, recordCount(id));
        b.putLong(HEADER, id);
        for (int i = 0; i < fill; i++)
        {
            b.put(HEADER + Long.BYTES + i, (byte)(id * 31 + i));
        }
        return b.array();
    }

    static long id(final byte[] storedBatch)
    {
        return ByteBuffer.wrap(storedBatch).getLong(HEADER);
    }

    static long stampedBaseOffset(final byte[] storedBatch)
    {
        return ByteBuffer.wrap(storedBatch).getLong(0);
    }

    static int stampedEpoch(final byte[] storedBatch)
    {
        return ByteBuffer.wrap(storedBatch).getInt(12);
    }
}
