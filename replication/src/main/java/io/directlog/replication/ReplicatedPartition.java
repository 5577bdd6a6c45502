package io.directlog.replication;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One partition replicated on a group of nodes; this object is the local replica.
 * <p>
 * Writes go through the leader only: {@link #append} on a follower fails with {@link NotLeaderException} naming
 * the leader it knows of. A batch is acknowledged when a majority of the replicas holds it durably and the local
 * replica has applied it; from then on it is below the {@link #highWatermark()} of the leader and survives the
 * loss of any minority of the replicas. Readers see records only below the high watermark, on every replica, so a
 * consumer never reads a record that a later leader could drop.
 * <p>
 * Offsets are dense from the log's start, as in {@link io.directlog.storage.Log}; every replica gives a batch the
 * same base offset and stores the same bytes for it (with the base offset and leader epoch stamped by the
 * partition's {@link BatchStamper}).
 * <p>
 * Thread-safe.
 */
public interface ReplicatedPartition extends AutoCloseable
{
    /** @return the partition's name, the same on every replica. */
    String name();

    /**
     * Replicates one producer batch.
     *
     * @param batch       the batch's bytes, copied before this method returns; the stamper may rewrite its base
     *                    offset and leader epoch fields in the stored copy.
     * @param recordCount how many records the batch holds; at least 1.
     * @return the batch's base offset, once it is committed (held durably by a majority) and applied here.
     * Completes exceptionally with {@link NotLeaderException} when this replica is not the leader (or stops being
     * it before the batch is committed: the outcome is then unknown, the batch may still be committed by the next
     * leader), or with {@link ReplicationException} on other failures.
     * @throws IllegalArgumentException when recordCount is not positive or the stamper refuses the batch.
     */
    CompletableFuture<Long> append(byte[] batch, int recordCount);

    /**
     * Reads committed batches starting with the one that holds {@code offset}.
     *
     * @param offset   where to start; at least {@link #startOffset()}.
     * @param maxBytes an upper bound on the payload bytes returned; at least one batch is returned when any is
     *                 committed at {@code offset}.
     * @return the batches, empty when {@code offset} is at or above the high watermark.
     * @throws IllegalArgumentException when offset is below the start or maxBytes is not positive.
     */
    List<ReplicatedBatch> read(long offset, int maxBytes);

    /**
     * Waits until the high watermark passes {@code offset}: for long-poll consumers.
     *
     * @param offset  the offset a consumer wants next.
     * @param timeout how long to wait at most.
     * @return true when {@code offset} is below the high watermark, false on timeout.
     * @throws InterruptedException when interrupted while waiting.
     */
    boolean awaitHighWatermark(long offset, Duration timeout) throws InterruptedException;

    /**
     * Registers a listener told after every advance of the high watermark, for as long as the replica runs: for
     * servers that park long polls instead of blocking a thread in {@link #awaitHighWatermark}.
     *
     * @param listener what to run; it runs on the engine's commit thread, so it must only hand work elsewhere and
     *                 never block. An exception it throws is logged and ignored.
     */
    void addHighWatermarkListener(Runnable listener);

    /** @return the offset below which every record is committed and readable on this replica. */
    long highWatermark();

    /** @return the first offset still stored. */
    long startOffset();

    /** @return the offset the next batch written here would take (committed or not). */
    long logEndOffset();

    /** @return true when this replica is the leader and ready to accept appends. */
    boolean isLeader();

    /** @return the id of the node this replica believes leads the partition, when it knows one. */
    Optional<String> leaderId();

    /** @return the current leader epoch (the Raft term) as this replica knows it. */
    long leaderEpoch();

    /**
     * For failover timelines (tests, operators): when this replica last learned of a new leader, itself included
     * (wall clock, so that processes on one machine compare).
     *
     * @return {@link System#currentTimeMillis()} at the last leader change seen here, or -1 when none was seen since
     *         this replica started.
     */
    default long leaderChangedAtMillis()
    {
        return -1;
    }

    /**
     * For failover timelines: when this replica became ready to append as leader of its current term.
     *
     * @return {@link System#currentTimeMillis()} at that moment, or -1 when it does not lead (or the engine does not
     *         say).
     */
    default long leaderReadyAtMillis()
    {
        return -1;
    }

    /**
     * Releases this handle: later appends through it fail. The replica itself keeps following its group until the
     * engine hosting it stops (for Ratis, {@code RatisReplicationNode.close()}), which fails appends in flight.
     * Idempotent.
     */
    @Override
    void close();
}
