package io.directlog.broker;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Three (or N) cluster brokers, each a JVM of its own ({@link ClusterNodeMain}) on 127.0.0.1 with free Kafka and
 * Raft ports and its own data directory, for faults only a process can have: kill -9 and SIGSTOP. Roles, high
 * watermarks and replica digests come from the nodes' debug answers ({@link ClusterNodeProcess#ask}).
 * <p>
 * Not thread-safe: driven by the test thread.
 */
final class ProcessCluster implements AutoCloseable
{
    /** How long a running node may take to answer a question (a loaded machine, a GC pause). */
    static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(30);
    /**
     * Raft election timeouts of the test cluster, half the broker's defaults: loopback round trips are microseconds,
     * so what a timeout must outlast is a scheduling stall of a loaded machine (Ratis heartbeats every min/2 = 250
     * ms). The failover's election part is about the timeout drawn plus a vote; -Ddirectlog.cluster.electionMinMs /
     * electionMaxMs override.
     */
    static final Duration ELECTION_TIMEOUT_MIN = Duration.ofMillis(Long.getLong("directlog.cluster.electionMinMs",
        500));
    /** See {@link #ELECTION_TIMEOUT_MIN}. */
    static final Duration ELECTION_TIMEOUT_MAX = Duration.ofMillis(Long.getLong("directlog.cluster.electionMaxMs",
        1000));
    /**
     * The suite's consumers use no group (replicated group offsets are tested in-JVM), so one offsets partition: each
     * is a Raft group every start constructs and recovers, and whose heartbeats load the machine meanwhile.
     */
    static final int OFFSETS_PARTITIONS = 1;
    /** How often a role or a high watermark is polled: there is no event to wait on across processes. */
    private static final long POLL_MILLIS = 25;

    /**
     * One partition as one replica sees it.
     *
     * @param leader      whether this replica leads and is ready for appends.
     * @param leaderId    the leader it knows of ("-" for none).
     * @param epoch       its Raft term.
     * @param hw          its high watermark.
     * @param end         its log end (committed or not).
     * @param changedAt   when it last saw a leader change (wall-clock millis, -1: none).
     * @param readyAt     when it became the ready Raft leader of its term (-1: it does not lead).
     * @param askedAt     when the first append of its term as leader reached its broker (-1: none yet).
     * @param takenOverAt when its broker had rebuilt the producer table and accepted appends (-1: not yet).
     */
    record Replica(boolean leader, String leaderId, long epoch, long hw, long end, long changedAt, long readyAt,
                   long askedAt, long takenOverAt)
    {
    }

    private final ClusterConfig cluster;
    private final String peers;
    private final String topics;
    private final List<Path> dirs = new ArrayList<>();
    private final Path root;
    private final ClusterNodeProcess[] nodes;
    /** Processes started and not yet listening ({@link #launch}). */
    private final ClusterNodeProcess.Launched[] launching;
    private final long[] launchedAt;
    /** Every start's phase durations (launch to ready, and the node's own), key to values in start order. */
    private final Map<String, List<Long>> startPhases = new java.util.LinkedHashMap<>();
    /** The JVM pause after which Ratis closes a node's Raft server; null for the broker's default. */
    private Duration raftPauseCloseThreshold;

    ProcessCluster(final String name, final int size, final Map<String, Integer> topicPartitions) throws IOException
    {
        root = BrokerTestSupport.newDirectory(name);
        final List<ClusterConfig.Node> list = new ArrayList<>();
        final int[] ports = BrokerCluster.freePorts(2 * size);
        final StringJoiner p = new StringJoiner(",");
        for (int i = 0; i < size; i++)
        {
            final ClusterConfig.Node n = new ClusterConfig.Node(i + 1, BrokerCluster.HOST, ports[2 * i],
                ports[2 * i + 1]);
            list.add(n);
            p.add(n.id() + "=" + n.host() + ":" + n.kafkaPort() + ":" + n.raftPort());
            dirs.add(java.nio.file.Files.createDirectories(root.resolve("n" + n.id())));
        }
        final StringJoiner t = new StringJoiner(",");
        topicPartitions.forEach((topic, count) -> t.add(topic + ":" + count));
        cluster = new ClusterConfig(list, topicPartitions, ELECTION_TIMEOUT_MIN, ELECTION_TIMEOUT_MAX,
            OFFSETS_PARTITIONS);
        peers = p.toString();
        topics = t.toString();
        nodes = new ClusterNodeProcess[size];
        launching = new ClusterNodeProcess.Launched[size];
        launchedAt = new long[size];
        System.out.println("CLUSTER-LOGS " + name + ": " + logs());
    }

