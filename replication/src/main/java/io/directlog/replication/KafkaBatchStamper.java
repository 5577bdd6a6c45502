package io.directlog.replication;

/**
 * Stamps Kafka record batches (magic 2). Layout, big-endian (Kafka's DefaultRecordBatch):
 * <pre>
 *   0  int64 baseOffset            stamped; outside the CRC
 *   8  int32 batchLength           bytes after this field
 *  12  int32 partitionLeaderEpoch  stamped; outside the CRC
 *  16  int8  magic                 2
 *  17  uint32 crc                  CRC-32C of bytes 21..end
 *  ...
 *  57  int32 recordCount
 *  61  records
 * </pre>
 * A producer sends baseOffset 0 and leader epoch -1; {@link #clear} writes those back.
 * <p>
 * Stateless; thread-safe.
 */
final class KafkaBatchStamper implements BatchStamper
{
    static final int BASE_OFFSET_OFFSET = 0;
    static final int BATCH_LENGTH_OFFSET = 8;
    static final int LEADER_EPOCH_OFFSET = 12;
    static final int MAGIC_OFFSET = 16;
    static final int RECORD_COUNT_OFFSET = 57;
    static final int HEADER_LENGTH = 61;
    static final byte MAGIC = 2;
    static final int NO_LEADER_EPOCH = -1;

    @Override
    public void validate(final byte[] batch, final int offset, final int length, final int recordCount)
    {
        if (length < HEADER_LENGTH)
        {
            throw new IllegalArgumentException("a Kafka record batch is at least " + HEADER_LENGTH +
                " bytes; got " + length);
        }
        final byte magic = batch[offset + MAGIC_OFFSET];
        if (magic != MAGIC)
        {
            throw new IllegalArgumentException("only magic 2 record batches are replicated; got magic " + magic);
        }
        final int batchLength = getInt(batch, offset + BATCH_LENGTH_OFFSET);
        if (batchLength != length - LEADER_EPOCH_OFFSET)
        {
            throw new IllegalArgumentException("batchLength field says " + batchLength + " but the batch has " +
                (length - LEADER_EPOCH_OFFSET) + " bytes after it");
        }
        final int declared = getInt(batch, offset + RECORD_COUNT_OFFSET);
        if (declared != recordCount)
        {
            throw new IllegalArgumentException("the batch holds " + declared + " records; the caller declared " +
                recordCount);
        }
    }

    @Override
    public void stamp(final byte[] batch, final int offset, final int length, final long baseOffset,
        final int leaderEpoch)
    {
        putLong(batch, offset + BASE_OFFSET_OFFSET, baseOffset);
        putInt(batch, offset + LEADER_EPOCH_OFFSET, leaderEpoch);
    }

    @Override
    public void clear(final byte[] batch, final int offset, final int length)
    {
        stamp(batch, offset, length, 0L, NO_LEADER_EPOCH);
    }

    private static int getInt(final byte[] b, final int i)
    {
        return (b[i] & 0xFF) << 24 | (b[i + 1] & 0xFF) << 16 | (b[i + 2] & 0xFF) << 8 | (b[i + 3] & 0xFF);
    }

    private static void putInt(final byte[] b, final int i, final int v)
    {
        b[i] = (byte)(v >>> 24);
        b[i + 1] = (byte)(v >>> 16);
        b[i + 2] = (byte)(v >>> 8);
        b[i + 3] = (byte)v;
    }

    private static void putLong(final byte[] b, final int i, final long v)
    {
        putInt(b, i, (int)(v >>> 32));
        putInt(b, i + 4, (int)v);
    }
}
