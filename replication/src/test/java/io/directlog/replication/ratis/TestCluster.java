package io.directlog.replication.ratis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

import io.directlog.replication.BatchStamper;
import io.directlog.replication.ReplicatedBatch;
import io.directlog.replication.ReplicationException;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.StoreConfig;

/**
 * Three replication nodes in this JVM on 127.0.0.1, each with its own LogStore and Raft directory, hosting one
 * partition. Nodes stop (their Raft server and store close, as a process exit would leave them, minus the crash)
 * and start again on the same port and directories. Every wait is bounded and fails the test when it runs out.
 */
final class TestCluster implements AutoCloseable
{
    static final String PARTITION = "orders-0";
    static final Duration ELECTION_TIMEOUT_MIN = Duration.ofMillis(600);
    static final Duration ELECTION_TIMEOUT_MAX = Duration.ofMillis(1200);
    static final Duration WAIT = Duration.ofSeconds(30);

    final Node[] nodes;
    private final List<RatisReplicationNode.Peer> peers = new ArrayList<>();
    private final boolean cacheBatches;
    private final long createdNanos = System.nanoTime();

    /** One member: its addresses and directories survive stop/start. */
    final class Node
    {
        final RatisReplicationNode.Peer peer;
        final Path directory;
        LogStore store;
        RatisReplicationNode node;
        RatisPartition partition;
        Process process;

        Node(final RatisReplicationNode.Peer peer, final Path directory)
        {
            this.peer = peer;
            this.directory = directory;
        }

        void start()
        {
            step("start " + peer.id());
            store = openStore(directory);
            try
            {
                node = startNode(peer, directory, store, cacheBatches);
            }
            catch (final IOException e)
            {
                store.close();
                throw new UncheckedIOException(e);
            }
            partition = (RatisPartition)node.partition(PARTITION, peers, WAIT);
        }

