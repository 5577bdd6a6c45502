package io.directlog.cli.broker;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

import io.directlog.broker.BrokerConfig;
import io.directlog.broker.KafkaBroker;
import io.directlog.cli.Command;
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
        for (int i = 0; i < args.length; i++)
        {
            final String arg = args[i];
            final int eq = arg.indexOf('=');
            final String name = arg.startsWith("--") && eq > 0 ? arg.substring(0, eq) : arg;
            final String inline = arg.startsWith("--") && eq > 0 ? arg.substring(eq + 1) : null;
            switch (name)
            {
                case "--help", "-h" ->
                {
                    System.out.print(USAGE);
                    return 0;
                }
                case "--dir" -> dir = Path.of(inline != null ? inline : value(args, ++i, name));
                case "--port" -> port = port(inline != null ? inline : value(args, ++i, name), name);
                case "--host" -> host = inline != null ? inline : value(args, ++i, name);
                case "--metrics-port" -> metricsPort = port(inline != null ? inline : value(args, ++i, name), name);
                default -> throw new UsageException("unknown option '" + arg + "'");
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

    private static String value(final String[] args, final int i, final String name) throws UsageException
    {
        if (i >= args.length)
        {
            throw new UsageException(name + " needs a value");
        }
        return args[i];
    }

    private static int port(final String value, final String name) throws UsageException
    {
        try
        {
            return Integer.parseInt(value);
        }
        catch (final NumberFormatException e)
        {
            throw new UsageException(name + " must be a number, got '" + value + "'");
        }
    }
}
