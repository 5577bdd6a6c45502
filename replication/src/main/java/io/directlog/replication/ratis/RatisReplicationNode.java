package io.directlog.replication.ratis;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

import io.directlog.replication.BatchStamper;
import io.directlog.replication.ReplicatedPartition;
import io.directlog.replication.ReplicationException;
import io.directlog.storage.LogStore;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's replication engine: a Ratis server (one port, gRPC or Netty: {@link RaftTransport}) hosting one Raft
 * group per partition, each group's batches in a log of the node's {@link LogStore}. The store is the caller's: the
 * node neither opens nor closes it.
 * <p>
 * A partition's group id and log name derive from its name, so every node agrees on them without a registry, and a
 * restarted node finds its groups in the Raft directory and its batches in the store.
 * <p>
 * Thread-safe.
 */
public final class RatisReplicationNode implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(RatisReplicationNode.class);
    private static final int READ_THREADS = 2;
    /**
     * After a JVM pause longer than {@code raft.server.close.threshold} (60 s by default), Ratis's pause monitor
     * closes the whole RaftServer (RaftServerProxy.handleJvmPause): the node never votes or applies again, while its
     * process runs on. A pause is no reason to leave the group: a broker stopped by GC, a VM suspend or SIGSTOP is,
     * when it resumes, a follower with a stale term, which Raft already fences (its appends fail, the new leader
     * truncates its tail) and which catches up like any lagging follower. So the threshold is set out of reach
     * (a year); Ratis's other answer to a pause, a leader stepping down, stays. Should Ratis close the server
     * anyway, {@link #start(Config, Consumer)}'s listener hears of it.
     */
    public static final Duration PAUSE_CLOSE_THRESHOLD_DEFAULT = Duration.ofDays(365);

    private final Config config;
    private final RaftServer server;
    private final ExecutorService readExecutor;
    private final ClientId adminClientId = ClientId.randomId();
    private final AtomicLong adminCallIds = new AtomicLong();
    private final LongAdder leaderChanges;
    /** gRPC only: keeps the channels to peers out of reconnect backoff; null with Netty. */
    private final GrpcBackoffReset backoffReset;
    private final ServerLossWatch lossWatch;

    /**
     * A member of a partition's group.
     *
     * @param id   the node's id (letters, digits, '-', '_').
     * @param host the address its Raft port listens on.
     * @param port the Raft port.
     */
    public record Peer(String id, String host, int port)
    {
        RaftPeer toRaftPeer()
        {
            return RaftPeer.newBuilder().setId(id).setAddress(new InetSocketAddress(host, port)).build();
        }
    }

    /**
     * A node's settings.
     *
     * @param self               this node.
     * @param raftDirectory      where Ratis keeps its logs and votes (one sub-directory per group).
     * @param store              the store holding the partitions' batches (opened and closed by the caller).
     * @param stamper            how batches get their offset and epoch written in.
     * @param electionTimeoutMin the least time a follower waits for a leader before it stands for election.
     * @param electionTimeoutMax the most; the election timeout is random in [min, max].
     * @param cacheBatches       whether the Raft log's cache keeps batches in memory until followers have them;
     *                           without it the leader reads every batch back from DirectLog to send it.
     * @param transport          Ratis's transport for this node; every node of a group must use the same.
     * @param pauseCloseThreshold  a JVM pause longer than this makes Ratis close the server for good
     *                           ({@link #PAUSE_CLOSE_THRESHOLD_DEFAULT}); lower only to test what follows.
     */
    public record Config(Peer self, Path raftDirectory, LogStore store, BatchStamper stamper,
                         Duration electionTimeoutMin, Duration electionTimeoutMax, boolean cacheBatches,
                         RaftTransport transport, Duration pauseCloseThreshold)
    {
        /**
         * Checks the settings.
         *
         * @param self               this node.
         * @param raftDirectory      where Ratis keeps its logs and votes.
         * @param store              the store holding the partitions' batches.
         * @param stamper            how batches get their offset and epoch written in.
         * @param electionTimeoutMin the least election timeout.
         * @param electionTimeoutMax the most election timeout.
         * @param cacheBatches       whether the Raft log's cache keeps batches in memory.
         * @param transport          Ratis's transport.
         * @param pauseCloseThreshold  the JVM pause after which Ratis closes the server.
         */
        public Config
        {
            Objects.requireNonNull(transport, "transport");
            Objects.requireNonNull(pauseCloseThreshold, "pauseCloseThreshold");
            if (pauseCloseThreshold.isNegative() || pauseCloseThreshold.isZero())
            {
                throw new IllegalArgumentException("pauseCloseThreshold must be positive, got " + pauseCloseThreshold);
            }
            Objects.requireNonNull(self, "self");
            Objects.requireNonNull(raftDirectory, "raftDirectory");
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(stamper, "stamper");
            Objects.requireNonNull(electionTimeoutMin, "electionTimeoutMin");
            Objects.requireNonNull(electionTimeoutMax, "electionTimeoutMax");
            if (electionTimeoutMin.isNegative() || electionTimeoutMin.isZero() ||
                electionTimeoutMax.compareTo(electionTimeoutMin) < 0)
            {
                throw new IllegalArgumentException("election timeouts must satisfy 0 < min <= max; got " +
                    electionTimeoutMin + ", " + electionTimeoutMax);
            }
        }

        /**
         * Settings with the transport {@link RaftTransport#configured()} names (the system property
         * {@value RaftTransport#PROPERTY}, else {@link RaftTransport#DEFAULT}).
         *
         * @param self               this node.
         * @param raftDirectory      where Ratis keeps its logs and votes.
         * @param store              the store holding the partitions' batches.
         * @param stamper            how batches get their offset and epoch written in.
         * @param electionTimeoutMin the least election timeout.
         * @param electionTimeoutMax the most election timeout.
         * @param cacheBatches       whether the Raft log's cache keeps batches in memory.
         * @throws IllegalArgumentException when the property names no transport.
         */
        public Config(final Peer self, final Path raftDirectory, final LogStore store, final BatchStamper stamper,
            final Duration electionTimeoutMin, final Duration electionTimeoutMax, final boolean cacheBatches)
        {
            this(self, raftDirectory, store, stamper, electionTimeoutMin, electionTimeoutMax, cacheBatches,
                RaftTransport.configured(), PAUSE_CLOSE_THRESHOLD_DEFAULT);
        }
    }

    private RatisReplicationNode(final Config config, final RaftServer server, final ExecutorService readExecutor,
        final LongAdder leaderChanges, final GrpcBackoffReset backoffReset, final ServerLossWatch lossWatch)
    {
        this.lossWatch = lossWatch;
        this.leaderChanges = leaderChanges;
        this.backoffReset = backoffReset;
        this.config = config;
        this.server = server;
        this.readExecutor = readExecutor;
    }

    /**
     * Starts the node: binds its Raft port and reopens the groups found in its Raft directory. If Ratis closes a
     * group under the running node, the node only logs it: see {@link #start(Config, Consumer)}.
     *
     * @param config the settings.
     * @return the running node.
     * @throws IOException when the server cannot start (port taken, directory unusable).
     */
    public static RatisReplicationNode start(final Config config) throws IOException
    {
        return start(config, reason -> LOG.error("{}", reason));
    }

    /**
     * Starts the node: binds its Raft port and reopens the groups found in its Raft directory.
     *
     * @param config the settings.
     * @param onLost told once, on a Ratis thread, when Ratis closes a group while this node is not closing: the
     *               replica is dead until the process restarts, so the owner should stop (fail-stop) rather than
     *               run on without it.
     * @return the running node.
     * @throws IOException when the server cannot start (port taken, directory unusable).
     */
    public static RatisReplicationNode start(final Config config, final Consumer<String> onLost) throws IOException
    {
        RatisNettyUnsafe.avoidOnWarningJdks();
        final RaftProperties p = properties(config);
        // Reads for lagging followers may go to disk; two threads bound what they take from the appends' cores.
        final ExecutorService readExecutor = Executors.newFixedThreadPool(READ_THREADS, r ->
        {
            final Thread t = new Thread(r, "replication-read-" + config.self().id());
            t.setDaemon(true);
            return t;
        });
        final LongAdder leaderChanges = new LongAdder();
        final ServerLossWatch lossWatch = new ServerLossWatch(config.self().id(), onLost);
        final RaftServer server = RaftServer.newBuilder()
            .setServerId(RaftPeerId.valueOf(config.self().id()))
            .setProperties(p)
            .setStateMachineRegistry(groupId -> new PartitionStateMachine(logName(groupId), config.store(),
                config.stamper(), readExecutor, leaderChanges, lossWatch))
            .build();
        try
        {
            server.start();
        }
        catch (final IOException | RuntimeException e)
        {
            lossWatch.closing();
            server.close();
            readExecutor.shutdownNow();
            throw e;
        }
        // a quarter of the least election timeout: a returned peer's channel is ready before a candidate, whose
        // timeout is at least that long, asks again
        final GrpcBackoffReset backoffReset = config.transport() == RaftTransport.GRPC && GrpcBackoffReset.enabled() ?
            GrpcBackoffReset.start(server, config.self().id(), config.electionTimeoutMin().dividedBy(4)) : null;
        return new RatisReplicationNode(config, server, readExecutor, leaderChanges, backoffReset, lossWatch);
    }

    /** @return the Ratis settings a node of this config runs with. */
    static RaftProperties properties(final Config config)
    {
        final RaftProperties p = new RaftProperties();
        // gRPC or Netty: RaftTransport says what each does to heartbeats under load (issue 22's leader churn)
        config.transport().apply(p, config.self().host(), config.self().port());
        RaftServerConfigKeys.setStorageDir(p, List.of(config.raftDirectory().toFile()));
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, millis(config.electionTimeoutMin()));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, millis(config.electionTimeoutMax()));
        // A leader's gRPC appender waits after each failed call to a follower by this policy (errors of its
        // append and heartbeat streams both count). Ratis's default (1ms x10, 1s x20, then 5s, each randomised
        // 0.5-1.5x) can reach 5 s between tries within the 10-25 s a killed broker takes to come back here, so the
        // returned follower could stay unreached (not caught up, so no use as the next leader) for up to 7.5 s
        // more, into the next failover (issue 22). A try every heartbeat interval costs one refused connection per
        // group while a follower is down; Ratis's Netty appender retries every 25 ms (raft.server.rpc.sleep.time).
        RaftServerConfigKeys.Log.Appender.setRetryPolicy(p, "1ms,10," +
            Math.max(1, config.electionTimeoutMin().toMillis() / 2) + "ms," + Integer.MAX_VALUE);
        // The Raft log holds 16-byte headers: small segments, little preallocation.
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf("8MB"));
        RaftServerConfigKeys.Log.setPreallocatedSize(p, SizeInBytes.valueOf("256KB"));
        RaftServerConfigKeys.Log.StateMachineData.setCachingEnabled(p, config.cacheBatches());
        // A snapshot holds an index, not batches: installing one would leave a hole in a follower's log
        // (PartitionStateMachine.notifyInstallSnapshotFromLeader).
        RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, false);
        RaftServerConfigKeys.setCloseThreshold(p, millis(config.pauseCloseThreshold()));
        // A follower may count an entry committed only once its own Raft log holds the leader's entry there. Ratis
        // 3.3.0's default "compose" appendEntries queues each append and checks a later request (a heartbeat, or
        // a retry of a queued one) against the queue, so that request can raise the commit index over indexes
        // whose conflicting entries the queued append has not truncated yet; the flush index that caps it still
        // counts those entries. Ratis then applies the replica's own uncommitted entries there and the high
        // watermark covers batches the new leader never had (issue 22: a resumed old leader, high watermark 188
        // over its term-1 entries 17-18, could then never take the new leader's entries). Without compose, each
        // appendEntries truncates and appends Raft's log (and calls truncate and write here) before it may move
        // the commit index.
        RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(p, false);
        return p;
    }

    /**
     * Returns this node's replica of a partition, joining its group when this node does not host it yet.
     *
     * @param name    the partition's name (e.g. "orders-3"); the same on every node.
     * @param peers   every replica of the partition, this node included.
     * @param timeout how long to wait for the group to be set up locally.
     * @return the local replica.
     * @throws IllegalArgumentException when peers does not include this node.
     * @throws ReplicationException     when the group cannot be added.
     */
    public ReplicatedPartition partition(final String name, final List<Peer> peers, final Duration timeout)
    {
        if (peers.stream().noneMatch(peer -> peer.id().equals(config.self().id())))
        {
            throw new IllegalArgumentException("peers " + peers + " do not include this node " + config.self().id());
        }
        final RaftGroupId groupId = groupId(name);
        try
        {
            if (!hosts(groupId))
            {
                final List<RaftPeer> raftPeers = new ArrayList<>();
                peers.forEach(peer -> raftPeers.add(peer.toRaftPeer()));
                final RaftClientReply reply = server.groupManagementAsync(GroupManagementRequest.newAdd(
                    adminClientId, server.getId(), adminCallIds.incrementAndGet(),
                    RaftGroup.valueOf(groupId, raftPeers))).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                if (!reply.isSuccess())
                {
                    throw new ReplicationException("cannot add the group of partition " + name + ": " +
                        reply.getException(), false, reply.getException());
                }
            }
            return new RatisPartition(name, server, server.getDivision(groupId), config.stamper());
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new ReplicationException("interrupted while adding partition " + name, true, e);
        }
        catch (final ReplicationException e)
        {
            throw e;
        }
        catch (final Exception e)
        {
            throw new ReplicationException("cannot add the group of partition " + name + ": " + e, false, e);
        }
    }

    /**
     * Takes a snapshot of a partition's replica here: records its applied index, so that a restart replays the Raft
     * log from there, and lets Ratis purge older Raft-log segments (never past what every peer has committed).
     *
     * @param name    the partition.
     * @param timeout how long to wait.
     * @return the Raft index the snapshot covers.
     * @throws ReplicationException when the snapshot fails.
     */
    public long snapshot(final String name, final Duration timeout)
    {
        try
        {
            final RaftClientReply reply = server.snapshotManagementAsync(SnapshotManagementRequest.newCreate(
                adminClientId, server.getId(), groupId(name), adminCallIds.incrementAndGet(), timeout.toMillis(), 1))
                .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!reply.isSuccess())
            {
                throw new ReplicationException("snapshot of " + name + " failed: " + reply.getException(), true,
                    reply.getException());
            }
            return reply.getLogIndex();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new ReplicationException("interrupted while taking a snapshot of " + name, true, e);
        }
        catch (final ReplicationException e)
        {
            throw e;
        }
        catch (final Exception e)
        {
            throw new ReplicationException("snapshot of " + name + " failed: " + e, true, e);
        }
    }

    private boolean hosts(final RaftGroupId groupId)
    {
        for (final RaftGroupId id : server.getGroupIds())
        {
            if (id.equals(groupId))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @return how many times a replica on this node saw its group's leader change since the node started (Ratis's
     *         notifyLeaderChanged: each group's first leader counts once, then every election won by anyone). On a
     *         healthy idle cluster it stops moving once every group has its first leader.
     */
    public long leaderChanges()
    {
        return leaderChanges.sum();
    }

    /** @return the transport this node's Raft traffic uses. */
    public RaftTransport transport()
    {
        return config.transport();
    }

    /** @return this node's id. */
    public String id()
    {
        return config.self().id();
    }

    /**
     * @param partition the partition's name.
     * @return the name of the DirectLog log that holds the partition's batches on every node.
     */
    public static String logName(final String partition)
    {
        return logName(groupId(partition));
    }

    static String logName(final RaftGroupId groupId)
    {
        return "raft-" + groupId.getUuid();
    }

    static RaftGroupId groupId(final String partition)
    {
        return RaftGroupId.valueOf(UUID.nameUUIDFromBytes(("directlog-partition:" + partition)
            .getBytes(StandardCharsets.UTF_8)));
    }

    private static TimeDuration millis(final Duration d)
    {
        return TimeDuration.valueOf(d.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Stops the Raft server: this node's replicas leave their groups until it starts again. The store stays open. */
    @Override
    public void close() throws IOException
    {
        lossWatch.closing();
        if (backoffReset != null)
        {
            backoffReset.close();
        }
        try
        {
            server.close();
        }
        finally
        {
            readExecutor.shutdownNow();
        }
    }
}
