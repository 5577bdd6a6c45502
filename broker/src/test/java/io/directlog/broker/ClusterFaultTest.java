package io.directlog.broker;

import static io.directlog.broker.ClusterClients.WAIT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.broker.topic.Partition;
import io.directlog.replication.ratis.RaftTransport;

/**
 * Three cluster brokers in this JVM (issue 22): real kafka-clients idempotent acks=all producers and a consumer
 * group against replicated partitions while the leader of a partition is stopped and restarted, then the whole
 * cluster restarted. After each run: every acknowledged record is stored exactly once at its acknowledged offset,
 * the replicas hold identical bytes up to the high watermark, and a new consumer of the group starts at the
 * committed offsets.
 * <p>
 * "Kill" here is {@link KafkaBroker#close()} of one broker in this JVM (its Raft server stops answering at once);
 * kill -9 of broker processes is not driven yet (the replication module kills a follower JVM, under -Pstress).
 * Three cycles by default (about a minute); fifty under -Pstress.
 */
@Timeout(value = 900, unit = TimeUnit.SECONDS)
class ClusterFaultTest
{
    private static final String TOPIC = "replicated";
    private static final int PARTITIONS = 3;
    private static final int BURST = 150;

    private static final AtomicInteger CASES = new AtomicInteger();
    private static final AtomicInteger ACKED_CHECKED = new AtomicInteger();
    private static final AtomicInteger LOST = new AtomicInteger();
    private static final AtomicInteger DETECTED = new AtomicInteger();

    private record Acked(int partition, long offset)
    {
    }

    @AfterAll
    static void summary()
    {
        System.out.println("FAULT-SUMMARY category=replication-broker cases=" + CASES.get() + " acked_checked=" +
            ACKED_CHECKED.get() + " lost=" + LOST.get() + " detected=" + DETECTED.get());
    }

