package io.directlog.kafka.baseline;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A broker cluster whose nodes are child JVMs on loopback under one data directory: what every such cluster holds
 * (its members, its data directory, its bootstrap) and how it is stopped. Subclasses say how the nodes are started.
 * <p>
 * Thread-safe: {@link #close()} may race with the members' shutdown hooks.
 */
abstract class ChildCluster implements BrokerUnderTest
{
    private final List<ChildProcess> members;
    private final Path deleteOnClose;
    private final Path dataDir;
    private final String bootstrap;

    /**
     * @param members       the running nodes, in node-id order.
     * @param deleteOnClose the data directory when it was made for this cluster, else null.
     * @param dataDir       the parent of the nodes' directories and output files.
     * @param clientPorts   each node's client port, in node-id order.
     */
    ChildCluster(final List<ChildProcess> members, final Path deleteOnClose, final Path dataDir,
        final int[] clientPorts)
    {
        this.members = List.copyOf(members);
        this.deleteOnClose = deleteOnClose;
        this.dataDir = dataDir;
        final List<String> addresses = new ArrayList<>();
        for (final int port : clientPorts)
        {
            addresses.add("127.0.0.1:" + port);
        }
        this.bootstrap = String.join(",", addresses);
    }

    /** @return a free loopback port that is not in {@code taken}, which it is added to. */
    static int distinctFreePort(final Set<Integer> taken) throws IOException
    {
        int port = KafkaNode.freeLoopbackPort();
        while (!taken.add(port))
        {
            port = KafkaNode.freeLoopbackPort();
        }
        return port;
    }

    @Override
    public final String bootstrap()
    {
        return bootstrap;
    }

    /** @return every node's process id, in node-id order, for measuring their CPU. */
    public final List<Long> pids()
    {
        return members.stream().map(ChildProcess::pid).toList();
    }

    /** @return the parent of the nodes' directories and output files. */
    public final Path dataDir()
    {
        return dataDir;
    }

    /** @return how many nodes the cluster has. */
    final int size()
    {
        return members.size();
    }

    /**
     * Stops every node at once (one after the other, the last ones would wait out their grace: a Kafka broker's clean
     * shutdown needs a controller quorum), then deletes the data directory if it was made here. Idempotent.
     */
    @Override
    public final void close()
    {
        ChildProcess.stopAll(members);
        if (deleteOnClose != null)
        {
            ChildProcess.deleteRecursively(deleteOnClose);
        }
    }
}
