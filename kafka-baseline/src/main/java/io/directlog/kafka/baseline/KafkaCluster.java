package io.directlog.kafka.baseline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Apache Kafka as a cluster of three (or more) child JVMs on loopback: each node is broker and controller (KRaft),
 * the controllers form a static quorum ({@code controller.quorum.voters}), every node has its own data directory
 * under one parent. {@link #start(KafkaNode.Config, int)} formats all nodes with one cluster id, starts them together
 * (a node's broker waits for a controller quorum, so they cannot start one after the other) and returns once every
 * node has logged that it started and accepts clients; {@link #close()} stops them all (SIGTERM, grace, SIGKILL).
 *
 * <p>The internal topics keep Kafka's defaults (three replicas, {@code min.insync.replicas} 2 for the transaction
 * and share state); {@link KafkaNode.Config#brokerProperty} applies to every node, e.g.
 * {@code min.insync.replicas=2}.
 *
 * <p>Thread-safe: {@link #close()} may race with the members' shutdown hooks.
 */
public final class KafkaCluster extends ChildCluster
{
    private final String version;

    private KafkaCluster(final List<ChildProcess> members, final Path deleteOnClose, final Path dataDir,
        final int[] clientPorts, final String version)
    {
        super(members, deleteOnClose, dataDir, clientPorts);
        this.version = version;
    }

    /**
     * Formats and starts {@code nodes} Kafka nodes and waits until all serve clients.
     *
     * @param config the nodes' JVM options, classpath, start timeout, broker properties and the parent of their data
     *               directories (default: a new temporary directory, deleted on close).
     * @param nodes  how many nodes, at least 1.
     * @return the running cluster.
     * @throws IOException when formatting fails or a node does not start in time; the message carries the tail of
     *                     that node's log, and every node already started is stopped.
     */
    public static KafkaCluster start(final KafkaNode.Config config, final int nodes) throws IOException
    {
        if (nodes < 1)
        {
            throw new IllegalArgumentException("a cluster needs at least one node, got " + nodes);
        }
        final Path parent = KafkaNode.dataDir(config);
        final boolean madeDataDir = parent == null;
        final Path dataDir = madeDataDir ? Files.createTempDirectory("kafka-cluster-") : parent;
        Files.createDirectories(dataDir);
        final int[] clientPorts = new int[nodes];
        final int[] controllerPorts = new int[nodes];
        freePorts(clientPorts, controllerPorts);
        final List<String> voters = new ArrayList<>();
        for (int i = 0; i < nodes; i++)
        {
            voters.add((i + 1) + "@127.0.0.1:" + controllerPorts[i]);
        }
        final String clusterId = KafkaNode.randomClusterId();
        final List<Path> properties = new ArrayList<>();
        for (int i = 0; i < nodes; i++)
        {
            final Path nodeDir = Files.createDirectories(dataDir.resolve("node-" + (i + 1)));
            final Path file = nodeDir.resolve("server.properties");
            Files.writeString(file, KafkaNode.clusterMemberProperties(config, nodeDir.resolve("log"), i + 1,
                clientPorts[i], controllerPorts[i], String.join(",", voters)));
            properties.add(file);
        }
        formatAll(config, properties, clusterId);
        final List<ChildProcess> members = new ArrayList<>();
        try
        {
            for (int i = 0; i < nodes; i++)
            {
                final Path nodeDir = properties.get(i).getParent();
                members.add(KafkaNode.launch(config, properties.get(i), nodeDir.resolve("kafka.log"), null));
            }
            String version = "unknown";
            for (int i = 0; i < nodes; i++)
            {
                version = KafkaNode.awaitStarted(members.get(i), properties.get(i).getParent().resolve("kafka.log"),
                    clientPorts[i], KafkaNode.startTimeout(config));
            }
            return new KafkaCluster(members, madeDataDir ? dataDir : null, dataDir, clientPorts, version);
        }
        catch (final IOException | RuntimeException ex)
        {
            ChildProcess.stopAll(members, false);
            if (madeDataDir)
            {
                ex.addSuppressed(new IOException("data directory kept for inspection: " + dataDir));
            }
            throw ex;
        }
    }

    /** Formats every member at once: each format is a JVM start, several seconds on a loaded machine. */
    private static void formatAll(final KafkaNode.Config config, final List<Path> properties, final String clusterId)
        throws IOException
    {
        final ExecutorService pool = Executors.newFixedThreadPool(properties.size());
        try
        {
            final List<Future<Void>> done = new ArrayList<>();
            for (final Path file : properties)
            {
                done.add(pool.submit(() ->
                {
                    KafkaNode.format(config, file, file.resolveSibling("format.log"), clusterId, false);
                    return null;
                }));
            }
            for (final Future<Void> f : done)
            {
                try
                {
                    f.get();
                }
                catch (final java.util.concurrent.ExecutionException ex)
                {
                    throw ex.getCause() instanceof IOException io ? io : new IOException(ex.getCause());
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while formatting", ex);
                }
            }
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    private static void freePorts(final int[] clientPorts, final int[] controllerPorts) throws IOException
    {
        final Set<Integer> taken = new HashSet<>();
        for (int i = 0; i < clientPorts.length; i++)
        {
            clientPorts[i] = distinctFreePort(taken);
            controllerPorts[i] = distinctFreePort(taken);
        }
    }

    @Override
    public String toString()
    {
        return "Apache Kafka " + version + ", " + size() + " nodes at " + bootstrap() + " (pids " + pids() +
            ", " + dataDir() + ")";
    }
}
