package io.directlog.broker;

import java.util.List;

import io.directlog.broker.group.GroupApis;
import io.directlog.broker.group.ReplicatedGroupLog;

/**
 * FindCoordinator in a cluster: a group's coordinator is the node that leads the offsets partition its id hashes to,
 * as this node's replica of that partition knows it (from the Raft leader's heartbeats).
 * <p>
 * Thread-safe (reads the replicas' view only).
 */
final class OffsetsLeaders implements GroupApis.CoordinatorLocator
{
    private final ClusterConfig cluster;
    private final List<ReplicatedGroupLog> offsets;

    OffsetsLeaders(final ClusterConfig cluster, final List<ReplicatedGroupLog> offsets)
    {
        this.cluster = cluster;
        this.offsets = List.copyOf(offsets);
    }

    @Override
    public GroupApis.Address locate(final int logIndex)
    {
        final ClusterConfig.Node leader = offsets.get(logIndex).replica().leaderId().map(this::node).orElse(null);
        return leader == null ? null : new GroupApis.Address(leader.id(), leader.host(), leader.kafkaPort());
    }

    private ClusterConfig.Node node(final String raftId)
    {
        try
        {
            return cluster.node(Integer.parseInt(raftId));
        }
        catch (final NumberFormatException e)
        {
            return null; // a peer named otherwise is no Kafka node: the client asks again
        }
    }
}