        /** Starts this member in a JVM of its own (ReplicaProcess), so that it can be killed with SIGKILL. */
        void startProcess() throws IOException
        {
            step("start " + peer.id() + " as a separate JVM");
            final List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            for (final String arg : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments())
            {
                if (arg.startsWith("--add-opens") || arg.startsWith("--enable-native-access"))
                {
                    command.add(arg);
                }
            }
            command.add("-D" + RaftTransport.PROPERTY + "=" + RaftTransport.configured().propertyValue());
            command.addAll(List.of("-Xmx256m", "-XX:MaxDirectMemorySize=256m", "-cp",
                System.getProperty("java.class.path"), ReplicaProcess.class.getName(), directory.toString(),
                peer.id(), Boolean.toString(cacheBatches), peersSpec()));
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
            final java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(1);
            final Thread echo = new Thread(() ->
            {
                try (java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(
                    process.getInputStream(), java.nio.charset.StandardCharsets.UTF_8)))
                {
                    for (String line = out.readLine(); line != null; line = out.readLine())
                    {
                        if (line.equals(ReplicaProcess.READY))
                        {
                            ready.countDown();
                        }
                        System.out.println("[" + peer.id() + " process] " + line);
                    }
                }
                catch (final IOException e)
                {
                    System.out.println("[" + peer.id() + " process] output closed: " + e);
                }
            }, "echo-" + peer.id());
            echo.setDaemon(true);
            echo.start();
            try
            {
                if (!ready.await(2 * WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                {
                    process.destroyForcibly();
                    throw new AssertionError(peer.id() + " process not ready within " + 2 * WAIT.toSeconds() + " s");
                }
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        /** SIGKILL: no close, no flush, no clean-shutdown record; waits (bounded) until the process is gone. */
        void killProcess()
        {
            step("kill -9 " + peer.id());
            process.destroyForcibly();
            try
            {
                if (!process.waitFor(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                {
                    throw new AssertionError(peer.id() + " process still alive after SIGKILL");
                }
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            process = null;
        }

        void stop()
        {
            if (process != null)
            {
                killProcess();
            }
            if (store == null)
            {
                return;
            }
            step("stop " + peer.id());
            try
            {
                if (partition != null)
                {
                    partition.close();
                }
                if (node != null)
                {
                    node.close();
                }
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException(e);
            }
            finally
            {
                store.close();
                node = null;
                partition = null;
                store = null;
            }
        }

        boolean running()
        {
            return node != null;
        }

        String id()
        {
            return peer.id();
        }
    }

    static LogStore openStore(final Path directory)
    {
        return LogStore.open(StoreConfig.builder(directory.resolve("store"))
            .memoryBudget(16L << 20)
            .writerThreads(1)
            .writerCpus(StoreConfig.WRITER_CPUS_NONE)
            .defaultLogConfig(LogConfig.builder().segmentSize(1 << 20).build())
            .build());
    }

    static RatisReplicationNode startNode(final RatisReplicationNode.Peer peer, final Path directory,
        final LogStore store, final boolean cacheBatches) throws IOException
    {
        return RatisReplicationNode.start(new RatisReplicationNode.Config(peer, directory.resolve("raft"), store,
            BatchStamper.KAFKA_V2, ELECTION_TIMEOUT_MIN, ELECTION_TIMEOUT_MAX, cacheBatches));
    }

    /** id@host:port,... */
    String peersSpec()
    {
        final List<String> specs = new ArrayList<>();
        peers.forEach(p -> specs.add(p.id() + "@" + p.host() + ":" + p.port()));
        return String.join(",", specs);
    }

    static List<RatisReplicationNode.Peer> parsePeers(final String spec)
    {
        final List<RatisReplicationNode.Peer> parsed = new ArrayList<>();
        for (final String one : spec.split(","))
        {
            final String[] idAndAddress = one.split("@");
            final String[] hostAndPort = idAndAddress[1].split(":");
            parsed.add(new RatisReplicationNode.Peer(idAndAddress[0], hostAndPort[0],
                Integer.parseInt(hostAndPort[1])));
        }
        return parsed;
    }

    TestCluster(final Path root, final boolean cacheBatches) throws IOException
    {
        this.cacheBatches = cacheBatches;
        nodes = new Node[3];
        for (int i = 0; i < nodes.length; i++)
        {
            final RatisReplicationNode.Peer peer = new RatisReplicationNode.Peer("n" + i, "127.0.0.1", freePort());
            peers.add(peer);
            nodes[i] = new Node(peer, Files.createDirectories(root.resolve("n" + i)));
        }
    }

    /** Prints a step with the time since the cluster was created: where a slow test spends its time. */
    void step(final String what)
    {
        System.out.printf("[%6d ms] %s%n", java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(
            System.nanoTime() - createdNanos), what);
    }

    void startAll()
    {
        // Each start joins the group; a group of three elects once two are up.
        Arrays.stream(nodes).forEach(Node::start);
    }

    /** @return the node whose replica leads and is ready, once one does (fails the test after WAIT). */
    Node awaitLeader()
    {
        if (Arrays.stream(nodes).noneMatch(n -> n.running() && n.partition.isLeader()))
        {
            step("awaiting a leader");
        }
        final Node[] found = new Node[1];
        await("a ready leader", () ->
        {
            for (final Node n : nodes)
            {
                if (n.running() && n.partition.isLeader())
                {
                    found[0] = n;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    /** Opens another partition on every running node; returns the replicas in node order. */
    List<RatisPartition> openPartition(final String name)
    {
        final List<RatisPartition> replicas = new ArrayList<>();
        for (final Node n : nodes)
        {
            replicas.add((RatisPartition)n.node.partition(name, peers, WAIT));
        }
        return replicas;
    }

    Node follower(final Node leader)
    {
        return Arrays.stream(nodes).filter(n -> n != leader && n.running()).findFirst().orElseThrow();
    }

    /**
     * Appends batches ids [from, to) through whichever node leads, 16 in flight at a time. An append that fails
     * retriably has an unknown outcome (a later leader may still commit it): its id goes to unknownOutcome and is
     * never reused, so no id can legitimately appear twice.
     *
     * @return the ids acknowledged, with their base offsets.
     */
    List<long[]> appendAll(final long from, final long to, final List<Long> unknownOutcome)
    {
        step("append " + from + ".." + to);
        final List<long[]> acked = new ArrayList<>();
        final List<CompletableFuture<Long>> window = new ArrayList<>();
        final List<Long> windowIds = new ArrayList<>();
        for (long id = from; id < to; id++)
        {
            final Node leader = awaitLeader();
            window.add(leader.partition.append(TestBatches.batch(id), TestBatches.recordCount(id)));
            windowIds.add(id);
            if (window.size() == 16 || id == to - 1)
            {
                for (int i = 0; i < window.size(); i++)
                {
                    final Optional<Long> offset = outcome(window.get(i));
                    if (offset.isPresent())
                    {
                        acked.add(new long[] {windowIds.get(i), offset.get()});
                    }
                    else
                    {
                        unknownOutcome.add(windowIds.get(i));
                    }
                }
                window.clear();
                windowIds.clear();
            }
        }
        step("appended " + acked.size() + " of " + (to - from));
        return acked;
    }

    /** @return the base offset when the append was acknowledged, empty when it failed retriably. */
    static Optional<Long> outcome(final CompletableFuture<Long> append)
    {
        try
        {
            return Optional.of(append.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        }
        catch (final ExecutionException e)
        {
            if (e.getCause() instanceof ReplicationException r && r.retriable())
            {
                return Optional.empty();
            }
            throw new AssertionError("append failed for good", e.getCause());
        }
        catch (final TimeoutException e)
        {
            throw new AssertionError("append neither acknowledged nor failed within " + WAIT, e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Waits until every running replica's high watermark reaches the leader's. */
    void awaitConverged(final Node leader)
    {
        final long hw = leader.partition.highWatermark();
        await("every running replica at high watermark " + hw, () -> Arrays.stream(nodes)
            .filter(Node::running).allMatch(n -> n.partition.highWatermark() >= hw));
    }

    /** Every committed batch of a replica, through the partition API (up to its high watermark). */
    static List<ReplicatedBatch> readAll(final Node n)
    {
        final List<ReplicatedBatch> all = new ArrayList<>();
        long offset = n.partition.startOffset();
        while (offset < n.partition.highWatermark())
        {
            final List<ReplicatedBatch> some = n.partition.read(offset, 64 << 10);
            if (some.isEmpty())
            {
                throw new AssertionError(n.id() + ": nothing read at " + offset + " below the high watermark " +
                    n.partition.highWatermark());
            }
            all.addAll(some);
            offset = some.get(some.size() - 1).nextOffset();
        }
        return all;
    }

    /** The raw DirectLog payloads (frame + stamped batch) of a replica below limit, with offsets and counts. */
    static List<String> rawRecords(final Node n, final long limit)
    {
        final Log log = n.partition.log();
        final List<String> out = new ArrayList<>();
        long offset = log.startOffset();
        while (offset < limit)
        {
            try (RecordBatch batch = log.read(offset, 64 << 10))
            {
                if (batch.isEmpty())
                {
                    throw new AssertionError(n.id() + ": log shows nothing at " + offset + " below " + limit);
                }
                for (final Record r : batch)
                {
                    if (r.offset() >= limit)
                    {
                        break;
                    }
                    out.add(r.offset() + "/" + r.recordCount() + "/" + java.util.HexFormat.of().formatHex(r.payloadBytes()));
                    offset = r.nextOffset();
                }
            }
        }
        return out;
    }

    static void await(final String what, final BooleanSupplier condition)
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out after " + WAIT + " waiting for " + what);
            }
            try
            {
                Thread.sleep(20);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    static int freePort() throws IOException
    {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    @Override
    public void close()
    {
        step("closing the cluster");
        for (final Node n : nodes)
        {
            try
            {
                n.stop();
            }
            catch (final RuntimeException e)
            {
                System.err.println("closing " + n.id() + ": " + e);
            }
        }
    }
}
