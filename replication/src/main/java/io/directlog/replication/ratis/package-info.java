/**
 * The Apache Ratis implementation of {@link io.directlog.replication.ReplicatedPartition}: one Raft group per
 * partition, the Raft log holding a small header per batch and the batch itself kept in a DirectLog log through the
 * state machine's data hooks (write, flush, truncate, read). Nothing outside {@code io.directlog.replication}
 * depends on this package; see docs/replication.md.
 */
package io.directlog.replication.ratis;
