package io.directlog.broker.topic;

import java.time.Duration;
import java.util.List;
import java.util.TreeMap;

import org.apache.kafka.common.errors.NotLeaderOrFollowerException;

import io.directlog.replication.ReplicatedBatch;
import io.directlog.replication.ReplicatedPartition;

/**
 * Where each leader epoch starts in a replicated partition, read from the epochs stamped in its committed batches
 * (Raft terms): the map {@link LeaderEpochs} answers OffsetForLeaderEpoch from. Built on the first question by reading
 * the committed log once, then extended with each later question from where it stopped; committed batches are never
 * truncated, so what it holds stays true.
 * <p>
 * Thread-safe: one lock; a scan holds it while it reads (the wait for the log to be applied does not).
 */
final class EpochStarts
{
    /** How long a question waits for the log to be applied before it is answered with a retriable error. */
    private static final Duration CATCH_UP_WAIT = Duration.ofSeconds(2);
    /** Bytes read per step of a scan. */
    private static final int SCAN_BYTES = 1 << 20;

    private final TreeMap<Integer, Long> starts = new TreeMap<>();
    /** The offset the next scan starts at; -1 before the first. */
    private long scannedTo = -1;

    /**
     * @param replica   the partition's local replica (its leader: the answer uses its log end for the current epoch).
     * @param requested the epoch asked for.
     * @return {epoch, end offset}, see {@link LeaderEpochs#endOffsetFor}.
     * @throws NotLeaderOrFollowerException when the log is not applied up to its end within a short wait.
     */
    long[] endOffsetFor(final ReplicatedPartition replica, final int requested)
    {
        final int current = (int)Math.min(Integer.MAX_VALUE, replica.leaderEpoch());
        final long logEnd = replica.logEndOffset();
        if (requested >= 0 && requested < current)
        {
            awaitApplied(replica, logEnd);
        }
        synchronized (this)
        {
            scan(replica, replica.highWatermark());
            return LeaderEpochs.endOffsetFor(starts, requested, current, logEnd, scannedTo);
        }
    }

    /**
     * A leader is ready once the first entry of its term is committed, which may be before the earlier terms'
     * entries are applied here: until they are, the high watermark is below where an earlier epoch ends, and
     * answering with it would tell a consumer its position was truncated. Everything in the log now is either such
     * an entry or this leader's own (a leader receives no entries), so once the high watermark reaches today's log
     * end, the batches above it are of the current epoch.
     */
    private static void awaitApplied(final ReplicatedPartition replica, final long logEnd)
    {
        try
        {
            if (logEnd > replica.highWatermark() && !replica.awaitHighWatermark(logEnd - 1, CATCH_UP_WAIT))
            {
                throw new NotLeaderOrFollowerException(replica.name() + " is applying its predecessors' log");
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new NotLeaderOrFollowerException("interrupted while waiting for " + replica.name() + " to apply");
        }
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