    /** @return where the nodes' logs are (Ratis and broker at INFO, with the JVM's own output), for failure messages. */
    String logs()
    {
        return root.resolve("node-{1.." + nodes.length + "}.out").toString();
    }

    /**
     * Lowers the JVM pause after which Ratis closes the Raft server of the nodes started from now on.
     *
     * @param threshold the pause.
     */
    void raftPauseCloseThreshold(final Duration threshold)
    {
        raftPauseCloseThreshold = threshold;
    }

    int size()
    {
        return nodes.length;
    }

    /** @return the election timeout's maximum: a pause longer than it lets the others elect a leader. */
    Duration electionTimeoutMax()
    {
        return cluster.electionTimeoutMax();
    }

    ClusterConfig.Node address(final int node)
    {
        return cluster.nodes().get(node);
    }

    /** Starts every node that is not running, all at once (a JVM start is long), and waits until each listens. */
    void startAll() throws IOException
    {
        for (int i = 0; i < nodes.length; i++)
        {
            if (nodes[i] == null || !nodes[i].alive())
            {
                launch(i);
            }
        }
        for (int i = 0; i < nodes.length; i++)
        {
            if (launching[i] != null)
            {
                awaitStarted(i);
            }
        }
    }

    /** Starts node i over its directory, on its ports, and waits until it listens. */
    void start(final int i) throws IOException
    {
        launch(i);
        awaitStarted(i);
    }

    /**
     * Starts node i's process and returns at once: the JVM's start overlaps what the test does next. The node
     * answers questions only after {@link #awaitStarted}.
     */
    void launch(final int i) throws IOException
    {
        if ((nodes[i] != null && nodes[i].alive()) || launching[i] != null)
        {
            throw new IllegalStateException("node " + address(i).id() + " is running or starting");
        }
        launchedAt[i] = System.currentTimeMillis();
        launching[i] = ClusterNodeProcess.launch(command(i), address(i).id(), outFile(i));
    }

    /** Waits until the node {@link #launch}ed listens. */
    void awaitStarted(final int i) throws IOException
    {
        final ClusterNodeProcess.Launched p = launching[i];
        launching[i] = null;
        nodes[i] = ClusterNodeProcess.await(p, address(i).id(), outFile(i), launchedAt[i]);
        final String info = nodes[i].startInfo();
        System.out.println("CLUSTER-START node=" + address(i).id() + " " + info);
        for (final String kv : info.split(" "))
        {
            final int eq = kv.indexOf('=');
            if (eq > 0)
            {
                startPhases.computeIfAbsent(kv.substring(0, eq), k -> new ArrayList<>())
                    .add(Long.parseLong(kv.substring(eq + 1)));
            }
        }
    }

    /** @return {@code starts=N} and, per phase, {@code name p50=.. max=..} over every start so far. */
    String startSummary()
    {
        final StringJoiner j = new StringJoiner(" ");
        j.add("starts=" + startPhases.getOrDefault("launch_to_ready_ms", List.of()).size());
        startPhases.forEach((k, values) ->
        {
            final List<Long> sorted = new ArrayList<>(values);
            java.util.Collections.sort(sorted);
            j.add(k.replace("_ms", "") + "_ms p50=" + sorted.get(sorted.size() / 2) + " max=" +
                sorted.get(sorted.size() - 1));
        });
        return j.toString();
    }

    /** @return node i's output: its JVM's, the broker's and Ratis's logs. */
    Path outFile(final int i)
    {
        return root.resolve("node-" + address(i).id() + ".out");
    }

    private List<String> command(final int i)
    {
        final ClusterConfig.Node n = address(i);
        final Path work = Path.of(System.getProperty("directlog.test.dir", System.getProperty("java.io.tmpdir")),
            "child-jvm");
        final List<String> args = new ArrayList<>(List.of(dirs.get(i).toString(), Integer.toString(n.id()), peers,
            topics, Long.toString(cluster.electionTimeoutMin().toMillis()),
            Long.toString(cluster.electionTimeoutMax().toMillis()), Integer.toString(OFFSETS_PARTITIONS)));
        if (raftPauseCloseThreshold != null)
        {
            args.add(Long.toString(raftPauseCloseThreshold.toMillis()));
        }
        return ChildJvm.prepared(work).command(args);
    }

    ClusterNodeProcess node(final int i)
    {
        return nodes[i];
    }

    /** @return true when node i runs and is not paused: it can answer. */
    boolean answering(final int i)
    {
        return nodes[i] != null && nodes[i].alive() && !nodes[i].paused();
    }

