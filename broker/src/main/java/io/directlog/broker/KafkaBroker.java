package io.directlog.broker;

import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.directlog.broker.group.GroupApis;
import io.directlog.broker.group.GroupCoordinators;
import io.directlog.broker.group.ReplicatedGroupLog;
import io.directlog.broker.network.KafkaConnection;
import io.directlog.broker.network.RequestMetrics;
import io.directlog.broker.topic.TopicConfig;
import io.directlog.broker.topic.TopicRegistry;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;

/**
 * A broker that speaks the Kafka protocol and keeps every partition in a DirectLog log: one store under the data
 * directory, the topic registry and the group coordinator over it, and a Netty server. With a
 * {@link BrokerConfig#cluster() cluster} it is one node of it, and its partitions are replicated ones
 * ({@link ClusterReplication}); without, it is a single node.
 * <pre>{@code
 * try (KafkaBroker broker = KafkaBroker.start(BrokerConfig.builder(dir).port(0).build())) {
 *     String bootstrap = broker.bootstrapServers();   // "127.0.0.1:40123"
 * }
 * }</pre>
 * Thread-safe.
 */
public final class KafkaBroker implements AutoCloseable
{
    /** The network event loops' thread names start with this (then Netty's pool and thread numbers). */
    static final String NETWORK_THREAD_PREFIX = "directlog-network";

    private final BrokerConfig config;
    private final LogStore store;
    private final TopicRegistry topics;
    private final GroupCoordinators groups;
    private final ExecutorService admin;
    /** Kafka's request-handler pool: appends and disk reads, off the event loops (each connection a lane on it). */
    private final ExecutorService ioPool;
    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    private final Channel serverChannel;
    private final int port;
    private final PrometheusMeterRegistry registry;
    private final MetricsEndpoint metrics;
    /** The cluster's replication, or null for a single node. */
    private final ClusterReplication replication;
    /** How long each phase of the start took. */
    private final StartPhases startPhases = new StartPhases();

