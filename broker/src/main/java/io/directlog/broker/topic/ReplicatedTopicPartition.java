package io.directlog.broker.topic;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.protocol.Errors;

import io.directlog.broker.protocol.KafkaRecords;
import io.directlog.broker.protocol.PinnedRecords;
import io.directlog.replication.NotLeaderException;
import io.directlog.replication.ReplicatedBatch;
import io.directlog.replication.ReplicatedPartition;
import io.directlog.replication.ReplicationException;

/**
 * One topic partition in a cluster: the local replica of a {@link ReplicatedPartition}. Produce is served by the
 * leader only and answered once the batch is committed (on a majority, applied here); reads stop at the high
 * watermark; the leader epoch is the replication engine's (the Raft term), stamped into every batch by it.
 * <p>
 * Idempotent producers: the sequence table lives on the leader. A new leader builds it from the committed batches
 * before it accepts its first append, so a producer retrying a batch whose outcome it did not learn (the old leader
 * died after the commit) gets the original offset instead of a second copy. Building it reads the whole log: fine
 * for a first step, a snapshot of the table is the fix for long logs.
 * <p>
 * Thread-safe: appends and the table take the partition's lock; the commit listener takes none.
 */
public final class ReplicatedTopicPartition extends NamedPartition
{
    private static final System.Logger LOG = System.getLogger(ReplicatedTopicPartition.class.getName());
    /** How long a new leader waits for its predecessors' entries to be applied before it builds its table. */
    private static final Duration CATCH_UP_WAIT = Duration.ofSeconds(2);
    /** Bytes read per step when a new leader scans its log. */
    private static final int SCAN_BYTES = 1 << 20;

    private final ReplicatedPartition replica;
    private final Object lock = new Object();
    private final ProducerStateTable producers = new ProducerStateTable();
    private final AppendListeners listeners = new AppendListeners();
    private final AtomicInteger pending = new AtomicInteger();
    private final EpochStarts epochs = new EpochStarts();
    /**
     * The term whose committed log the producer table reflects; -1 when it must be built again. Read and set under
     * the lock; a failed append resets it from the engine's thread, hence volatile.
     */
    private volatile long tableEpoch = -1;
    /**
     * What this broker last told clients of the partition (the leader its Metadata names, or why it refused a
     * produce): logged when it changes, so a failover's answers are in the node's log without a line per request.
     */
    private volatile String lastMetadataAnswer = "";
    private volatile String lastProduceAnswer = "";
    /** This node's last take-over as leader, for failover timelines; set under the lock. */
    private volatile Takeover takeover = new Takeover(-1, -1, -1);

    /**
     * When this node last took a partition over as leader (wall clock, so processes on one machine compare).
     *
     * @param epoch         the term taken over, -1 for none yet.
     * @param askedAtMillis when the term's first append arrived here (a client had found the new leader).
     * @param doneAtMillis  when the producer table was rebuilt and appends were accepted; -1 while not yet.
     */
    public record Takeover(long epoch, long askedAtMillis, long doneAtMillis)
    {
    }

    /**
     * @param topic   the topic's name.
     * @param index   the partition number.
     * @param replica the local replica; this object registers a high-watermark listener on it.
     */
    public ReplicatedTopicPartition(final String topic, final int index, final ReplicatedPartition replica)
    {
        super(topic, index);
        this.replica = replica;
        replica.addHighWatermarkListener(listeners::wakeAll);
    }

    @Override
    public long highWatermark()
    {
        return replica.highWatermark();
    }

    @Override
    public long logStartOffset()
    {
        return replica.startOffset();
    }

    @Override
    public int leaderEpoch()
    {
        return (int)Math.min(Integer.MAX_VALUE, replica.leaderEpoch());
    }

    @Override
    public int leaderNodeId(final int localNodeId)
    {
        final int leader = replica.leaderId().map(ReplicatedTopicPartition::nodeId).orElse(-1);
        final String answer = "leader " + leader + " epoch " + replica.leaderEpoch();
        if (!answer.equals(lastMetadataAnswer))
        {
            lastMetadataAnswer = answer;
            LOG.log(System.Logger.Level.INFO, "metadata of " + this + " now names " + answer);
        }
        return leader;
    }

