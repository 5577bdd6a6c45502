package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.StringJoiner;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.directlog.replication.ratis.RaftTransport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 22's fault suite with broker processes: three cluster brokers, each a JVM of its own on 127.0.0.1
 * ({@link ProcessCluster}), an idempotent acks=all kafka-clients producer writing throughout
 * ({@link LoadProducer}) and a consumer reading throughout ({@link LiveConsumer}), while:
 * <ul>
 *   <li>the leader of a random partition is killed with SIGKILL at a random point of the write stream and
 *   restarted, cycle after cycle (a new leader must serve; printed as {@code CLUSTER-FAILOVER}); then every node is
 *   killed at once and the cluster restarted;</li>
 *   <li>a follower is killed, the producer writes on, the follower restarts and catches up;</li>
 *   <li>the leader is paused with SIGSTOP beyond the election timeout while a connection pinned to it holds produce
 *   requests, then resumed: it must acknowledge none of them (its term is over);</li>
 *   <li>the leader is left with a divergent uncommitted tail (its followers killed under it), paused, the others
 *   restarted and a new leader elected, then resumed: the tail must be truncated and never acknowledged.</li>
 * </ul>
 * After each case, every replica's committed batches are byte-identical up to the high watermark (digests from
 * each process, {@link ClusterNodeMain}), every acknowledged record is stored exactly once at its acknowledged
 * offset, and every record the consumer was served is in the committed log where it was served. Prints
 * {@code FAULT-SUMMARY category=replication cases= acked_checked= lost= detected=}.
 * <p>
 * Cycles: {@value #CI_LEADER_KILLS} leader kills by default, {@value #STRESS_LEADER_KILLS} under -Pstress;
 * {@code -Ddirectlog.cluster.leaderKills=N} for another count (6 for a quick local run). Issue 22 asks 50 of each
 * CI run. A cycle is bounded by the killed broker's restart (the next kill needs all three up): about 6 s on an
 * idle two-core machine, 13-25 s on this shared one at load average 15-33 (docs/replication.md), so the default
 * run takes ~5 minutes idle and up to ~20 minutes loaded. The count is printed in {@code CLUSTER-FAILOVER}.
 */
@Timeout(value = 3600, unit = TimeUnit.SECONDS)
class ClusterProcessFaultTest
{
    private static final String TOPIC = "faults";
    /** Two partitions over three nodes: one node always leads none, and the election load stays small. */
    private static final int PARTITIONS = 2;
    private static final int CI_LEADER_KILLS = 50;
    private static final int STRESS_LEADER_KILLS = 200;
    private static final Duration WAIT = Duration.ofSeconds(60);
    /**
     * With {@code -Ddirectlog.cluster.restartAfterFailover=true} the killed node starts again only once the probe is
     * acknowledged: slower cycles, failover times without a JVM start competing for the cores.
     */
    private static final boolean RESTART_AFTER_FAILOVER = Boolean.getBoolean("directlog.cluster.restartAfterFailover");
    /** The produce version the pinned connection speaks (topic names, not ids). */
    private static final short PRODUCE_VERSION = 12;

    private static final AtomicInteger CASES = new AtomicInteger();
    private static final AtomicInteger ACKED_CHECKED = new AtomicInteger();
    private static final AtomicInteger LOST = new AtomicInteger();
    private static final AtomicInteger DETECTED = new AtomicInteger();

    /**
     * What a check after a case found.
     *
     * @param highWatermarks each partition's high watermark, agreed on by every replica.
     * @param check          the read-back.
     */
    private record CheckResult(long[] highWatermarks, AckLedger.Check check)
    {
    }

    @AfterAll
    static void summary()
    {
        System.out.println("FAULT-SUMMARY category=replication cases=" + CASES.get() + " acked_checked=" +
            ACKED_CHECKED.get() + " lost=" + LOST.get() + " detected=" + DETECTED.get());
    }

    @Test
    void killedLeadersAreReplacedAndNothingAcknowledgedIsLostOrDuplicated() throws Exception
    {
        killLeaders(Integer.getInteger("directlog.cluster.leaderKills", CI_LEADER_KILLS));
    }

    @Test
    @Tag("stress")
    void manyMoreLeaderKills() throws Exception
    {
        killLeaders(STRESS_LEADER_KILLS);
    }

    private static void killLeaders(final int cycles) throws Exception
    {
        final long seed = System.nanoTime();
        final Random random = new Random(seed);
        final AckLedger ledger = new AckLedger();
        final Map<String, List<Long>> failover = new java.util.LinkedHashMap<>();
        final int[] kills = new int[PARTITIONS];
        final StringBuilder terms = new StringBuilder();
        final long started = System.nanoTime();
        try (ProcessCluster c = new ProcessCluster("leader-kills", 3, Map.of(TOPIC, PARTITIONS)))
        {
            c.startAll();
            awaitLeaders(c);
            final LiveConsumer live = LiveConsumer.start(c.bootstrapServers(), TOPIC, PARTITIONS);
            try (LoadProducer load = LoadProducer.start(c.bootstrapServers(), TOPIC, PARTITIONS, "load-", ledger);
                 KafkaProducer<String, String> probe = LoadProducer.producer(c.bootstrapServers()))
            {
                for (int cycle = 0; cycle < cycles; cycle++)
                {
                    // the kill lands at a random point of the write stream, with appends in flight
                    load.awaitAcked(load.acked() + 10 + random.nextInt(100), WAIT);
                    final int p = random.nextInt(PARTITIONS);
                    kills[p]++;
                    final int leader = c.awaitLeader(TOPIC, p, WAIT);
                    final long term = c.state(leader).get(TOPIC + "/" + p).epoch();
                    c.kill(leader);
                    final long killedAt = System.currentTimeMillis();
                    final Future<RecordMetadata> probed = probe.send(new ProducerRecord<>(TOPIC, p, null,
                        "probe-" + cycle));
                    // restarted at once (the JVM's start overlaps the failover); it answers only once it listens
                    if (!RESTART_AFTER_FAILOVER)
                    {
                        c.launch(leader);
                    }
                    final RecordMetadata m = probed.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                    final long servedAt = System.currentTimeMillis();
                    ledger.acked("probe-" + cycle, m.partition(), m.offset());
                    if (RESTART_AFTER_FAILOVER)
                    {
                        c.launch(leader);
                    }
                    c.awaitStarted(leader);
                    final String timeline = failoverTimeline(c, p, term, killedAt, servedAt, failover);
                    System.out.println("CLUSTER-KILL cycle=" + cycle + " partition=" + p + " killed_node=" +
                        c.address(leader).id() + " " + timeline + " cycle_end_s=" +
                        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) + " acked=" + load.acked());
                }
            }
            finally
            {
                live.close();
            }
            checkReplicas(c, ledger, live, "leader kills");
            for (int p = 0; p < PARTITIONS; p++)
            {
                // each kill costs one term at least; more are elections nobody asked for (a loaded machine's stalls)
                terms.append(p == 0 ? "" : ",").append(c.state(c.awaitLeader(TOPIC, p, WAIT)).get(TOPIC + "/" + p)
                    .epoch());
            }
            CASES.incrementAndGet();
            DETECTED.incrementAndGet();
            // every node at once: everything acknowledged is there after the restart
            c.killAll();
            c.startAll();
            awaitLeaders(c);
            checkReplicas(c, ledger, null, "whole-cluster kill");
            CASES.incrementAndGet();
            DETECTED.incrementAndGet();
            System.out.println("CLUSTER-START " + c.startSummary());
        }
        final List<Long> served = failover.getOrDefault("produce_served_ms", List.of());
        final StringBuilder line = new StringBuilder("CLUSTER-FAILOVER rpc=" + RaftTransport.configured()
            .propertyValue() + " cycles=" + cycles + " seed=" + seed + " acked=" + ledger.size());
        failover.forEach((k, v) -> line.append(' ').append(k).append(' ').append(percentiles(v)));
        System.out.println(line + " kills=" + java.util.Arrays.toString(kills).replace(" ", "") + " terms=[" +
            terms + "] election_timeout_ms=" + ProcessCluster.ELECTION_TIMEOUT_MIN.toMillis() + "-" +
            ProcessCluster.ELECTION_TIMEOUT_MAX.toMillis() + " over_5s=" + served.stream().filter(ms -> ms > 5000).count() + " run_s=" +
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) +
            " (kill -9 of broker JVMs, three JVMs on a shared loaded 2-core machine: relative figures only)");
    }

    /**
     * Splits one failover from the new leader's own stamps (wall clock, one machine): {@code elected_ms} Raft
     * elected it, {@code raft_ready_ms} its term's first entry committed, {@code first_produce_ms} the first append
     * of its term reached its broker (a client had found it), {@code taken_over_ms} its broker had rebuilt the
     * producer table and accepted appends, {@code produce_served_ms} the probe was acknowledged; all from the kill.
     * Derived: {@code rediscovery_ms} first produce after Raft readiness (the clients' part), {@code takeover_ms}
     * the broker's own part. A stamp missing (-1) leaves its figure out; so does a later election (the stamps are
     * the leader's when asked, after the killed node is back).
     */
    private static String failoverTimeline(final ProcessCluster c, final int partition, final long term,
        final long killedAt, final long servedAt, final Map<String, List<Long>> failover) throws InterruptedException
    {
        final int leader = c.awaitLeader(TOPIC, partition, WAIT);
        final ProcessCluster.Replica r = c.state(leader).get(TOPIC + "/" + partition);
        assertTrue(r.epoch() > term, "partition " + partition + " is led in term " + r.epoch() + ", killed in " + term);
        final Map<String, Long> t = new java.util.LinkedHashMap<>();
        if (r.changedAt() > servedAt)
        {
            // another election after the probe was served (the restarted node's return, a stall): these stamps are
            // of that later term, not of this failover
            failover.computeIfAbsent("produce_served_ms", x -> new ArrayList<>()).add(servedAt - killedAt);
            return "leader_node=" + c.address(leader).id() + " produce_served_ms=" + (servedAt - killedAt) +
                " (elected again " + (r.changedAt() - servedAt) + " ms after the probe was served: no split)";
        }
        t.put("elected_ms", since(killedAt, r.changedAt()));
        t.put("raft_ready_ms", since(killedAt, r.readyAt()));
        t.put("first_produce_ms", since(killedAt, r.askedAt()));
        t.put("taken_over_ms", since(killedAt, r.takenOverAt()));
        t.put("produce_served_ms", servedAt - killedAt);
        t.put("rediscovery_ms", r.readyAt() < 0 || r.askedAt() < 0 ? -1 : r.askedAt() - r.readyAt());
        t.put("takeover_ms", r.askedAt() < 0 || r.takenOverAt() < 0 ? -1 : r.takenOverAt() - r.askedAt());
        final StringJoiner out = new StringJoiner(" ");
        t.forEach((k, v) ->
        {
            out.add(k + "=" + v);
            if (v >= 0)
            {
                failover.computeIfAbsent(k, x -> new ArrayList<>()).add(v);
            }
        });
        return "leader_node=" + c.address(leader).id() + " " + out;
    }

    private static long since(final long from, final long at)
    {
        return at < 0 ? -1 : at - from;
    }

    @Test
    void aKilledFollowerCatchesUpAndHoldsTheSameBytes() throws Exception
    {
        final AckLedger ledger = new AckLedger();
        try (ProcessCluster c = new ProcessCluster("follower-kill", 3, Map.of(TOPIC, PARTITIONS)))
        {
            c.startAll();
            awaitLeaders(c);
            final LiveConsumer live = LiveConsumer.start(c.bootstrapServers(), TOPIC, PARTITIONS);
            final int follower;
            final long hwWhenKilled;
            try (LoadProducer load = LoadProducer.start(c.bootstrapServers(), TOPIC, PARTITIONS, "f-", ledger))
            {
                load.awaitAcked(300, WAIT);
                follower = nodeLeadingNothing(c);
                hwWhenKilled = c.state(follower).get(TOPIC + "/0").hw();
                c.kill(follower);
                load.awaitAcked(load.acked() + 600, WAIT); // written on while it is down
                c.start(follower);
                load.awaitAcked(load.acked() + 200, WAIT);
            }
            finally
            {
                live.close();
            }
            final long[] hw = checkReplicas(c, ledger, live, "follower kill");
            assertTrue(hw[0] > hwWhenKilled, "the follower had records to catch up on");
            CASES.incrementAndGet();
            DETECTED.incrementAndGet();
        }
    }

    @Test
    void aPausedLeaderAcknowledgesNothingAfterANewLeaderIsElected() throws Exception
    {
        final AckLedger ledger = new AckLedger();
        try (ProcessCluster c = new ProcessCluster("paused-leader", 3, Map.of(TOPIC, PARTITIONS)))
        {
            c.startAll();
            awaitLeaders(c);
            final LiveConsumer live = LiveConsumer.start(c.bootstrapServers(), TOPIC, PARTITIONS);
            final List<ProduceResponseData.PartitionProduceResponse> answers;
            try (LoadProducer load = LoadProducer.start(c.bootstrapServers(), TOPIC, PARTITIONS, "s-", ledger))
            {
                load.awaitAcked(300, WAIT);
                final int leader = c.awaitLeader(TOPIC, 0, WAIT);
                final long term = c.state(leader).get(TOPIC + "/0").epoch();
                try (RawClient pinned = new RawClient(c.address(leader).host(), c.address(leader).kafkaPort()))
                {
                    pinned.readTimeout(WAIT);
                    c.node(leader).pause();
                    // into the paused leader's socket buffer: it reads them when it resumes, still thinking it leads
                    final List<RequestHeader> sent = sendPinned(pinned, "paused-", 5);
                    final int next = c.awaitLeader(TOPIC, 0, WAIT);
                    assertNotEquals(leader, next);
                    assertTrue(c.state(next).get(TOPIC + "/0").epoch() > term, "the new leader has a new term");
                    load.awaitAcked(load.acked() + 300, WAIT); // the new leader commits while the old one sleeps
                    c.node(leader).resume();
                    answers = receivePinned(pinned, sent, ledger, "paused-");
                }
                load.awaitAcked(load.acked() + 200, WAIT);
            }
            finally
            {
                live.close();
            }
            checkReplicas(c, ledger, live, "paused leader");
            final long acknowledged = answers.stream().filter(a -> a.errorCode() == Errors.NONE.code()).count();
            System.out.println("PAUSED-LEADER pinned answers " + errors(answers));
            assertEquals(0, acknowledged, "the old leader acknowledged produce requests after its term ended: " +
                errors(answers));
            CASES.incrementAndGet();
            DETECTED.incrementAndGet();
        }
    }

    @Test
    void aPausedLeadersDivergentTailIsTruncatedAndNeverAcknowledged() throws Exception
    {
        final AckLedger ledger = new AckLedger();
        try (ProcessCluster c = new ProcessCluster("divergent-tail", 3, Map.of(TOPIC, PARTITIONS)))
        {
            c.startAll();
            awaitLeaders(c);
            final LiveConsumer live = LiveConsumer.start(c.bootstrapServers(), TOPIC, PARTITIONS);
            final List<ProduceResponseData.PartitionProduceResponse> answers;
            final long tail;
            try (LoadProducer load = LoadProducer.start(c.bootstrapServers(), TOPIC, PARTITIONS, "d-", ledger))
            {
                load.awaitAcked(300, WAIT);
                final int leader = c.awaitLeader(TOPIC, 0, WAIT);
                try (RawClient pinned = new RawClient(c.address(leader).host(), c.address(leader).kafkaPort()))
                {
                    pinned.readTimeout(WAIT);
                    // Its followers die under it: what it appends now reaches no one (a paused follower's kernel
                    // would still take the leader's entries into its socket buffer and apply them on resume).
                    for (int i = 0; i < c.size(); i++)
                    {
                        if (i != leader)
                        {
                            c.kill(i);
                        }
                    }
                    final List<RequestHeader> sent = sendPinned(pinned, "tail-", 5);
                    tail = awaitUncommittedTail(c, leader);
                    c.node(leader).pause();
                    c.startAll(); // the two others: they elect a leader of a new term without it
                    final int next = c.awaitLeader(TOPIC, 0, WAIT);
                    assertNotEquals(leader, next);
                    load.awaitAcked(load.acked() + 300, WAIT); // the new leader writes over the tail's offsets
                    c.node(leader).resume();
                    answers = receivePinned(pinned, sent, ledger, "tail-");
                }
                load.awaitAcked(load.acked() + 200, WAIT);
            }
            finally
            {
                live.close();
            }
            final AckLedger.Check check = checkReplicasReturning(c, ledger, live, "divergent tail").check();
            System.out.println("DIVERGENT-TAIL uncommitted_records=" + tail + " pinned answers " + errors(answers));
            assertTrue(check.stored().keySet().stream().noneMatch(v -> v.startsWith("tail-")),
                "the divergent tail is in the committed log");
            assertEquals(0, answers.stream().filter(a -> a.errorCode() == Errors.NONE.code()).count(),
                "the old leader acknowledged its divergent tail: " + errors(answers));
            CASES.incrementAndGet();
            DETECTED.incrementAndGet();
        }
    }

    /** Polls the leader until its log end passes its high watermark for partition 0; returns the difference. */
    private static long awaitUncommittedTail(final ProcessCluster c, final int leader) throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (true)
        {
            final ProcessCluster.Replica r = c.state(leader).get(TOPIC + "/0");
            if (r.end() > r.hw())
            {
                return r.end() - r.hw();
            }
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("the isolated leader never appended the pinned batches: " + r);
            }
            Thread.sleep(10); // the append happens on the leader's threads, in another process
        }
    }

    /** Pipelines {@code count} one-record produce requests (acks=all, no producer id) for partition 0. */
    private static List<RequestHeader> sendPinned(final RawClient pinned, final String prefix, final int count)
        throws IOException
    {
        final List<RequestHeader> sent = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            final ProduceRequestData req = new ProduceRequestData().setAcks((short)-1).setTimeoutMs(30_000);
            final ProduceRequestData.TopicProduceData td = new ProduceRequestData.TopicProduceData().setName(TOPIC);
            td.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(
                MemoryRecords.withRecords(Compression.NONE,
                    new SimpleRecord((prefix + i).getBytes(StandardCharsets.UTF_8)))));
            req.topicData().add(td);
            sent.add(pinned.send(req, PRODUCE_VERSION));
        }
        return sent;
    }

    /** Reads the pinned requests' answers; an acknowledged one goes to the ledger (it must then be stored). */
    private static List<ProduceResponseData.PartitionProduceResponse> receivePinned(final RawClient pinned,
        final List<RequestHeader> sent, final AckLedger ledger, final String prefix) throws IOException
    {
        final List<ProduceResponseData.PartitionProduceResponse> out = new ArrayList<>();
        for (int i = 0; i < sent.size(); i++)
        {
            final ProduceResponse r = (ProduceResponse)pinned.receive(sent.get(i));
            final ProduceResponseData.PartitionProduceResponse pr =
                r.data().responses().iterator().next().partitionResponses().get(0);
            out.add(pr);
            if (pr.errorCode() == Errors.NONE.code())
            {
                ledger.acked(prefix + i, 0, pr.baseOffset());
            }
        }
        return out;
    }

    private static String errors(final List<ProduceResponseData.PartitionProduceResponse> answers)
    {
        return answers.stream().map(a -> Errors.forCode(a.errorCode()).name()).toList().toString();
    }

    /** @return the index of a node that leads no partition (with two partitions over three nodes one always is). */
    private static int nodeLeadingNothing(final ProcessCluster c) throws InterruptedException
    {
        for (int i = 0; i < c.size(); i++)
        {
            if (c.state(i).values().stream().noneMatch(ProcessCluster.Replica::leader))
            {
                return i;
            }
        }
        throw new AssertionError("every node leads a partition of " + PARTITIONS);
    }

    private static void awaitLeaders(final ProcessCluster c) throws InterruptedException
    {
        for (int p = 0; p < PARTITIONS; p++)
        {
            c.awaitLeader(TOPIC, p, WAIT);
        }
    }

    private static long[] checkReplicas(final ProcessCluster c, final AckLedger ledger, final LiveConsumer live,
        final String what) throws InterruptedException
    {
        return checkReplicasReturning(c, ledger, live, what).highWatermarks();
    }

    /**
     * With the producers stopped: waits until every replica has the leader's high watermark and log end, compares
     * their digests up to it, reads everything back, and checks the acknowledged and the consumed records.
     */
    private static CheckResult checkReplicasReturning(final ProcessCluster c, final AckLedger ledger,
        final LiveConsumer live, final String what) throws InterruptedException
    {
        final long[] hw = c.awaitConverged(TOPIC, PARTITIONS, WAIT);
        for (int p = 0; p < PARTITIONS; p++)
        {
            final String first = c.digest(0, TOPIC, p, hw[p]);
            assertTrue(first.startsWith("DIGEST"), what + ": node 1 answered " + first);
            for (int i = 1; i < c.size(); i++)
            {
                assertEquals(first, c.digest(i, TOPIC, p, hw[p]), what + ": replica on node " + (i + 1) +
                    " of partition " + p + " differs below the high watermark " + hw[p]);
            }
        }
        final AckLedger.Check check = ledger.readBack(c.bootstrapServers(), TOPIC, hw, WAIT);
        ACKED_CHECKED.addAndGet(check.checked());
        LOST.addAndGet(check.lost());
        int misplacedServed = 0;
        if (live != null)
        {
            for (final Map.Entry<String, String> e : live.served().entrySet())
            {
                final List<AckLedger.At> at = check.stored().get(e.getValue());
                final String[] key = e.getKey().split("/");
                if (at == null || !at.contains(new AckLedger.At(Integer.parseInt(key[0]), Long.parseLong(key[1]))))
                {
                    misplacedServed++;
                }
            }
            System.out.println("CLUSTER-CONSUMER " + what + ": served=" + live.seen() + " conflicts=" +
                live.conflicts() + " redelivered=" + live.redelivered() + " not_in_log=" + misplacedServed + " poll_errors=" +
                live.errors());
        }
        System.out.println("CLUSTER-CHECK " + what + ": high_watermarks=" + java.util.Arrays.toString(hw) +
            " acked=" + check.checked() + " lost=" + check.lost() + " duplicated=" + check.duplicated());
        assertEquals(0, check.lost(), what + ": acknowledged records missing or moved");
        assertEquals(0, check.duplicated(), what + ": records stored twice");
        if (live != null)
        {
            assertEquals(0, live.conflicts(), what + ": the consumer was served two values at one offset");
            assertEquals(0, misplacedServed, what + ": the consumer was served records the committed log lacks");
        }
        return new CheckResult(hw, check);
    }

    private static String percentiles(final List<Long> millis)
    {
        if (millis.isEmpty())
        {
            return "none";
        }
        final List<Long> sorted = new ArrayList<>(millis);
        Collections.sort(sorted);
        final long p99 = sorted.get(Math.min(sorted.size() - 1, (int)Math.ceil(sorted.size() * 0.99) - 1));
        return "p50=" + sorted.get(sorted.size() / 2) + " p99=" + p99 + " max=" + sorted.get(sorted.size() - 1);
    }
}