    void kill(final int i) throws InterruptedException
    {
        nodes[i].kill();
    }

    void killAll() throws InterruptedException
    {
        for (final ClusterNodeProcess n : nodes)
        {
            if (n != null)
            {
                n.kill();
            }
        }
    }

    /** @return every node's Kafka address, for bootstrap.servers. */
    String bootstrapServers()
    {
        final StringJoiner j = new StringJoiner(",");
        cluster.nodes().forEach(n -> j.add(n.host() + ":" + n.kafkaPort()));
        return j.toString();
    }

    /** @return "topic/partition" to what node i says of it. */
    Map<String, Replica> state(final int i) throws InterruptedException
    {
        final String answer = nodes[i].ask("STATE", ANSWER_TIMEOUT);
        if (!answer.startsWith("STATE"))
        {
            throw new IllegalStateException(nodes[i] + " answered " + answer);
        }
        final Map<String, Replica> out = new HashMap<>();
        for (final String entry : answer.substring("STATE".length()).trim().split(" "))
        {
            if (entry.isEmpty())
            {
                continue;
            }
            final String[] f = entry.split(":");
            out.put(f[0], new Replica(f[1].equals("L"), f[2], Long.parseLong(f[3]), Long.parseLong(f[4]),
                Long.parseLong(f[5]), Long.parseLong(f[6]), Long.parseLong(f[7]), Long.parseLong(f[8]),
                Long.parseLong(f[9])));
        }
        return out;
    }

    /**
     * @return the index of the answering node that leads the partition (the highest term when two believe they do),
     * or -1 when none does.
     */
    int leaderOf(final String topic, final int partition) throws InterruptedException
    {
        int leader = -1;
        long term = -1;
        for (int i = 0; i < nodes.length; i++)
        {
            if (answering(i))
            {
                final Replica r = state(i).get(topic + "/" + partition);
                if (r != null && r.leader() && r.epoch() > term)
                {
                    leader = i;
                    term = r.epoch();
                }
            }
        }
        return leader;
    }

    /**
     * Polls until an answering node leads the partition.
     *
     * @return its index.
     * @throws AssertionError after the timeout.
     */
    int awaitLeader(final String topic, final int partition, final Duration timeout) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true)
        {
            final int leader = leaderOf(topic, partition);
            if (leader >= 0)
            {
                return leader;
            }
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("no leader for " + topic + "-" + partition + " within " + timeout +
                    " (node logs: " + logs() + ")");
            }
            Thread.sleep(POLL_MILLIS); // polling Raft roles in other processes
        }
    }

    /**
     * Polls until every answering node has the same high watermark for each partition, equal to its leader's log
     * end (nothing uncommitted left): call it once the producers stopped.
     *
     * @return the high watermark of each partition.
     * @throws AssertionError after the timeout, naming the replicas' positions.
     */
    long[] awaitConverged(final String topic, final int partitions, final Duration timeout)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final long[] hw = new long[partitions];
        for (int p = 0; p < partitions; p++)
        {
            while (true)
            {
                final String key = topic + "/" + p;
                final List<Replica> replicas = new ArrayList<>();
                for (int i = 0; i < nodes.length; i++)
                {
                    if (answering(i))
                    {
                        replicas.add(state(i).get(key));
                    }
                }
                final Replica leader = replicas.stream().filter(Replica::leader).findFirst().orElse(null);
                if (leader != null && leader.hw() == leader.end() &&
                    replicas.stream().allMatch(r -> r.hw() == leader.hw() && r.end() == leader.end()))
                {
                    hw[p] = leader.hw();
                    break;
                }
                if (System.nanoTime() > deadline)
                {
                    throw new AssertionError(key + " did not converge within " + timeout + ": " + replicas +
                        " (node logs: " + logs() + ")");
                }
                Thread.sleep(POLL_MILLIS); // a follower learns the commit index with the next append or heartbeat
            }
        }
        return hw;
    }

    /** @return what node i answers for the digest of the partition's committed batches below upTo. */
    String digest(final int i, final String topic, final int partition, final long upTo) throws InterruptedException
    {
        return nodes[i].ask("DIGEST " + topic + " " + partition + " " + upTo, ANSWER_TIMEOUT);
    }

    @Override
    public void close()
    {
        for (final ClusterNodeProcess.Launched p : launching)
        {
            if (p != null)
            {
                p.process().destroyForcibly();
            }
        }
        for (final ClusterNodeProcess n : nodes)
        {
            if (n != null)
            {
                n.close();
            }
        }
    }
}
