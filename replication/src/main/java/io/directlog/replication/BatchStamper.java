package io.directlog.replication;

/**
 * Writes a batch's base offset and leader epoch into its bytes, where the batch format keeps them outside its own
 * checksum, so that every replica stores identical bytes for the same batch.
 * <p>
 * Each replica stamps the batch itself when it writes it, in Raft order: the base offset (the replica's log end)
 * and the epoch (the entry's Raft term) are the same on every replica. What travels between replicas is the
 * cleared form ({@link #clear}), so one checksum covers it wherever it came from.
 * <p>
 * Implementations are stateless and thread-safe.
 */
public interface BatchStamper
{
    /** Leaves the bytes alone: for payloads that carry no offset (tests, opaque records). */
    BatchStamper NONE = new BatchStamper()
    {
        @Override
        public void validate(final byte[] batch, final int offset, final int length, final int recordCount)
        {
        }

        @Override
        public void stamp(final byte[] batch, final int offset, final int length, final long baseOffset,
            final int leaderEpoch)
        {
        }

        @Override
        public void clear(final byte[] batch, final int offset, final int length)
        {
        }
    };

    /** Kafka's record batch (magic 2): base offset at byte 0, partition leader epoch at byte 12. */
    BatchStamper KAFKA_V2 = new KafkaBatchStamper();

    /**
     * Checks that a batch can be replicated, before anything is written.
     *
     * @param batch       the bytes.
     * @param offset      the batch's first byte.
     * @param length      the batch's length.
     * @param recordCount the record count the caller declared.
     * @throws IllegalArgumentException naming what is wrong.
     */
    void validate(byte[] batch, int offset, int length, int recordCount);

    /**
     * Writes the base offset and the leader epoch into the batch.
     *
     * @param batch       the bytes, changed in place.
     * @param offset      the batch's first byte.
     * @param length      the batch's length.
     * @param baseOffset  the offset of the batch's first record.
     * @param leaderEpoch the Raft term of the entry.
     */
    void stamp(byte[] batch, int offset, int length, long baseOffset, int leaderEpoch);

    /**
     * Writes the values a producer sends in place of the stamped ones.
     *
     * @param batch  the bytes, changed in place.
     * @param offset the batch's first byte.
     * @param length the batch's length.
     */
    void clear(byte[] batch, int offset, int length);
}
