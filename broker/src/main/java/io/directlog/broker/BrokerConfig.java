package io.directlog.broker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

import io.directlog.storage.Durability;
import io.directlog.storage.StoreConfig;

/**
 * The broker's settings. Kafka's own names are given where a setting mirrors one. Immutable; build with
 * {@link #builder(Path)}.
 */
public final class BrokerConfig
{
    /** The address listened on and advertised: loopback only (an advertised 0.0.0.0 breaks clients). */
    public static final String HOST_DEFAULT = "127.0.0.1";
    /** Kafka's port. */
    public static final int PORT_DEFAULT = 9092;
    /** Kafka's {@code socket.request.max.bytes}: 100 MiB. */
    public static final int SOCKET_REQUEST_MAX_BYTES_DEFAULT = 100 << 20;
    /**
     * Default {@code segment.bytes} of a topic: 8 MiB, not Kafka's 1 GiB, because each partition log that has data
     * holds a write page of its segment size from the store's memory budget (512 MiB: 64 such partitions).
     */
    public static final int SEGMENT_BYTES_DEFAULT = 8 << 20;
    /** Kafka's {@code group.initial.rebalance.delay.ms}. */
    public static final Duration INITIAL_REBALANCE_DELAY_DEFAULT = Duration.ofSeconds(3);
    /** Kafka's {@code num.io.threads}. */
    public static final int IO_THREADS_DEFAULT = 8;
    /**
     * Network event loops by default: two per available CPU, Netty's own default. One per CPU saved about 3% of the
     * broker's CPU per GB at 100,000 records/s on 2 CPUs (fewer epoll_wait wake-ups) but doubled the publish p99
     * (99-146 ms against 43-54 ms, two alternating pairs): a loop busy with one connection's large write holds
     * every other connection it serves.
     */
    public static final int NETWORK_THREADS_DEFAULT = 2 * Math.max(1, Runtime.getRuntime().availableProcessors());

    private final Path directory;
    private final String host;
    private final int port;
    private final int nodeId;
    private final String clusterId;
    private final int socketRequestMaxBytes;
    private final boolean autoCreateTopics;
    private final int numPartitions;
    private final int segmentBytes;
    private final Durability durability;
    private final long memoryBudget;
    private final Duration initialRebalanceDelay;
    private final int metricsPort;
    private final int ioThreads;
    private final int networkThreads;
    private final java.util.function.UnaryOperator<StoreConfig.Builder> storeOptions;
    private final ClusterConfig cluster;
    private final Duration raftPauseCloseThreshold;
    private final java.util.function.Consumer<String> onReplicationLost;

    private BrokerConfig(final Builder b)
    {
        directory = b.directory;
        host = b.host;
        port = b.port;
        nodeId = b.nodeId;
        clusterId = b.clusterId;
        socketRequestMaxBytes = b.socketRequestMaxBytes;
        autoCreateTopics = b.autoCreateTopics;
        numPartitions = b.numPartitions;
        segmentBytes = b.segmentBytes;
        durability = b.durability;
        memoryBudget = b.memoryBudget;
        initialRebalanceDelay = b.initialRebalanceDelay;
        metricsPort = b.metricsPort;
        ioThreads = b.ioThreads;
        networkThreads = b.networkThreads;
        storeOptions = b.storeOptions;
        cluster = b.cluster;
        raftPauseCloseThreshold = b.raftPauseCloseThreshold;
        onReplicationLost = b.onReplicationLost;
    }

    /** @return the cluster this broker is a node of, or null for a single-node broker. */
    public ClusterConfig cluster()
    {
        return cluster;
    }

    /**
     * @param directory where the broker keeps its logs.
     * @return a builder with the defaults.
     */
    public static Builder builder(final Path directory)
    {
        return new Builder(directory);
    }

    /** @return the data directory (one DirectLog store). */
    public Path directory()
    {
        return directory;
    }

    /** @return the address listened on and advertised. */
    public String host()
    {
        return host;
    }

    /** @return the port; 0 picks a free one. */
    public int port()
    {
        return port;
    }

    /** @return this node's id in Metadata, FindCoordinator and DescribeCluster. */
    public int nodeId()
    {
        return nodeId;
    }

    /** @return the cluster id Metadata reports. */
    public String clusterId()
    {
        return clusterId;
    }

    /** @return the largest request frame; a larger length prefix closes the connection. */
    public int socketRequestMaxBytes()
    {
        return socketRequestMaxBytes;
    }

    /** @return Kafka's {@code auto.create.topics.enable}: Metadata creates missing topics when the client allows. */
    public boolean autoCreateTopics()
    {
        return autoCreateTopics;
    }

    /** @return Kafka's {@code num.partitions}: partitions of an auto-created topic or a CreateTopics with -1. */
    public int numPartitions()
    {
        return numPartitions;
    }