    private static int nodeId(final String raftId)
    {
        try
        {
            return Integer.parseInt(raftId);
        }
        catch (final NumberFormatException e)
        {
            return -1; // a peer named otherwise is no Kafka node: clients see "no leader" and ask again
        }
    }

    @Override
    public boolean isLeader()
    {
        return replica.isLeader();
    }

    /** @return the local replica (for the broker's own checks and tests). */
    public ReplicatedPartition replica()
    {
        return replica;
    }

    @Override
    public CompletableFuture<Long> append(final ByteBuffer batch)
    {
        final KafkaRecords.BatchHeader h = KafkaRecords.header(batch);
        final CompletableFuture<Long> done = new CompletableFuture<>();
        final byte[] bytes = new byte[batch.remaining()];
        batch.duplicate().get(bytes);
        synchronized (lock)
        {
            if (!replica.isLeader())
            {
                return CompletableFuture.failedFuture(refused(notLeader()));
            }
            final ApiException unready = readyProducerTable();
            if (unready != null)
            {
                return CompletableFuture.failedFuture(refused(unready));
            }
            answered("accepting appends in epoch " + tableEpoch);
            if (h.hasProducerId())
            {
                final ProducerStateTable.Check check =
                    producers.check(h.producerId(), h.producerEpoch(), h.baseSequence(), h.lastSequence());
                if (check.error() != Errors.NONE)
                {
                    return CompletableFuture.failedFuture(check.error().exception());
                }
                if (check.duplicate() != null)
                {
                    return check.duplicate().baseOffset();
                }
                producers.record(h.producerId(), h.producerEpoch(), h.baseSequence(), h.lastSequence(), done);
            }
            pending.incrementAndGet();
            final CompletableFuture<Long> appended;
            try
            {
                appended = replica.append(bytes, h.recordCount());
            }
            catch (final RuntimeException e)
            {
                pending.decrementAndGet();
                tableEpoch = -1;
                done.completeExceptionally(kafkaError(e));
                return done;
            }
            appended.whenComplete((offset, error) -> onAppended(offset, error, done));
        }
        return done;
    }

    /** On the engine's thread: must not block or take the lock. */
    private void onAppended(final Long offset, final Throwable error, final CompletableFuture<Long> done)
    {
        if (error != null)
        {
            // the outcome is unknown (the batch may still be committed by the next leader): the table is rebuilt
            // from the committed log before the next append, so a retry is recognised if it was committed
            tableEpoch = -1;
            final ApiException answer = kafkaError(error);
            answered("an append failed: " + answer);
            done.completeExceptionally(answer);
        }
        else
        {
            done.complete(offset);
        }
        pending.decrementAndGet();
    }

