package io.directlog.cli.broker;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

import io.directlog.broker.BrokerConfig;
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
        "",
        "Runs a single-node Kafka-protocol broker; every partition is a DirectLog log. Stops on Ctrl-C or SIGTERM.",
        "",
        "  --dir DIR           data directory (default: ./" + DIR_DEFAULT + ")",
        "  --port PORT         Kafka port (default " + BrokerConfig.PORT_DEFAULT + "; 0 picks a free one)",
        "  --host HOST         address to listen on and advertise (default " + BrokerConfig.HOST_DEFAULT + ")",
        "  --metrics-port PORT serve the broker's and the engine's meters at http://HOST:PORT/metrics (Prometheus)",
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
                default -> throw line.unknown();
            }
        }
        final BrokerConfig config;
        try
        {
            config = BrokerConfig.builder(dir.toAbsolutePath()).host(host).port(port).metricsPort(metricsPort)
                .build();
        }
        catch (final IllegalArgumentException e)
        {
            throw new UsageException(e.getMessage());
        }
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
        System.out.println("directlog broker: listening on " + broker.bootstrapServers() + " (Kafka protocol), data in " +
            config.directory() + ", " + broker.topicCount() + " topics");
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
