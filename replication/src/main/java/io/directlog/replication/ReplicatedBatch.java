package io.directlog.replication;

/**
 * A committed batch read from a replica: a heap copy.
 *
 * @param baseOffset  the offset of the batch's first record.
 * @param recordCount how many records the batch holds.
 * @param leaderEpoch the leader epoch (Raft term) in which the batch was written.
 * @param payload     the batch's bytes as stored: the producer's bytes with base offset and leader epoch stamped.
 */
public record ReplicatedBatch(long baseOffset, int recordCount, int leaderEpoch, byte[] payload)
{
    /** @return the offset after the batch's last record. */
    public long nextOffset()
    {
        return baseOffset + recordCount;
    }
}
