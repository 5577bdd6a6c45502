package io.directlog.kafka.baseline;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

import io.directlog.broker.BrokerConfig;
import io.directlog.broker.KafkaBroker;
import io.directlog.broker.network.LeakDetection;

/**
 * The child JVM's entry for {@link DirectLogNode}: {@code DirectLogNodeMain DATA_DIR} starts DirectLog's broker on a
 * free 127.0.0.1 port with its default durability (DSYNC), prints {@value #LISTENING_MARKER}{@code host:port} on
 * stdout, and runs until SIGTERM, when a shutdown hook closes it.
 */
public final class DirectLogNodeMain
{
    /** The line prefix the parent waits for; the bootstrap address follows it. */
    public static final String LISTENING_MARKER = "DIRECTLOG-NODE-LISTENING ";
    /**
     * A system property naming a port for the broker's Prometheus endpoint (none without it): a profile of a
     * bench-broker run reads the engine's counters there (e.g. through {@code DIRECTLOG_BROKER_JAVA_OPTS}).
     */
    public static final String METRICS_PORT_PROPERTY = "directlog.node.metricsPort";

    private DirectLogNodeMain()
    {
    }

    /**
     * @param args the data directory.
     * @throws Exception when the broker cannot start.
     */
    public static void main(final String[] args) throws Exception
    {
        if (args.length != 1)
        {
            System.err.println("usage: DirectLogNodeMain DATA_DIR");
            System.exit(2);
        }
        LeakDetection.offUnlessConfigured();
        final KafkaBroker broker = KafkaBroker.start(BrokerConfig.builder(Path.of(args[0]).toAbsolutePath())
            .host("127.0.0.1").port(0).metricsPort(Integer.getInteger(METRICS_PORT_PROPERTY, -1)).build());
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            broker.close();
            stopped.countDown();
        }, "directlog-node-stop"));
        System.out.println(LISTENING_MARKER + broker.bootstrapServers());
        System.out.flush();
        stopped.await();
    }
}