    private KafkaBroker(final BrokerConfig config) throws InterruptedException
    {
        this.config = config;
        this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        // the store's default log settings are the broker's topic defaults; a partition log carries its topic's own
        // settings in its log.config (persisted by store.log(name, config)), so the engine opens it with them
        this.store = LogStore.open(config.storeOptions().apply(StoreConfig.builder(config.directory())
            .memoryBudget(config.memoryBudget())
            .meterRegistry(registry)
            .defaultLogConfig(LogConfig.builder().segmentSize(config.segmentBytes()).durability(config.durability())
                .build()))
            .build());
        startPhases.mark("store");
        boolean started = false;
        TopicRegistry t = null;
        GroupCoordinators g = null;
        ExecutorService a = null;
        ExecutorService ioPool = null;
        EventLoopGroup boss = null;
        EventLoopGroup workers = null;
        MetricsEndpoint endpoint = null;
        ClusterReplication repl = null;
        try
        {
            final java.util.Map<String, String> defaults = TopicConfig.defaults(config.segmentBytes(),
                config.durability());
            final long initialDelay = config.initialRebalanceDelay().toMillis();
            java.util.List<ReplicatedGroupLog> offsets = null;
            if (config.cluster() == null)
            {
                t = new TopicRegistry(store, defaults);
                startPhases.mark("topics");
                g = GroupCoordinators.local(store, initialDelay);
                startPhases.mark("groups");
            }
            else
            {
                repl = ClusterReplication.start(config, store);
                startPhases.mark("raft_server");
                t = new TopicRegistry(store, defaults, repl.opener(), true);
                repl.createDeclaredTopics(t);
                startPhases.mark("partitions");
                offsets = repl.offsetsPartitions().stream().map(ReplicatedGroupLog::new).toList();
                g = GroupCoordinators.replicated(offsets, initialDelay);
                startPhases.mark("offsets_partitions");
            }
            a = Executors.newSingleThreadExecutor(r ->
            {
                final Thread th = new Thread(r, "directlog-broker-admin");
                th.setDaemon(true);
                return th;
            });
            ioPool = newIoPool(config.ioThreads());
            final ExecutorService io = ioPool;
            final int[] boundPort = {-1};
            final GroupApis groupApis = new GroupApis(g, config.cluster() == null ?
                log -> new GroupApis.Address(config.nodeId(), config.host(), boundPort[0]) :
                new OffsetsLeaders(config.cluster(), offsets));
            final KafkaApis apis = new KafkaApis(config, t, a, groupApis);
            final RequestMetrics requestMetrics = new RequestMetrics(registry);
            g.registerMeters(registry);
            final TopicRegistry topicsForGauge = t;
            registry.gauge("directlog.broker.topics", topicsForGauge, r -> r.topics().size());
            registry.gauge("directlog.broker.partitions", topicsForGauge,
                r -> r.topics().stream().mapToInt(x -> x.partitions().size()).sum());
            if (repl != null)
            {
                repl.registerMeters(registry);
            }
            boss = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("directlog-accept", false),
                NioIoHandler.newFactory());
            workers = new MultiThreadIoEventLoopGroup(config.networkThreads(),
                new DefaultThreadFactory(NETWORK_THREAD_PREFIX, false), NioIoHandler.newFactory());
            final int maxFrame = config.socketRequestMaxBytes();
            final Channel ch = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>()
                {
                    @Override
                    protected void initChannel(final SocketChannel c)
                    {
                        c.pipeline()
                            .addLast("frames", new LengthFieldBasedFrameDecoder(maxFrame, 0, 4, 0, 4))
                            .addLast("length", new LengthFieldPrepender(4))
                            .addLast("kafka", new KafkaConnection(apis, requestMetrics, io));
                    }
                })
                .bind(config.host(), config.port()).sync().channel();
            boundPort[0] = ((InetSocketAddress)ch.localAddress()).getPort();
            startPhases.mark("listen");
            if (config.metricsPort() >= 0)
            {
                try
                {
                    endpoint = new MetricsEndpoint(config.host(), config.metricsPort(), registry);
                }
                catch (final java.io.IOException e)
                {
                    ch.close().syncUninterruptibly();
                    throw new java.io.UncheckedIOException("cannot serve metrics on port " + config.metricsPort(), e);
                }
            }
            this.metrics = endpoint;
            this.replication = repl;
            apis.port(boundPort[0]);
            this.topics = t;
            this.groups = g;
            this.admin = a;
            this.ioPool = io;
            this.bossGroup = boss;
            this.workerGroup = workers;
            this.serverChannel = ch;
            this.port = boundPort[0];
            started = true;
        }
        finally
        {
            if (!started)
            {
                if (boss != null)
                {
                    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
                }
                if (workers != null)
                {
                    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
                }
                if (a != null)
                {
                    a.shutdownNow();
                }
                if (ioPool != null)
                {
                    ioPool.shutdownNow();
                }
                if (g != null)
                {
                    g.close();
                }
                if (repl != null)
                {
                    try
                    {
                        repl.close();
                    }
                    catch (final RuntimeException closeFailed)
                    {
                        // the start's own failure is what propagates
                    }
                }
                try
                {
                    store.close();
                }
                catch (final RuntimeException closeFailed)
                {
                    // the start's own failure is what propagates; each log whose close failed logged a WARNING
                }
            }
        }
    }

    /**
     * A fixed pool whose queue is unbounded in type but bounded in fact: each connection queues at most one task at
     * a time ({@link io.directlog.broker.network.OrderedExecutor}).
     */
    private static ExecutorService newIoPool(final int threads)
    {
        final java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
        return Executors.newFixedThreadPool(threads, r ->
        {
            final Thread th = new Thread(r, "directlog-broker-io-" + n.incrementAndGet());
            th.setDaemon(true);
            return th;
        });
    }

    /**
     * Opens the store (recovering every partition, the topic registry and the groups) and starts listening.
     *
     * @param config the broker's settings.
     * @return the running broker.
     * @throws InterruptedException when interrupted while binding.
     */
    public static KafkaBroker start(final BrokerConfig config) throws InterruptedException
    {
        return new KafkaBroker(config);
    }

    /** @return the bound port. */
    public int port()
    {
        return port;
    }

    /** @return the store's page cache figures (pinned pages: fetched batches not yet written to a socket). */
    public io.directlog.storage.CacheStats cacheStats()
    {
        return store.cacheStats();
    }

    /** @return {@code host:port}, for a client's {@code bootstrap.servers}. */
    public String bootstrapServers()
    {
        return config.host() + ":" + port;
    }

    /** @return the port of the Prometheus endpoint, or -1 when there is none. */
    public int metricsPort()
    {
        return metrics == null ? -1 : metrics.port();
    }

    /** @return the broker's and the engine's meters. */
    public PrometheusMeterRegistry meterRegistry()
    {
        return registry;
    }

    /** @return the broker's settings. */
    public BrokerConfig config()
    {
        return config;
    }

    /** @return how long each phase of this broker's start took ({@code phase_ms=N ... total_ms=N}). */
    String startPhases()
    {
        return startPhases.toString();
    }

    /** @return the number of topics. */
    public int topicCount()
    {
        return topics.topics().size();
    }

    /** @return the topic registry; for tests in this package that look at partition logs. */
    TopicRegistry topics()
    {
        return topics;
    }

    /** Stops accepting, closes connections, stops the coordinator, then closes every log cleanly. Idempotent. */
    @Override
    public synchronized void close()
    {
        if (!serverChannel.isOpen() && bossGroup.isShutdown())
        {
            return;
        }
        if (metrics != null)
        {
            metrics.close();
        }
        serverChannel.close().syncUninterruptibly();
        bossGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workerGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        ioPool.shutdown();
        admin.shutdown();
        try
        {
            // appends already handed to the engine finish (or time out) before the logs close
            ioPool.awaitTermination(10, TimeUnit.SECONDS);
            admin.awaitTermination(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        groups.close();
        topics.close();
        try
        {
            if (replication != null)
            {
                replication.close(); // the Raft server stops writing into the store before the store closes
            }
        }
        finally
        {
            closeStore();
        }
    }

    private void closeStore()
    {
        try
        {
            store.close(); // throws, after closing everything, when a log could not record a clean shutdown
        }
        finally
        {
            registry.close();
        }
    }
}
