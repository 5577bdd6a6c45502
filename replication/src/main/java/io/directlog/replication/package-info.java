/**
 * Replicated partitions: a partition's record batches kept on several nodes, in the same order and with the same
 * offsets, acknowledged once a majority holds them.
 * <p>
 * {@link io.directlog.replication.ReplicatedPartition} is the whole contract the broker sees; the engine behind it
 * ({@code io.directlog.replication.ratis}, Apache Ratis today) can be replaced without touching the broker or
 * storage. Every replica keeps its batches in a DirectLog {@link io.directlog.storage.Log}.
 */
package io.directlog.replication;
