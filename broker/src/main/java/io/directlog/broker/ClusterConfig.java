package io.directlog.broker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A broker's cluster: every node (this one included) and the topics every node hosts.
 * <p>
 * Assignment is static and deterministic (no metadata Raft group yet): every node must be started with the same
 * nodes and topics; each partition is one Raft group over all the nodes (replication factor = cluster size), its
 * leader is whoever Raft elects. Immutable.
 *
 * @param nodes              every node of the cluster, in the order given.
 * @param topics             topic name to partition count, created on every node at start.
 * @param electionTimeoutMin the least Raft election timeout.
 * @param electionTimeoutMax the most; a timeout is random in [min, max].
 * @param offsetsPartitions  how many partitions the replicated offsets topic has (Kafka's
 *                           offsets.topic.num.partitions): a group lives in the one its id hashes to, and the leader
 *                           of that partition is its coordinator. Every node must be given the same count.
 */
public record ClusterConfig(List<Node> nodes, Map<String, Integer> topics, Duration electionTimeoutMin,
                            Duration electionTimeoutMax, int offsetsPartitions)
{
    /**
     * Offsets partitions when none are asked for. Kafka's default is 50; here each is a Raft group on every node
     * (its threads and heartbeats), and a few spread the coordinators over the nodes already.
     */
    public static final int OFFSETS_PARTITIONS_DEFAULT = 3;

    /** Raft election timeouts: a new leader is elected within about the maximum after the old one stops. */
    public static final Duration ELECTION_TIMEOUT_MIN_DEFAULT = Duration.ofMillis(1000);
    /** See {@link #ELECTION_TIMEOUT_MIN_DEFAULT}. */
    public static final Duration ELECTION_TIMEOUT_MAX_DEFAULT = Duration.ofMillis(2000);

    /**
     * One node.
     *
     * @param id        its Kafka node id (also its Raft peer id).
     * @param host      the address its Kafka and Raft ports listen on.
     * @param kafkaPort the Kafka port clients connect to.
     * @param raftPort  the port its Raft server listens on.
     */
    public record Node(int id, String host, int kafkaPort, int raftPort)
    {
        /**
         * Checks the values.
         *
         * @param id        the node id, at least 0.
         * @param host      the address.
         * @param kafkaPort the Kafka port, 1-65535.
         * @param raftPort  the Raft port, 1-65535, not the Kafka port.
         */
        public Node
        {
            Objects.requireNonNull(host, "host");
            if (id < 0)
            {
                throw new IllegalArgumentException("node id must be at least 0, got " + id);
            }
            if (kafkaPort < 1 || kafkaPort > 65535 || raftPort < 1 || raftPort > 65535 || kafkaPort == raftPort)
            {
                throw new IllegalArgumentException("node " + id + " needs two different ports within [1, 65535], " +
                    "got kafka " + kafkaPort + ", raft " + raftPort);
            }
        }
    }

    /**
     * Checks the values.
     *
     * @param nodes              every node, at least one, ids unique.
     * @param topics             topic name to partition count (at least 1 each).
     * @param electionTimeoutMin the least election timeout.
     * @param electionTimeoutMax the most.
     * @param offsetsPartitions  the offsets topic's partition count, 1 to 1000.
     */
    public ClusterConfig
    {
        if (offsetsPartitions < 1 || offsetsPartitions > 1000)
        {
            throw new IllegalArgumentException("the offsets topic needs 1 to 1000 partitions, got " + offsetsPartitions);
        }
        nodes = List.copyOf(nodes);
        topics = Collections.unmodifiableMap(new LinkedHashMap<>(topics));
        Objects.requireNonNull(electionTimeoutMin, "electionTimeoutMin");
        Objects.requireNonNull(electionTimeoutMax, "electionTimeoutMax");
        if (nodes.isEmpty())
        {
            throw new IllegalArgumentException("a cluster needs at least one node");
        }
        final Set<Integer> ids = new HashSet<>();
        for (final Node n : nodes)
        {
            if (!ids.add(n.id()))
            {
                throw new IllegalArgumentException("node id " + n.id() + " appears twice in " + nodes);
            }
        }
        topics.forEach((name, count) ->
        {
            if (count == null || count < 1 || count > 10_000)
            {
                throw new IllegalArgumentException("topic " + name + " needs 1 to 10000 partitions, got " + count);
            }
        });
    }

    /**
     * A cluster with {@link #OFFSETS_PARTITIONS_DEFAULT} offsets partitions.
     *
     * @param nodes              every node, at least one, ids unique.
     * @param topics             topic name to partition count (at least 1 each).
     * @param electionTimeoutMin the least election timeout.
     * @param electionTimeoutMax the most.
     */
    public ClusterConfig(final List<Node> nodes, final Map<String, Integer> topics, final Duration electionTimeoutMin,
        final Duration electionTimeoutMax)
    {
        this(nodes, topics, electionTimeoutMin, electionTimeoutMax, OFFSETS_PARTITIONS_DEFAULT);
    }

    /**
     * Parses {@code id=host:kafkaPort:raftPort,...}.
     *
     * @param peers the list.
     * @return the nodes.
     * @throws IllegalArgumentException naming the entry that is malformed.
     */
    public static List<Node> parseNodes(final String peers)
    {
        final List<Node> nodes = new ArrayList<>();
        for (final String entry : peers.split(","))
        {
            final String e = entry.trim();
            final int eq = e.indexOf('=');
            final String[] address = eq < 0 ? new String[0] : e.substring(eq + 1).split(":");
            if (eq < 1 || address.length != 3)
            {
                throw new IllegalArgumentException("peer '" + e + "' is not id=host:kafkaPort:raftPort");
            }
            try
            {
                nodes.add(new Node(Integer.parseInt(e.substring(0, eq)), address[0], Integer.parseInt(address[1]),
                    Integer.parseInt(address[2])));
            }
            catch (final NumberFormatException nfe)
            {
                throw new IllegalArgumentException("peer '" + e + "' has a non-numeric id or port", nfe);
            }
        }
        return nodes;
    }

    /**
     * Parses {@code name:partitions,...}.
     *
     * @param topics the list.
     * @return topic name to partition count, in the order given.
     * @throws IllegalArgumentException naming the entry that is malformed.
     */
    public static Map<String, Integer> parseTopics(final String topics)
    {
        final Map<String, Integer> out = new LinkedHashMap<>();
        for (final String entry : topics.split(","))
        {
            final String e = entry.trim();
            final int colon = e.lastIndexOf(':');
            try
            {
                out.put(colon < 0 ? e : e.substring(0, colon), colon < 0 ? 1 : Integer.parseInt(e.substring(colon + 1)));
            }
            catch (final NumberFormatException nfe)
            {
                throw new IllegalArgumentException("topic '" + e + "' is not name[:partitions]", nfe);
            }
        }
        return out;
    }

    /**
     * @param id a node id.
     * @return the node, or null when the cluster has none with that id.
     */
    public Node node(final int id)
    {
        for (final Node n : nodes)
        {
            if (n.id() == id)
            {
                return n;
            }
        }
        return null;
    }

    /**
     * @return the node Metadata and DescribeCluster name as controller: the lowest id (there is no metadata Raft
     *         group yet; consumer groups are coordinated by the leaders of the offsets partitions).
     */
    public Node coordinator()
    {
        Node lowest = nodes.get(0);
        for (final Node n : nodes)
        {
            if (n.id() < lowest.id())
            {
                lowest = n;
            }
        }
        return lowest;
    }
}
