package io.directlog.cli.broker;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

import io.directlog.broker.BrokerConfig;
import io.directlog.broker.ClusterConfig;
import io.directlog.broker.KafkaBroker;
import io.directlog.cli.Command;
import io.directlog.cli.CommandLine;
import io.directlog.cli.UsageException;

/**
 * {@code ./directlog broker}: runs the Kafka-protocol broker in the foreground until Ctrl-C or SIGTERM, which close
 * it cleanly (connections, coordinator, then every log flushed and marked cleanly shut down).
 * <p>
 * Used from the main thread only; the shutdown hook runs on its own thread.
 */
public final class BrokerCommand implements Command
{
    static final String DIR_DEFAULT = "directlog-broker-data";

    private static final String USAGE = String.join("\n",
        "usage: ./directlog broker [--dir DIR] [--port PORT] [--host HOST] [--metrics-port PORT]",
        "       ./directlog broker --node-id N --peers ID=HOST:KAFKAPORT:RAFTPORT,... --topics NAME:PARTITIONS,... [--dir DIR]",
        "",
        "Runs a Kafka-protocol broker; every partition is a DirectLog log. Stops on Ctrl-C or SIGTERM.",
        "Without --peers it is a single node. With --peers it is node N of a cluster: each partition of the declared",
        "topics is one Raft group over every peer (docs/replication.md); every node must be given the same --peers",
        "and --topics, and listens on its own entry's host and Kafka port (--host/--port are taken from it).",
        "",
        "  --dir DIR           data directory (default: ./" + DIR_DEFAULT + ")",
        "  --port PORT         Kafka port (default " + BrokerConfig.PORT_DEFAULT + "; 0 picks a free one)",
        "  --host HOST         address to listen on and advertise (default " + BrokerConfig.HOST_DEFAULT + ")",
        "  --metrics-port PORT serve the broker's and the engine's meters at http://HOST:PORT/metrics (Prometheus)",
        "  --node-id N         this node's id (with --peers; default 1)",
        "  --peers LIST        the cluster's nodes, this one included: id=host:kafkaPort:raftPort,...",
        "  --topics LIST       the cluster's topics: name:partitions,... (required with --peers)",
        "  --help              this text",
        "");

    @Override
    public String name()
    {
        return "broker";
    }

    @Override
    public String summary()
    {
        return "run the Kafka-protocol broker in the foreground";
    }

    @Override
    public int run(final String[] args) throws Exception
    {
        Path dir = Path.of(DIR_DEFAULT);
        int port = BrokerConfig.PORT_DEFAULT;
        String host = BrokerConfig.HOST_DEFAULT;
        int metricsPort = -1;
        int nodeId = 1;
        String peers = null;
        String topics = null;
        final CommandLine line = new CommandLine(args);
        while (line.next())
        {
            switch (line.name())
            {
                case "--help", "-h" ->
                {
                    System.out.print(USAGE);
                    return 0;
                }
                case "--dir" -> dir = Path.of(line.value());
                case "--port" -> port = port(line);
                case "--host" -> host = line.value();
                case "--metrics-port" -> metricsPort = port(line);
                case "--node-id" -> nodeId = (int)Math.min(Integer.MAX_VALUE, line.longValue("a node id"));
                case "--peers" -> peers = line.value();
                case "--topics" -> topics = line.value();
                default -> throw line.unknown();
            }
        }
        final BrokerConfig config;
        try
        {
            final BrokerConfig.Builder b = BrokerConfig.builder(dir.toAbsolutePath()).host(host).port(port)
                .metricsPort(metricsPort).nodeId(nodeId);
            if (peers != null)
            {
                if (topics == null)
                {
                    throw new UsageException("--peers needs --topics (a cluster's topics are declared on every node)");
                }
                final ClusterConfig cluster = new ClusterConfig(ClusterConfig.parseNodes(peers),
                    ClusterConfig.parseTopics(topics), ClusterConfig.ELECTION_TIMEOUT_MIN_DEFAULT,
                    ClusterConfig.ELECTION_TIMEOUT_MAX_DEFAULT);
                final ClusterConfig.Node self = cluster.node(nodeId);
                if (self == null)
                {
                    throw new UsageException("--node-id " + nodeId + " is not among --peers " + peers);
                }
                b.host(self.host()).port(self.kafkaPort()).cluster(cluster);
            }
            else if (topics != null)
            {
                throw new UsageException("--topics is for cluster nodes (with --peers); a single node creates topics " +
                    "on request");
            }
            config = b.build();
        }
        catch (final IllegalArgumentException e)
        {
            throw new UsageException(e.getMessage());
        }
        io.directlog.broker.network.LeakDetection.offUnlessConfigured();
        final KafkaBroker broker = KafkaBroker.start(config);
        final CountDownLatch stopped = new CountDownLatch(1);
        final Thread hook = new Thread(() ->
        {
            System.out.println("directlog broker: shutting down");
            broker.close();
            System.out.println("directlog broker: stopped; data is in " + config.directory());
            stopped.countDown();
        }, "directlog-broker-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        System.out.println("directlog broker: " + (config.cluster() == null ? "" : "node " + config.nodeId() +
            " of a " + config.cluster().nodes().size() + "-node cluster, ") + "listening on " +
            broker.bootstrapServers() + " (Kafka protocol), data in " + config.directory() + ", " +
            broker.topicCount() + " topics");
        if (broker.metricsPort() >= 0)
        {
            System.out.println("directlog broker: metrics at http://" + config.host() + ":" + broker.metricsPort() +
                "/metrics");
        }
        System.out.println("directlog broker: Ctrl-C or SIGTERM stops it");
        stopped.await();
        return 0;
    }

    private static int port(final CommandLine line) throws UsageException
    {
        final long port = line.longValue("a port number");
        if (port < -1 || port > 65_535)
        {
            throw new UsageException(line.name() + " takes a port number from 0 to 65535, not " + port);
        }
        return (int)port;
    }
}
