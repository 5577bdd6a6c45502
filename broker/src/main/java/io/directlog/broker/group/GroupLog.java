package io.directlog.broker.group;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Where a group coordinator keeps its events (Kafka's {@code __consumer_offsets} partition): on a single node a
 * local DirectLog log ({@link LocalGroupLog}), in a cluster a replicated partition ({@link ReplicatedGroupLog}) whose
 * leader coordinates the groups that hash to it. {@link OffsetLog} encodes the events; this holds their bytes.
 * <p>
 * Implementations are thread-safe.
 */
public interface GroupLog
{
    /**
     * @return the epoch in which this node coordinates the log's groups (a replicated log: the Raft term of a ready
     *         leader; a local log: 0), or -1 when another node does. A change of epoch means another node may have
     *         written in between: the coordinator's state must be loaded again.
     */
    long coordinatorEpoch();

    /**
     * Appends one event.
     *
     * @param event the encoded event.
     * @return its offset once durable (a replicated log: committed by a majority and applied here); fails when this
     *         node stopped coordinating or the log failed.
     */
    CompletableFuture<Long> append(byte[] event);

    /**
     * Reads every durable event in log order. Blocks (reads the whole log); a replicated log first waits until what
     * earlier leaders wrote is applied here.
     *
     * @param events told each event's bytes.
     * @throws IllegalStateException when the log cannot be read now (the caller tries again later).
     */
    void replay(Consumer<byte[]> events);
}
