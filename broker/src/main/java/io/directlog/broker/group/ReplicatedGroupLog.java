package io.directlog.broker.group;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;

import io.directlog.replication.ReplicatedBatch;
import io.directlog.replication.ReplicatedPartition;

/**
 * A cluster's group log: one partition of the replicated internal offsets topic. Each event travels as a Kafka
 * record batch of one record (the replication stamps offsets and epochs into Kafka batches), is acknowledged once
 * committed by a majority, and is read back from the committed log by the next leader. The leader coordinates the
 * groups that hash to this partition, in the epoch of its Raft term.
 * <p>
 * Thread-safe.
 */
public final class ReplicatedGroupLog implements GroupLog
{
    /** How long a new leader waits for its predecessors' entries to be applied before it loads. */
    private static final Duration CATCH_UP_WAIT = Duration.ofSeconds(10);
    /** Bytes read per step of a load. */
    private static final int SCAN_BYTES = 1 << 20;

    private final ReplicatedPartition replica;

    /** @param replica this node's replica of the offsets partition. */
    public ReplicatedGroupLog(final ReplicatedPartition replica)
    {
        this.replica = replica;
    }

    /** @return the replica (its leader is the groups' coordinator). */
    public ReplicatedPartition replica()
    {
        return replica;
    }

    @Override
    public long coordinatorEpoch()
    {
        // the term is read around the role, so a term that moved in between does not pass for the one we lead in
        final long before = replica.leaderEpoch();
        final boolean leader = replica.isLeader();
        return leader && replica.leaderEpoch() == before ? before : -1;
    }

    @Override
    public CompletableFuture<Long> append(final byte[] event)
    {
        final ByteBuffer batch = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(event)).buffer();
        final byte[] bytes = new byte[batch.remaining()];
        batch.get(bytes);
        try
        {
            return replica.append(bytes, 1);
        }
        catch (final RuntimeException e)
        {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void replay(final Consumer<byte[]> events)
    {
        // a ready leader has committed an entry of its own term, so every earlier entry is committed: wait until they
        // are applied here (its log end: a coordinator that is loading appends nothing)
        final long end = replica.logEndOffset();
        try
        {
            if (end > replica.highWatermark() && !replica.awaitHighWatermark(end - 1, CATCH_UP_WAIT))
            {
                throw new IllegalStateException(replica.name() + " has not applied its predecessors' log within " +
                    CATCH_UP_WAIT);
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while loading " + replica.name(), e);
        }
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
                for (final Record r : MemoryRecords.readableRecords(ByteBuffer.wrap(b.payload())).records())
                {
                    final byte[] event = new byte[r.valueSize()];
                    r.value().get(event);
                    events.accept(event);
                }
                offset = b.nextOffset();
            }
        }
    }

    @Override
    public String toString()
    {
        return replica.name();
    }
}
