package io.directlog.broker.topic;

import java.util.List;
import java.util.TreeMap;

import io.directlog.replication.ReplicatedBatch;
import io.directlog.replication.ReplicatedPartition;

/**
 * Where each leader epoch starts in a replicated partition, read from the epochs stamped in its committed batches
 * (Raft terms): the map {@link LeaderEpochs} answers OffsetForLeaderEpoch from. Built on the first question by reading
 * the committed log once, then extended with each later question from where it stopped; committed batches are never
 * truncated, so what it holds stays true.
 * <p>
 * Thread-safe: one lock; a scan holds it while it reads.
 */
final class EpochStarts
{
    /** Bytes read per step of a scan. */
    private static final int SCAN_BYTES = 1 << 20;

    private final TreeMap<Integer, Long> starts = new TreeMap<>();
    /** The offset the next scan starts at; -1 before the first. */
    private long scannedTo = -1;

    /**
     * @param replica   the partition's local replica (its leader: the answer uses its log end for the current epoch).
     * @param requested the epoch asked for.
     * @return {epoch, end offset}, see {@link LeaderEpochs#endOffsetFor}.
     */
    synchronized long[] endOffsetFor(final ReplicatedPartition replica, final int requested)
    {
        final int current = (int)Math.min(Integer.MAX_VALUE, replica.leaderEpoch());
        final long logEnd = replica.logEndOffset();
        final long hw = replica.highWatermark();
        scan(replica, hw);
        return LeaderEpochs.endOffsetFor(starts, requested, current, logEnd, scannedTo);
    }

    private void scan(final ReplicatedPartition replica, final long hw)
    {
        scannedTo = Math.max(scannedTo, replica.startOffset());
        while (scannedTo < hw)
        {
            final List<ReplicatedBatch> batches = replica.read(scannedTo, SCAN_BYTES);
            if (batches.isEmpty())
            {
                return;
            }
            for (final ReplicatedBatch b : batches)
            {
                if (starts.isEmpty() || b.leaderEpoch() > starts.lastKey())
                {
                    starts.put(b.leaderEpoch(), b.baseOffset());
                }
                scannedTo = b.nextOffset();
            }
        }
    }
}
