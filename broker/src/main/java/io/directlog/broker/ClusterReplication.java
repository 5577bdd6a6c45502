package io.directlog.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.directlog.broker.topic.ReplicatedTopicPartition;
import io.directlog.broker.topic.Topic;
import io.directlog.broker.topic.TopicRegistry;
import io.directlog.replication.BatchStamper;
import io.directlog.replication.ReplicatedPartition;
import io.directlog.replication.ratis.RaftTransport;
import io.directlog.replication.ratis.RatisReplicationNode;
import io.directlog.storage.LogStore;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A cluster node's replication: the one place the broker meets the replication engine. It starts the node's Raft
 * server over the broker's store and opens each topic partition as a {@link ReplicatedTopicPartition}, one Raft
 * group per partition over every node of the cluster (static assignment, see {@link ClusterConfig}). Everything
 * else in the broker sees {@link io.directlog.broker.topic.Partition} and, below it,
 * {@link io.directlog.replication.ReplicatedPartition}.
 * <p>
 * Thread-safe.
 */
final class ClusterReplication implements AutoCloseable
{
    /** How long adding a partition's group to the local Raft server may take (local only, no quorum needed). */
    private static final Duration GROUP_ADD_TIMEOUT = Duration.ofSeconds(30);

    /** Offsets partitions are named this and their index. */
    static final String OFFSETS_PARTITION_PREFIX = "__consumer_offsets-";

    private final ClusterConfig cluster;
    private final RatisReplicationNode node;
    private final List<RatisReplicationNode.Peer> peers = new ArrayList<>();

    private ClusterReplication(final ClusterConfig cluster, final RatisReplicationNode node)
    {
        this.cluster = cluster;
        this.node = node;
        cluster.nodes().forEach(n -> peers.add(peer(n)));
    }

    /**
     * Starts the node's Raft server; its Raft logs go to {@code raft/} under the broker's directory.
     *
     * @param config the broker's settings (with a cluster).
     * @param store  the broker's store, which holds every replica's batches.
     * @return the running replication.
     */
    static ClusterReplication start(final BrokerConfig config, final LogStore store)
    {
        final ClusterConfig cluster = config.cluster();
        final ClusterConfig.Node self = cluster.node(config.nodeId());
        try
        {
            // a node whose Raft server Ratis closed is a zombie: BrokerConfig's default stops the process (FailStop)
            return new ClusterReplication(cluster, RatisReplicationNode.start(new RatisReplicationNode.Config(
                peer(self), config.directory().resolve("raft"), store, BatchStamper.KAFKA_V2,
                cluster.electionTimeoutMin(), cluster.electionTimeoutMax(), true, RaftTransport.configured(),
                config.raftPauseCloseThreshold() != null ? config.raftPauseCloseThreshold() :
                    RatisReplicationNode.PAUSE_CLOSE_THRESHOLD_DEFAULT), config.onReplicationLost()));
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot start the Raft server of node " + self.id() + " on " +
                self.host() + ":" + self.raftPort(), e);
        }
    }

    private static RatisReplicationNode.Peer peer(final ClusterConfig.Node n)
    {
        return new RatisReplicationNode.Peer(Integer.toString(n.id()), n.host(), n.raftPort());
    }

    /** @return opens a partition as the local replica of its group (named after the topic id and the index). */
    TopicRegistry.PartitionOpener opener()
    {
        return (topic, id, index, logName, logConfig) -> new ReplicatedTopicPartition(topic, index,
            node.partition(id + "-" + index, peers, GROUP_ADD_TIMEOUT));
    }

    /**
     * Joins the groups of the replicated offsets topic (Kafka's {@code __consumer_offsets}): one Raft group per
     * partition over every node, named apart from topic partitions (those are named by topic id).
     *
     * @return this node's replica of each offsets partition, in partition order.
     */
    List<ReplicatedPartition> offsetsPartitions()
    {
        final List<ReplicatedPartition> out = new ArrayList<>();
        for (int i = 0; i < cluster.offsetsPartitions(); i++)
        {
            out.add(node.partition(OFFSETS_PARTITION_PREFIX + i, peers, GROUP_ADD_TIMEOUT));
        }
        return out;
    }

    /**
     * Creates the cluster's declared topics that the registry lacks (the first start, or a topic added to the
     * declaration); every node does the same, so all agree without a metadata group.
     *
     * @param topics the registry.
     * @throws IllegalStateException when a declared topic exists with another partition count.
     */
    void createDeclaredTopics(final TopicRegistry topics)
    {
        for (final Map.Entry<String, Integer> e : cluster.topics().entrySet())
        {
            final Topic existing = topics.topic(e.getKey());
            if (existing == null)
            {
                topics.create(e.getKey(), e.getValue(), Map.of(), false);
            }
            else if (existing.partitions().size() != e.getValue())
            {
                throw new IllegalStateException("topic " + e.getKey() + " has " + existing.partitions().size() +
                    " partitions here but is declared with " + e.getValue() + "; changing it is not supported yet");
            }
        }
    }

    /**
     * Registers {@code directlog.cluster.leader.changes}: how many times one of this node's partition groups (topic
     * and offsets partitions) saw its leader change since the node started. Each group's first leader counts once;
     * after that, on a cluster where no node stopped, the counter should stand still (issue 22's leader churn).
     *
     * @param registry the broker's meters.
     */
    void registerMeters(final MeterRegistry registry)
    {
        FunctionCounter.builder("directlog.cluster.leader.changes", node, RatisReplicationNode::leaderChanges)
            .description("leader changes seen by this node's Raft groups, their first leaders included")
            .register(registry);
    }

    /** @return leader changes seen by this node's groups since it started (the meter's value). */
    long leaderChanges()
    {
        return node.leaderChanges();
    }

    /** @return the cluster. */
    ClusterConfig cluster()
    {
        return cluster;
    }

    /** Stops the Raft server: this node's replicas leave their groups. The store stays open. */
    @Override
    public void close()
    {
        try
        {
            node.close();
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("closing the Raft server of node " + node.id() + " failed", e);
        }
    }
}
