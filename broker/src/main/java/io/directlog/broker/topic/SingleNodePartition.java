package io.directlog.broker.topic;

import java.util.TreeMap;

/**
 * A partition of a single-node broker: this node leads it, in one epoch that never changes. The leader-side
 * answers are the same whether the partition's log is open ({@link LocalPartition}) or still being created
 * ({@link OpeningPartition}), so they are written once, here.
 */
interface SingleNodePartition extends Partition
{
    /** The leader epoch of every partition: one node, never re-elected. */
    int LEADER_EPOCH = 0;

    @Override
    default int leaderEpoch()
    {
        return LEADER_EPOCH;
    }

    @Override
    default int leaderNodeId(final int localNodeId)
    {
        return localNodeId;
    }

    @Override
    default boolean isLeader()
    {
        return true;
    }

    /** One leader, one epoch: every batch carries {@link #LEADER_EPOCH}, which ends at the high watermark. */
    @Override
    default long[] endOffsetForEpoch(final int epoch)
    {
        final long end = highWatermark();
        return LeaderEpochs.endOffsetFor(new TreeMap<>(), epoch, LEADER_EPOCH, end, end);
    }
}
