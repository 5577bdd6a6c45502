package io.directlog.broker.topic;

import io.directlog.broker.protocol.PinnedRecords;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One topic partition as the request handlers see it: on a single node a DirectLog log ({@link LocalPartition}), in
 * a cluster the local replica of a replicated partition ({@link ReplicatedTopicPartition}).
 * <p>
 * Implementations are thread-safe.
 */
public interface Partition
{
    /** @return the topic's name. */
    String topic();

    /** @return the partition number. */
    int index();

    /** @return the high watermark: the end of what readers see (no transactions: also the last stable offset). */
    long highWatermark();

    /** @return the log start offset (moves with retention). */
    long logStartOffset();

    /** @return the leader epoch clients see in Metadata and in stored batches. */
    int leaderEpoch();

    /**
     * @param localNodeId this broker's node id.
     * @return the node id of the partition's leader, or -1 when no leader is known.
     */
    int leaderNodeId(int localNodeId);

    /** @return true when this broker leads the partition: Produce, Fetch and ListOffsets are served here. */
    boolean isLeader();

    /**
     * Appends one validated batch, stamping its base offset and leader epoch, after the idempotence checks.
     *
     * @param batch the batch (the stamp may be written in place); copied before the append completes.
     * @return the base offset once acknowledged (a retried duplicate: the original's); fails with a Kafka
     * ApiException.
     */
    CompletableFuture<Long> append(ByteBuffer batch);

    /**
     * Registers a one-shot wake-up for the next advance of the high watermark (parked Fetch requests). The listener
     * runs on an engine thread and must only hand work to another thread.
     *
     * @param listener what to run.
     */
    void onNextAppend(Runnable listener);

    /**
     * Removes a listener that is no longer needed.
     *
     * @param listener the listener registered.
     */
    void removeListener(Runnable listener);

    /**
     * Reads whole stored batches from the one holding {@code offset}: at least one, then as many as fit.
     *
     * @param offset   where to start; within [log start, high watermark].
     * @param maxBytes the budget; the first batch is returned even if larger (KIP-74).
     * @return the batches back to back, empty when {@code offset} is the high watermark; views over the memory
     *         they were read into where the partition can (no copy), which the caller releases once written.
     */
    PinnedRecords read(long offset, int maxBytes);

    /**
     * ListOffsets by time: the first offset whose record timestamp is at or after {@code timestamp} (KIP-79).
     *
     * @param timestamp epoch milliseconds.
     * @return {offset, timestamp}, or null when no record is that late.
     */
    long[] offsetForTimestamp(long timestamp);

    /** @return {offset, timestamp} of the record with the largest timestamp (KIP-734), or null when empty. */
    long[] maxTimestamp();

    /**
     * OffsetForLeaderEpoch on the leader (KIP-101, KIP-320): where a leader epoch ends in this log, from the epochs
     * stamped in its batches (see {@link LeaderEpochs#endOffsetFor}).
     *
     * @param epoch the epoch asked for.
     * @return {the largest stored epoch at or below it, the offset where the next higher epoch starts (the log end
     *         for the current epoch)}; {-1, -1} when undefined.
     * @throws org.apache.kafka.common.errors.ApiException a retriable Kafka error when it cannot be answered now.
     */
    long[] endOffsetForEpoch(int epoch);
}
