package io.directlog.replication.ratis;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerRpc;
import org.apache.ratis.server.RaftServerRpcWithProxy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a gRPC node's channels to its peers from sitting out gRPC's reconnect backoff, so that a candidate's vote
 * request reaches a peer that has just come back.
 * <p>
 * Why: Ratis's gRPC transport keeps one channel (two, with the heartbeat channel) per peer for all groups. A channel
 * whose peer is down goes to TRANSIENT_FAILURE and gRPC retries the connection with exponential backoff (1 s, then
 * x1.6 up to 120 s); every call made meanwhile fails at once with UNAVAILABLE. Ratis's log appender resets that
 * backoff on each error (a leader reaches a returning follower at once), but a vote request does not: a follower
 * that asked a dead leader's node for votes while it was down keeps a channel that may wait many seconds more after
 * the node is back. When the next leader dies and that follower needs the returned node's vote (its log is the
 * longer), the election fails until the backoff runs out: issue 22's failover over 5 s with gRPC. Ratis's Netty
 * transport reconnects on the next call, so it has no such wait.
 * <p>
 * Every {@code period}, for every peer of every group on the node, this calls the channel's
 * {@code resetConnectBackoff()} (a no-op on a connected or idle channel; on a failed one, an immediate connection
 * attempt). Ratis does not export that method (its protocol client is package-private), so it is reached by
 * reflection; if that fails (another Ratis version), a warning is logged once and the task stops: elections then
 * work as Ratis gives them, only slower after a restart.
 * <p>
 * Thread-safe: one scheduler thread does all the work.
 */
final class GrpcBackoffReset implements AutoCloseable
{
    /**
     * {@code -Ddirectlog.cluster.grpc.backoffReset=false} leaves gRPC's backoff alone: only to measure what this is
     * worth (docs/replication.md, "Transport").
     */
    static final String PROPERTY = "directlog.cluster.grpc.backoffReset";

    private static final Logger LOG = LoggerFactory.getLogger(GrpcBackoffReset.class);

    private final RaftServer server;
    private final ScheduledExecutorService scheduler;
    /** Written and read by the scheduler thread only. */
    private Method reset;

    private GrpcBackoffReset(final RaftServer server, final String nodeId)
    {
        this.server = server;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r ->
        {
            final Thread t = new Thread(r, "grpc-backoff-reset-" + nodeId);
            t.setDaemon(true);
            return t;
        });
    }

    /** @return false when {@value #PROPERTY} is {@code false}; true otherwise. */
    static boolean enabled()
    {
        return !"false".equalsIgnoreCase(System.getProperty(PROPERTY, "true").trim());
    }

    /**
     * Starts resetting the backoff of a gRPC server's peer channels.
     *
     * @param server the started Ratis server (gRPC transport).
     * @param nodeId this node's id, for the thread's name.
     * @param period how often; a fraction of the least election timeout, so a channel is ready before a candidate
     *               asks again.
     * @return the running task, stopped by {@link #close()}.
     */
    static GrpcBackoffReset start(final RaftServer server, final String nodeId, final Duration period)
    {
        final GrpcBackoffReset r = new GrpcBackoffReset(server, nodeId);
        r.scheduler.scheduleWithFixedDelay(r::resetAll, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
        return r;
    }

    private void resetAll()
    {
        try
        {
            final RaftServerRpc rpc = server.getServerRpc();
            if (!(rpc instanceof RaftServerRpcWithProxy<?, ?> withProxy))
            {
                throw new IllegalStateException("the server's RPC " + rpc.getClass().getName() + " has no proxies");
            }
            for (final RaftPeerId peer : peers())
            {
                final Object client = withProxy.getProxies().getProxy(peer);
                if (reset == null)
                {
                    reset = client.getClass().getMethod("resetConnectBackoff");
                    reset.setAccessible(true); // public method of a package-private Ratis class
                }
                reset.invoke(client);
            }
        }
        catch (final Exception e)
        {
            if (scheduler.isShutdown())
            {
                return; // the node is closing: its server's proxies go away under this run
            }
            // Anything else means Ratis changed under us; elections still work, with gRPC's backoff.
            LOG.warn("cannot reset gRPC reconnect backoff on {}; stopped (elections after a peer's restart may " +
                "wait out gRPC's backoff): {}", server.getId(), e.toString());
            scheduler.shutdown();
        }
    }

    private Set<RaftPeerId> peers() throws java.io.IOException
    {
        final Set<RaftPeerId> peers = new HashSet<>();
        for (final RaftGroup group : server.getGroups())
        {
            for (final RaftPeer peer : group.getPeers())
            {
                if (!peer.getId().equals(server.getId()))
                {
                    peers.add(peer.getId());
                }
            }
        }
        return peers;
    }

    @Override
    public void close()
    {
        scheduler.shutdownNow();
    }
}