    /**
     * Makes the producer table reflect the committed log of the current term. Under the lock.
     *
     * @return null when ready, else the retriable error to answer.
     */
    private ApiException readyProducerTable()
    {
        final long epoch = replica.leaderEpoch();
        if (tableEpoch == epoch)
        {
            return null;
        }
        if (takeover.epoch() != epoch)
        {
            takeover = new Takeover(epoch, System.currentTimeMillis(), -1);
        }
        if (pending.get() > 0)
        {
            return new NotLeaderOrFollowerException("partition " + this + " is settling after a leader change");
        }
        // A ready leader has committed an entry of its own term, so every earlier entry is committed; wait for
        // them to be applied here (its log end, since nothing of its own is in flight).
        final long end = replica.logEndOffset();
        try
        {
            if (end > replica.highWatermark() && !replica.awaitHighWatermark(end - 1, CATCH_UP_WAIT))
            {
                return new NotLeaderOrFollowerException("partition " + this + " is applying its predecessor's log");
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return new NotLeaderOrFollowerException("interrupted while taking over " + this);
        }
        producers.clear();
        final long hw = replica.highWatermark();
        long offset = replica.startOffset();
        while (offset < hw)
        {
            final List<ReplicatedBatch> batches = replica.read(offset, SCAN_BYTES);
            if (batches.isEmpty())
            {
                break;
            }
            for (final ReplicatedBatch b : batches)
            {
                final KafkaRecords.BatchHeader bh = KafkaRecords.header(ByteBuffer.wrap(b.payload()));
                if (bh.hasProducerId())
                {
                    producers.record(bh.producerId(), bh.producerEpoch(), bh.baseSequence(), bh.lastSequence(),
                        CompletableFuture.completedFuture(b.baseOffset()));
                }
                offset = b.nextOffset();
            }
        }
        tableEpoch = epoch;
        takeover = new Takeover(epoch, takeover.askedAtMillis(), System.currentTimeMillis());
        return null;
    }

    /** @return this node's last take-over of the partition as leader. */
    public Takeover takeover()
    {
        return takeover;
    }

    private ApiException refused(final ApiException e)
    {
        answered("refusing appends: " + e.getMessage());
        return e;
    }

    private void answered(final String answer)
    {
        if (!answer.equals(lastProduceAnswer))
        {
            lastProduceAnswer = answer;
            LOG.log(System.Logger.Level.INFO, "produce to " + this + ": " + answer);
        }
    }

    private NotLeaderOrFollowerException notLeader()
    {
        return new NotLeaderOrFollowerException("this broker does not lead " + this + " (leader: " +
            replica.leaderId().orElse("unknown") + ")");
    }

    private static ApiException kafkaError(final Throwable error)
    {
        final Throwable cause = error instanceof CompletionException && error.getCause() != null ?
            error.getCause() : error;
        if (cause instanceof ApiException api)
        {
            return api;
        }
        if (cause instanceof NotLeaderException || (cause instanceof ReplicationException r && r.retriable()))
        {
            // leadership moved or the group is unavailable: the client refreshes Metadata and retries
            return new NotLeaderOrFollowerException(cause.getMessage(), cause);
        }
        return new KafkaStorageException(cause.getMessage(), cause);
    }

    @Override
    public void onNextAppend(final Runnable listener)
    {
        listeners.add(listener);
    }

    @Override
    public void removeListener(final Runnable listener)
    {
        listeners.remove(listener);
    }

    @Override
    public PinnedRecords read(final long offset, final int maxBytes)
    {
        return new PinnedRecords(List.of(copy(offset, maxBytes)), () -> { });
    }

    /** Replicated reads come back as heap copies from the replica (no pinned view yet). */
    private ByteBuffer copy(final long offset, final int maxBytes)
    {
        final List<ReplicatedBatch> batches = replica.read(offset, Math.max(1, maxBytes));
        int total = 0;
        for (final ReplicatedBatch b : batches)
        {
            total += b.payload().length;
        }
        final ByteBuffer out = ByteBuffer.allocate(total);
        for (final ReplicatedBatch b : batches)
        {
            out.put(b.payload());
        }
        return out.flip();
    }

    /** Scans the committed batches (no time index is kept for replicated partitions yet). */
    @Override
    public long[] offsetForTimestamp(final long timestamp)
    {
        final long hw = replica.highWatermark();
        long offset = replica.startOffset();
        while (offset < hw)
        {
            final List<ReplicatedBatch> batches = replica.read(offset, SCAN_BYTES);
            if (batches.isEmpty())
            {
                return null;
            }
            for (final ReplicatedBatch b : batches)
            {
                final ByteBuffer batch = ByteBuffer.wrap(b.payload());
                if (KafkaRecords.header(batch).maxTimestamp() >= timestamp)
                {
                    return KafkaRecords.firstRecordAtOrAfter(batch, timestamp);
                }
                offset = b.nextOffset();
            }
        }
        return null;
    }

    @Override
    public long[] maxTimestamp()
    {
        final long hw = replica.highWatermark();
        long offset = replica.startOffset();
        ReplicatedBatch best = null;
        long bestTimestamp = Long.MIN_VALUE;
        while (offset < hw)
        {
            final List<ReplicatedBatch> batches = replica.read(offset, SCAN_BYTES);
            if (batches.isEmpty())
            {
                break;
            }
            for (final ReplicatedBatch b : batches)
            {
                final long t = KafkaRecords.header(ByteBuffer.wrap(b.payload())).maxTimestamp();
                if (best == null || t > bestTimestamp)
                {
                    best = b;
                    bestTimestamp = t;
                }
                offset = b.nextOffset();
            }
        }
        return best == null ? null : KafkaRecords.recordWithMaxTimestamp(ByteBuffer.wrap(best.payload()));
    }

    @Override
    public long[] endOffsetForEpoch(final int epoch)
    {
        return epochs.endOffsetFor(replica, epoch);
    }
}