    @Test
    void aFollowerRefusesProduceAndMetadataNamesTheRaftLeader() throws Exception
    {
        try (BrokerCluster c = new BrokerCluster("cluster-roles", 3, Map.of(TOPIC, PARTITIONS)))
        {
            c.startAll();
            c.awaitLeaders(TOPIC, PARTITIONS, WAIT);
            final int leader = c.leaderOf(TOPIC, 0);
            final int follower = (leader + 1) % c.size();
            final Partition onFollower = c.partition(follower, TOPIC, 0);
            final ByteBuffer batch = MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord("v".getBytes())).buffer();
            final ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> onFollower.append(batch).get(30, TimeUnit.SECONDS));
            assertInstanceOf(NotLeaderOrFollowerException.class, refused.getCause());
            final int leaderId = c.config(leader).nodeId();
            assertEquals(leaderId, onFollower.leaderNodeId(c.config(follower).nodeId()));
            try (Admin admin = ClusterClients.admin(c.broker(follower).bootstrapServers()))
            {
                final TopicDescription d = admin.describeTopics(List.of(TOPIC)).allTopicNames()
                    .get(30, TimeUnit.SECONDS).get(TOPIC);
                assertEquals(PARTITIONS, d.partitions().size());
                assertEquals(leaderId, d.partitions().get(0).leader().id(), "Metadata names the Raft leader");
                assertEquals(3, d.partitions().get(0).replicas().size());
                assertEquals(3, admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size());
            }
            CASES.incrementAndGet();
            DETECTED.incrementAndGet();
        }
    }

    @Test
    void aStoppedLeaderIsReplacedAndNothingAcknowledgedIsLostOrDuplicated() throws Exception
    {
        killLeaders(3);
    }

    @Test
    @Tag("stress")
    void fiftyLeaderStopsInARow() throws Exception
    {
        killLeaders(50);
    }

    private static void killLeaders(final int cycles) throws Exception
    {
        final Map<String, Acked> acked = new ConcurrentHashMap<>();
        final List<Long> failoverMillis = new ArrayList<>();
        final List<Long> electionMillis = new ArrayList<>();
        final Map<String, Integer> groupSeen = new HashMap<>();
        try (BrokerCluster c = new BrokerCluster("cluster-kill", 3, Map.of(TOPIC, PARTITIONS));
             KafkaProducer<String, String> producer = ClusterClients.producer(c))
        {
            c.startAll();
            c.awaitLeaders(TOPIC, PARTITIONS, WAIT);
            final KafkaConsumer<String, String> group = groupConsumer(c);
            try
            {
                group.subscribe(List.of(TOPIC));
                for (int cycle = 0; cycle < cycles; cycle++)
                {
                    final int p = cycle % PARTITIONS;
                    final List<Future<RecordMetadata>> burst = new ArrayList<>();
                    final List<String> values = new ArrayList<>();
                    for (int i = 0; i < BURST; i++)
                    {
                        final String v = "c" + cycle + "-" + i;
                        values.add(v);
                        burst.add(producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, v)));
                    }
                    final int leader = c.leaderOf(TOPIC, p);
                    assertTrue(leader >= 0, "partition " + p + " has a leader");
                    c.stop(leader); // while the burst is in flight
                    final long stopped = System.nanoTime();
                    final String probe = "probe-" + cycle;
                    final RecordMetadata m = producer.send(new ProducerRecord<>(TOPIC, p, null, probe))
                        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
                    failoverMillis.add((System.nanoTime() - stopped) / 1_000_000);
                    acked.put(probe, new Acked(m.partition(), m.offset()));
                    electionMillis.add(c.awaitLeaders(TOPIC, PARTITIONS, WAIT));
                    for (int i = 0; i < BURST; i++)
                    {
                        final RecordMetadata r = burst.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS);
                        acked.put(values.get(i), new Acked(r.partition(), r.offset()));
                    }
                    c.start(leader);
                    consume(group, groupSeen, acked.keySet());
                }
            }
            finally
            {
                group.close();
            }
            // the whole cluster stops and starts again: everything acknowledged is there
            c.stopAll();
            c.startAll();
            c.awaitLeaders(TOPIC, PARTITIONS, WAIT);
            verify(c, acked);
            assertReplicasIdentical(c);
            continueFromCommitted(c, producer);
            CASES.addAndGet(cycles + 1);
            DETECTED.addAndGet(cycles + 1);
        }
        Collections.sort(failoverMillis);
        final long p99 = failoverMillis.get(Math.min(failoverMillis.size() - 1,
            (int)Math.ceil(failoverMillis.size() * 0.99) - 1));
        final long over5s = failoverMillis.stream().filter(ms -> ms > 5000).count();
        System.out.println("CLUSTER-FAILOVER rpc=" +
            RaftTransport.configured().propertyValue() + " cycles=" + cycles + " acked=" + acked.size() + " produce_resumed_ms p50=" +
            failoverMillis.get(failoverMillis.size() / 2) + " p99=" + p99 + " max=" +
            failoverMillis.get(failoverMillis.size() - 1) + " over_5s=" + over5s + " leaders_ready_ms=" +
            electionMillis + " (in-JVM brokers on a shared loaded machine: relative figures only)");
        final int groupDuplicates = (int)groupSeen.values().stream().filter(n -> n > 1).count();
        System.out.println("CLUSTER-GROUP records_seen=" + groupSeen.size() + " redelivered=" + groupDuplicates);
        assertTrue(groupSeen.keySet().containsAll(acked.keySet()), "the group consumed every acknowledged record");
    }

    /** Polls the group until it has seen every value in {@code expected}, committing after each poll. */
    private static void consume(final KafkaConsumer<String, String> group, final Map<String, Integer> seen,
        final java.util.Set<String> expected)
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (!seen.keySet().containsAll(expected))
        {
            assertTrue(System.nanoTime() < deadline, "the group consumer stalled: " + seen.size() + " of " +
                expected.size() + " seen");
            final var records = group.poll(Duration.ofMillis(200));
            records.forEach(r -> seen.merge(r.value(), 1, Integer::sum));
            if (!records.isEmpty())
            {
                try
                {
                    group.commitSync(Duration.ofSeconds(10));
                }
                catch (final org.apache.kafka.common.KafkaException e)
                {
                    // the coordinator node may still be starting: the next poll commits again
                }
            }
        }
        group.commitSync(WAIT);
    }

    /** Reads every partition from its start: each acknowledged record once, at its acknowledged offset. */
    private static void verify(final BrokerCluster c, final Map<String, Acked> acked)
    {
        final Map<String, List<Acked>> stored = new HashMap<>();
        try (KafkaConsumer<String, String> reader = ClusterClients.consumer(c, null, Map.of()))
        {
            final List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++)
            {
                tps.add(new TopicPartition(TOPIC, p));
            }
            reader.assign(tps);
            reader.seekToBeginning(tps);
            final Map<TopicPartition, Long> end = reader.endOffsets(tps, WAIT);
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (tps.stream().anyMatch(tp -> reader.position(tp, WAIT) < end.get(tp)))
            {
                assertTrue(System.nanoTime() < deadline, "reading the partitions back stalled");
                for (final ConsumerRecord<String, String> r : reader.poll(Duration.ofMillis(200)))
                {
                    stored.computeIfAbsent(r.value(), v -> new ArrayList<>()).add(new Acked(r.partition(), r.offset()));
                }
            }
        }
        int lost = 0;
        for (final Map.Entry<String, Acked> e : acked.entrySet())
        {
            final List<Acked> at = stored.get(e.getKey());
            if (at == null || !at.contains(e.getValue()))
            {
                lost++;
            }
        }
        final long duplicated = stored.values().stream().filter(l -> l.size() > 1).count();
        ACKED_CHECKED.addAndGet(acked.size());
        LOST.addAndGet(lost);
        assertEquals(0, lost, "acknowledged records missing or moved");
        assertEquals(0, duplicated, "records stored twice");
    }

    /** Every running replica of each partition holds the same bytes below the high watermark. */
    private static void assertReplicasIdentical(final BrokerCluster c) throws InterruptedException
    {
        for (int p = 0; p < PARTITIONS; p++)
        {
            final int leader = c.leaderOf(TOPIC, p);
            final long hw = c.partition(leader, TOPIC, p).highWatermark();
            final byte[] expected = readAll(c.partition(leader, TOPIC, p), hw);
            for (int n = 0; n < c.size(); n++)
            {
                final Partition replica = c.partition(n, TOPIC, p);
                final long deadline = System.nanoTime() + WAIT.toNanos();
                while (replica.highWatermark() < hw)
                {
                    assertTrue(System.nanoTime() < deadline, "replica " + n + " of partition " + p + " stays at " +
                        replica.highWatermark() + " < " + hw);
                    Thread.sleep(20); // a follower learns the commit index with the next append or heartbeat
                }
                assertArrayEquals(expected, readAll(replica, hw), "replica " + n + " of partition " + p);
            }
        }
    }

    private static byte[] readAll(final Partition partition, final long upTo)
    {
        final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        long offset = partition.logStartOffset();
        while (offset < upTo)
        {
            final io.directlog.broker.protocol.PinnedRecords read = partition.read(offset, 1 << 20);
            final ByteBuffer b;
            try
            {
                b = read.copy();
            }
            finally
            {
                read.release();
            }
            if (!b.hasRemaining())
            {
                break;
            }
            long last = offset;
            final ByteBuffer copy = b.duplicate();
            for (final var batch : MemoryRecords.readableRecords(copy).batches())
            {
                if (batch.baseOffset() >= upTo)
                {
                    break;
                }
                final ByteBuffer one = b.duplicate();
                one.limit(one.position() + batch.sizeInBytes());
                final byte[] bytes = new byte[batch.sizeInBytes()];
                one.get(bytes);
                out.writeBytes(bytes);
                b.position(b.position() + batch.sizeInBytes());
                last = batch.nextOffset();
            }
            offset = last;
        }
        return out.toByteArray();
    }

    /** A new consumer of the group starts at the offsets the old one committed: it sees only what came after. */
    private static void continueFromCommitted(final BrokerCluster c, final KafkaProducer<String, String> producer)
        throws Exception
    {
        final int after = 30;
        for (int i = 0; i < after; i++)
        {
            producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, "after-" + i));
        }
        producer.flush();
        try (KafkaConsumer<String, String> next = groupConsumer(c))
        {
            next.subscribe(List.of(TOPIC));
            final List<String> values = new ArrayList<>();
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (values.size() < after)
            {
                assertTrue(System.nanoTime() < deadline, "the new group member got " + values);
                next.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
            }
            assertTrue(values.stream().allMatch(v -> v.startsWith("after-")),
                "the group's new member re-read records before its committed offsets: " + values);
        }
    }

    private static KafkaConsumer<String, String> groupConsumer(final BrokerCluster c)
    {
        return ClusterClients.consumer(c, "cluster-group", Map.of());
    }
}