    /** @return the default {@code segment.bytes}. */
    public int segmentBytes()
    {
        return segmentBytes;
    }

    /** @return the default {@code directlog.durability} of topics. */
    public Durability durability()
    {
        return durability;
    }

    /** @return the store's memory budget (write pages and read cache). */
    public long memoryBudget()
    {
        return memoryBudget;
    }

    /** @return how long a new group waits for more members before its first rebalance completes. */
    public Duration initialRebalanceDelay()
    {
        return initialRebalanceDelay;
    }

    /** @return the port of the Prometheus endpoint ({@code /metrics}); 0 picks a free one; -1 (the default) none. */
    public int metricsPort()
    {
        return metricsPort;
    }

    /**
     * @return Kafka's {@code num.io.threads}: the threads that run appends and disk reads (Produce, Fetch,
     *         ListOffsets) off the network event loops.
     */
    public int ioThreads()
    {
        return ioThreads;
    }

    /**
     * @return Kafka's {@code num.network.threads}: the event loops that read requests and write responses.
     */
    public int networkThreads()
    {
        return networkThreads;
    }

    /** @return what the broker applies to its store's settings last; for tests (a fault-injecting BlockIo). */
    java.util.function.UnaryOperator<StoreConfig.Builder> storeOptions()
    {
        return storeOptions;
    }

    /**
     * @return the JVM pause after which Ratis closes a cluster node's Raft server (tests lower it); null for the
     *         replication's default, far out of reach.
     */
    Duration raftPauseCloseThreshold()
    {
        return raftPauseCloseThreshold;
    }

    /** @return what a cluster node does when its Raft server or a group closes under it ({@link FailStop}). */
    java.util.function.Consumer<String> onReplicationLost()
    {
        return onReplicationLost;
    }

    /** Fluent builder; {@link #build()} checks the values. */
    public static final class Builder
    {
        private final Path directory;
        private String host = HOST_DEFAULT;
        private int port = PORT_DEFAULT;
        private int nodeId = 1;
        private String clusterId = "directlog-cluster";
        private int socketRequestMaxBytes = SOCKET_REQUEST_MAX_BYTES_DEFAULT;
        private boolean autoCreateTopics = true;
        private int numPartitions = 1;
        private int segmentBytes = SEGMENT_BYTES_DEFAULT;
        private Durability durability = Durability.DSYNC;
        private long memoryBudget = StoreConfig.MEMORY_BUDGET_DEFAULT;
        private Duration initialRebalanceDelay = INITIAL_REBALANCE_DELAY_DEFAULT;
        private int metricsPort = -1;
        private int ioThreads = IO_THREADS_DEFAULT;
        private int networkThreads = NETWORK_THREADS_DEFAULT;
        private java.util.function.UnaryOperator<StoreConfig.Builder> storeOptions = b -> b;
        private ClusterConfig cluster;
        private Duration raftPauseCloseThreshold;
        private java.util.function.Consumer<String> onReplicationLost = FailStop::exit;

        private Builder(final Path directory)
        {
            this.directory = Objects.requireNonNull(directory, "directory");
        }

        /**
         * @param host the address to listen on and advertise.
         * @return this
         */
        public Builder host(final String host)
        {
            this.host = host;
            return this;
        }

        /**
         * @param port the port, 0 for a free one.
         * @return this
         */
        public Builder port(final int port)
        {
            this.port = port;
            return this;
        }

        /**
         * @param nodeId this node's id.
         * @return this
         */
        public Builder nodeId(final int nodeId)
        {
            this.nodeId = nodeId;
            return this;
        }

        /**
         * @param clusterId the cluster id.
         * @return this
         */
        public Builder clusterId(final String clusterId)
        {
            this.clusterId = clusterId;
            return this;
        }

        /**
         * @param bytes the largest request frame.
         * @return this
         */
        public Builder socketRequestMaxBytes(final int bytes)
        {
            this.socketRequestMaxBytes = bytes;
            return this;
        }

        /**
         * @param enabled whether Metadata creates missing topics.
         * @return this
         */
        public Builder autoCreateTopics(final boolean enabled)
        {
            this.autoCreateTopics = enabled;
            return this;
        }

        /**
         * @param partitions partitions of auto-created topics.
         * @return this
         */
        public Builder numPartitions(final int partitions)
        {
            this.numPartitions = partitions;
            return this;
        }

        /**
         * @param bytes the default segment size of partition logs.
         * @return this
         */
        public Builder segmentBytes(final int bytes)
        {
            this.segmentBytes = bytes;
            return this;
        }

        /**
         * @param durability the default durability of topics.
         * @return this
         */
        public Builder durability(final Durability durability)
        {
            this.durability = durability;
            return this;
        }

        /**
         * @param bytes the store's memory budget.
         * @return this
         */
        public Builder memoryBudget(final long bytes)
        {
            this.memoryBudget = bytes;
            return this;
        }

