package io.directlog.replication.ratis;

import java.nio.file.Path;
import java.util.List;

import io.directlog.storage.LogStore;

/**
 * One replica in a JVM of its own, for the SIGKILL test: opens its store, starts its node, joins the partition,
 * prints {@link #READY}, and runs until its standard input closes (the test process ended) or it is killed.
 * Arguments: node directory, node id, cache batches (true/false), peers (id@host:port,...).
 */
public final class ReplicaProcess
{
    static final String READY = "REPLICA-READY";

    private ReplicaProcess()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path directory = Path.of(args[0]);
        final String id = args[1];
        final boolean cacheBatches = Boolean.parseBoolean(args[2]);
        final List<RatisReplicationNode.Peer> peers = TestCluster.parsePeers(args[3]);
        final RatisReplicationNode.Peer self = peers.stream().filter(p -> p.id().equals(id)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException(id + " is not among " + args[3]));
        try (LogStore store = TestCluster.openStore(directory);
             RatisReplicationNode node = TestCluster.startNode(self, directory, store, cacheBatches))
        {
            node.partition(TestCluster.PARTITION, peers, TestCluster.WAIT);
            System.out.println(READY);
            System.out.flush();
            while (System.in.read() != -1)
            {
                // Nothing to read: the parent never writes; end of input means it is gone.
            }
        }
    }
}
