package io.directlog.broker;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import io.directlog.broker.topic.Partition;
import io.directlog.storage.Durability;

/**
 * Three (or N) cluster brokers in this JVM on 127.0.0.1, each with its own directory and free Kafka and Raft
 * ports. "Killing" a node closes its broker (its Raft server stops answering at once); restarting opens the same
 * directory again. Not thread-safe: driven by the test thread.
 */
final class BrokerCluster implements AutoCloseable
{
    static final String HOST = "127.0.0.1";

    private final ClusterConfig cluster;
    private final List<Path> dirs = new ArrayList<>();
    private final KafkaBroker[] brokers;

    BrokerCluster(final String name, final int size, final Map<String, Integer> topics) throws IOException
    {
        final List<ClusterConfig.Node> nodes = new ArrayList<>();
        final int[] ports = freePorts(2 * size);
        for (int i = 0; i < size; i++)
        {
            nodes.add(new ClusterConfig.Node(i + 1, HOST, ports[2 * i], ports[2 * i + 1]));
            dirs.add(BrokerTestSupport.newDirectory(name + "-n" + (i + 1)));
        }
        cluster = new ClusterConfig(nodes, topics, ClusterConfig.ELECTION_TIMEOUT_MIN_DEFAULT,
            ClusterConfig.ELECTION_TIMEOUT_MAX_DEFAULT);
        brokers = new KafkaBroker[size];
    }

    /** Ports that were free a moment ago (bound to port 0 together, then released). */
    static int[] freePorts(final int count) throws IOException
    {
        final ServerSocket[] sockets = new ServerSocket[count];
        try
        {
            final int[] ports = new int[count];
            for (int i = 0; i < count; i++)
            {
                sockets[i] = new ServerSocket(0, 1, InetAddress.getByName(HOST));
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        }
        finally
        {
            for (final ServerSocket s : sockets)
            {
                if (s != null)
                {
                    s.close();
                }
            }
        }
    }

    int size()
    {
        return brokers.length;
    }

    BrokerConfig config(final int node)
    {
        final ClusterConfig.Node n = cluster.nodes().get(node);
        return BrokerConfig.builder(dirs.get(node)).host(HOST).port(n.kafkaPort()).nodeId(n.id()).cluster(cluster)
            .segmentBytes(2 << 20).memoryBudget(96L << 20).durability(Durability.DSYNC).ioThreads(4)
            .initialRebalanceDelay(Duration.ZERO)
            // in one JVM, FailStop's exit would end the test run: the lost node only says so, and stops serving
            .onReplicationLost(reason -> System.err.println("REPLICATION-LOST node " + n.id() + ": " + reason))
            .build();
    }

    void startAll() throws InterruptedException
    {
        for (int i = 0; i < brokers.length; i++)
        {
            start(i);
        }
    }

    void start(final int node) throws InterruptedException
    {
        if (brokers[node] == null)
        {
            brokers[node] = KafkaBroker.start(config(node));
        }
    }

    void stop(final int node)
    {
        final KafkaBroker b = brokers[node];
        brokers[node] = null;
        if (b != null)
        {
            b.close();
        }
    }

    void stopAll()
    {
        for (int i = 0; i < brokers.length; i++)
        {
            stop(i);
        }
    }

    KafkaBroker broker(final int node)
    {
        return brokers[node];
    }

    boolean running(final int node)
    {
        return brokers[node] != null;
    }

    /** @return every node's address, for a client's bootstrap.servers. */
    String bootstrapServers()
    {
        final StringJoiner j = new StringJoiner(",");
        cluster.nodes().forEach(n -> j.add(n.host() + ":" + n.kafkaPort()));
        return j.toString();
    }

    /** @return the index of the running node that leads the partition, or -1 when none does. */
    int leaderOf(final String topic, final int partition)
    {
        for (int i = 0; i < brokers.length; i++)
        {
            if (brokers[i] != null && partition(i, topic, partition).isLeader())
            {
                return i;
            }
        }
        return -1;
    }

    Partition partition(final int node, final String topic, final int partition)
    {
        return brokers[node].topics().topic(topic).partition(partition);
    }

    /**
     * Waits until every partition of the topic has a leader among the running nodes.
     *
     * @return the milliseconds it took.
     * @throws AssertionError when it takes longer than the timeout.
     */
    long awaitLeaders(final String topic, final int partitions, final Duration timeout) throws InterruptedException
    {
        final long start = System.nanoTime();
        final long deadline = start + timeout.toNanos();
        for (int p = 0; p < partitions; p++)
        {
            while (leaderOf(topic, p) < 0)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new AssertionError("no leader for " + topic + "-" + p + " after " + timeout);
                }
                Thread.sleep(20); // polling a Raft role: there is no event to wait on from here
            }
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    @Override
    public void close()
    {
        stopAll();
    }
}
