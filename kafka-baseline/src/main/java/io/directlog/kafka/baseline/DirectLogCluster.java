package io.directlog.kafka.baseline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * DirectLog's broker as a cluster of child JVMs on loopback, each one {@code ./directlog broker --node-id N --peers
 * ... --topics ...} (docs/replication.md): every partition of the declared topics is one Raft group over all nodes,
 * so the replication factor is the number of nodes. Each node has its own data directory ({@code node-N/}) and
 * output ({@code node-N.log}) under one parent.
 * <p>
 * {@link #start} returns once every node's Kafka port accepts connections; partitions may still be electing their
 * leaders (a client waits for them through Metadata). {@link #close()} stops all nodes at once (SIGTERM, which
 * closes each broker cleanly, grace, SIGKILL).
 * <p>
 * The entry point is given by the caller ({@code io.directlog.cli.Main}, which this module does not depend on); the
 * children run on this JVM's classpath.
 * <p>
 * Thread-safe: {@link #close()} may race with the members' shutdown hooks.
 */
public final class DirectLogCluster extends ChildCluster
{
    /**
     * How long the nodes may take to listen. Each opens one Raft group and one log per partition before it binds its
     * Kafka port; three nodes of 16 partitions starting at once under a load average of 33 on two cores had not
     * listened after 2 minutes (a node had opened 4 of its 16 logs).
     */
    private static final Duration START_TIMEOUT = Duration.ofMinutes(5);
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);

    private DirectLogCluster(final List<ChildProcess> members, final Path deleteOnClose, final Path dataDir,
        final int[] kafkaPorts)
    {
        super(members, deleteOnClose, dataDir, kafkaPorts);
    }

    /**
     * Starts the nodes and waits until each accepts Kafka connections.
     *
     * @param parent     the parent of the nodes' directories, or null for a new temporary one deleted on close.
     * @param nodes      how many nodes, at least 1.
     * @param topics     the cluster's topics, {@code name:partitions,...}.
     * @param mainClass  the class whose {@code main} runs {@code broker --node-id ...}, e.g.
     *                   {@code io.directlog.cli.Main}.
     * @param jvmOptions extra options for each child JVM, e.g. {@code -Xmx1g}.
     * @return the running cluster.
     * @throws IOException when a node exits or does not listen in time; the message carries the tail of its output,
     *                     and every node started is stopped.
     */
    public static DirectLogCluster start(final Path parent, final int nodes, final String topics,
        final String mainClass, final List<String> jvmOptions) throws IOException
    {
        if (nodes < 1)
        {
            throw new IllegalArgumentException("a cluster needs at least one node, got " + nodes);
        }
        final Path dataDir = parent == null ? Files.createTempDirectory("directlog-cluster-") : parent;
        Files.createDirectories(dataDir);
        final int[] kafkaPorts = new int[nodes];
        final List<String> peers = new ArrayList<>();
        final Set<Integer> taken = new HashSet<>();
        for (int i = 0; i < nodes; i++)
        {
            kafkaPorts[i] = distinctFreePort(taken);
            peers.add((i + 1) + "=127.0.0.1:" + kafkaPorts[i] + ":" + distinctFreePort(taken));
        }
        final List<ChildProcess> members = new ArrayList<>();
        try
        {
            for (int i = 0; i < nodes; i++)
            {
                final List<String> command = ChildProcess.javaCommand(System.getProperty("java.class.path"));
                command.addAll(DirectLogNode.ENGINE_JVM_FLAGS);
                command.addAll(clusterProperties());
                command.addAll(jvmOptions);
                command.addAll(List.of(mainClass, "broker", "--node-id", Integer.toString(i + 1), "--peers",
                    String.join(",", peers), "--topics", topics, "--dir",
                    dataDir.resolve("node-" + (i + 1)).toString()));
                members.add(new ChildProcess(ChildProcess.start(command, logFile(dataDir, i)), STOP_GRACE,
                    "directlog-cluster-node", null));
            }
            final long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            for (int i = 0; i < nodes; i++)
            {
                awaitListening(members.get(i), kafkaPorts[i], logFile(dataDir, i), deadline);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            ChildProcess.stopAll(members, false);
            ex.addSuppressed(new IOException("data directory kept for inspection: " + dataDir));
            throw ex;
        }
        return new DirectLogCluster(members, parent == null ? dataDir : null, dataDir, kafkaPorts);
    }

    /** The prefix of the system properties that tune a cluster node (transport, entry coalescing, ...). */
    static final String CLUSTER_PROPERTY_PREFIX = "directlog.cluster.";

    /**
     * This JVM's {@value #CLUSTER_PROPERTY_PREFIX}* system properties as {@code -D} options, so that
     * {@code DIRECTLOG_JAVA_OPTS=-Ddirectlog.cluster.rpc=grpc ./directlog bench-broker ...} reaches the nodes (the
     * children are other JVMs: without this they ran the default transport whatever the caller set).
     *
     * @return the options, sorted by name; empty when none is set.
     */
    static List<String> clusterProperties()
    {
        final List<String> out = new ArrayList<>();
        System.getProperties().stringPropertyNames().stream().filter(n -> n.startsWith(CLUSTER_PROPERTY_PREFIX))
            .sorted().forEach(n -> out.add("-D" + n + "=" + System.getProperty(n)));
        return out;
    }

    private static Path logFile(final Path dataDir, final int index)
    {
        return dataDir.resolve("node-" + (index + 1) + ".log");
    }

    private static void awaitListening(final ChildProcess member, final int port, final Path logFile,
        final long deadline) throws IOException
    {
        while (!KafkaNode.accepts(port))
        {
            if (!member.isAlive())
            {
                throw new IOException("a DirectLog cluster node exited with " + member.exitValue() +
                    " before it listened: " + ChildProcess.tail(logFile, 20));
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new IOException("a DirectLog cluster node did not listen within " + START_TIMEOUT + ": " +
                    ChildProcess.tail(logFile, 20));
            }
            try
            {
                Thread.sleep(100);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while starting a DirectLog cluster", ex);
            }
        }
    }

    @Override
    public String toString()
    {
        return "DirectLog's broker, " + size() + " nodes at " + bootstrap() + " (pids " + pids() + ", " +
            dataDir() + ")";
    }
}