        /**
         * @param delay the first rebalance's wait for more members.
         * @return this
         */
        public Builder initialRebalanceDelay(final Duration delay)
        {
            this.initialRebalanceDelay = delay;
            return this;
        }

        /**
         * @param port the Prometheus endpoint's port, 0 for a free one, -1 for none.
         * @return this
         */
        public Builder metricsPort(final int port)
        {
            this.metricsPort = port;
            return this;
        }

        /**
         * @param threads Kafka's {@code num.io.threads}: threads for appends and disk reads; at least 1.
         * @return this
         */
        public Builder ioThreads(final int threads)
        {
            this.ioThreads = threads;
            return this;
        }

        /**
         * @param threads Kafka's {@code num.network.threads}: event loops that read requests and write responses;
         *                at least 1 (default: one per available CPU).
         * @return this
         */
        public Builder networkThreads(final int threads)
        {
            this.networkThreads = threads;
            return this;
        }

        /**
         * Makes the broker a node of a cluster: its partitions are replicated over every node, its node id and
         * Kafka port must be its entry's. Without it (the default) the broker is a single node.
         *
         * @param cluster the cluster, or null for a single node.
         * @return this
         */
        public Builder cluster(final ClusterConfig cluster)
        {
            this.cluster = cluster;
            return this;
        }

        /**
         * For tests in this package: changes the store's settings after the broker has set its own.
         *
         * @param options applied to the store's builder.
         * @return this
         */
        Builder storeOptions(final java.util.function.UnaryOperator<StoreConfig.Builder> options)
        {
            this.storeOptions = Objects.requireNonNull(options, "storeOptions");
            return this;
        }

        /**
         * For tests in this package: lowers the JVM pause after which Ratis closes the node's Raft server, to see
         * what the node does then.
         *
         * @param threshold the pause.
         * @return this
         */
        Builder raftPauseCloseThreshold(final Duration threshold)
        {
            this.raftPauseCloseThreshold = Objects.requireNonNull(threshold, "raftPauseCloseThreshold");
            return this;
        }

        /**
         * What a cluster node does when Ratis closes its Raft server or one of its groups under it (the node can
         * then never vote, lead or catch up again). By default it logs the reason at ERROR and exits the JVM with
         * status 70, for its supervisor to restart it; a broker embedded in a JVM that must not exit sets its own
         * action here, which should stop this broker (and may restart it) rather than leave it running.
         *
         * @param onLost told the reason, once, on a Ratis thread; must not block on the broker's close.
         * @return this
         */
        public Builder onReplicationLost(final java.util.function.Consumer<String> onLost)
        {
            this.onReplicationLost = Objects.requireNonNull(onLost, "onReplicationLost");
            return this;
        }

        /**
         * @return the checked configuration.
         * @throws IllegalArgumentException naming the first bad value.
         */
        public BrokerConfig build()
        {
            if ("0.0.0.0".equals(host) || "::".equals(host))
            {
                throw new IllegalArgumentException("host must be an address clients can reach, got " + host);
            }
            if (port < 0 || port > 65535)
            {
                throw new IllegalArgumentException("port must be within [0, 65535], got " + port);
            }
            if (metricsPort < -1 || metricsPort > 65535)
            {
                throw new IllegalArgumentException("metricsPort must be -1 or within [0, 65535], got " + metricsPort);
            }
            if (socketRequestMaxBytes < 1024)
            {
                throw new IllegalArgumentException("socketRequestMaxBytes must be at least 1024, got " +
                    socketRequestMaxBytes);
            }
            if (numPartitions < 1)
            {
                throw new IllegalArgumentException("numPartitions must be at least 1, got " + numPartitions);
            }
            if (ioThreads < 1)
            {
                throw new IllegalArgumentException("ioThreads must be at least 1, got " + ioThreads);
            }
            if (networkThreads < 1)
            {
                throw new IllegalArgumentException("networkThreads must be at least 1, got " + networkThreads);
            }
            Objects.requireNonNull(durability, "durability");
            Objects.requireNonNull(initialRebalanceDelay, "initialRebalanceDelay");
            if (cluster != null)
            {
                final ClusterConfig.Node self = cluster.node(nodeId);
                if (self == null)
                {
                    throw new IllegalArgumentException("node id " + nodeId + " is not among the peers " +
                        cluster.nodes());
                }
                if (self.kafkaPort() != port || !self.host().equals(host))
                {
                    throw new IllegalArgumentException("node " + nodeId + " must listen where its peer entry says (" +
                        self.host() + ":" + self.kafkaPort() + "), not " + host + ":" + port);
                }
                if (!durability.atLeast(Durability.DIRECT))
                {
                    throw new IllegalArgumentException("a replicated broker needs DIRECT or DSYNC durability (Raft " +
                        "counts a replica's vote once its write is durable), got " + durability);
                }
            }
            return new BrokerConfig(this);
        }
    }
}
