package io.directlog.broker;

import static io.directlog.broker.ClusterClients.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 22: committed group offsets are replicated. A kafka-clients consumer group on a three-node cluster commits,
 * the node that coordinates the group (the leader of the group's offsets partition) is stopped, and the group goes
 * on with the coordinator another node became: the same member keeps committing (its membership was replicated
 * too), and a new member starts exactly at the last committed offsets: it re-reads only what the old member read
 * without committing, and skips nothing. Every node names the same coordinator, and the others answer
 * NOT_COORDINATOR.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ReplicatedGroupOffsetsTest
{
    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 2;
    private static final int RECORDS = 200;
    private static final String GROUP = "resume-group";

    @Test
    void aGroupResumesFromItsCommittedOffsetsOnTheNextCoordinator() throws Exception
    {
        try (BrokerCluster c = new BrokerCluster("group-offsets", 3, Map.of(TOPIC, PARTITIONS));
             KafkaProducer<String, String> producer = ClusterClients.producer(c))
        {
            c.startAll();
            c.awaitLeaders(TOPIC, PARTITIONS, WAIT);
            for (int i = 0; i < RECORDS; i++)
            {
                producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, "r-" + i));
            }
            producer.flush();

            final List<TopicPartition> tps = List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));
            final Map<TopicPartition, Long> committed;
            final int stopped;
            try (KafkaConsumer<String, String> first = ClusterClients.consumer(c, GROUP,
                Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10)))
            {
                first.subscribe(List.of(TOPIC));
                final List<ConsumerRecord<String, String>> read = new ArrayList<>();
                pollUntil(first, read, r -> r.size() >= 40);
                first.commitSync(WAIT);
                pollUntil(first, read, r -> r.size() >= 70); // read, not committed

                final int generation = first.groupMetadata().generationId();
                stopped = ClusterClients.coordinatorOf(c, GROUP);
                c.stop(stopped);

                // the member goes on with the next coordinator: it knows the member and its generation
                pollUntil(first, read, r -> r.size() >= 90);
                first.commitSync(WAIT);
                committed = positions(first, tps);
                assertEquals(committed, committedOffsets(first, tps), "OffsetFetch from the next coordinator");
                assertEquals(generation, first.groupMetadata().generationId(),
                    "the member went on in its generation: the next coordinator loaded the membership, no rejoin");
                pollUntil(first, read, r -> r.size() >= 120); // read, not committed: the next member reads them again
            }
            final int next = ClusterClients.coordinatorOf(c, GROUP);
            assertNotEquals(stopped, next, "another node coordinates the group");
            try (Admin admin = ClusterClients.admin(c))
            {
                final Map<TopicPartition, OffsetAndMetadata> listed = admin.listConsumerGroupOffsets(GROUP)
                    .partitionsToOffsetAndMetadata().get(WAIT.toSeconds(), TimeUnit.SECONDS);
                final Map<TopicPartition, Long> offsets = new HashMap<>();
                listed.forEach((tp, om) -> offsets.put(tp, om.offset()));
                assertEquals(committed, offsets, "the committed offsets, as an admin lists them");
            }

            try (KafkaConsumer<String, String> second = ClusterClients.consumer(c, GROUP, Map.of()))
            {
                second.subscribe(List.of(TOPIC));
                final List<ConsumerRecord<String, String>> read = new ArrayList<>();
                pollUntil(second, read, r -> r.size() >= RECORDS - committed.values().stream()
                    .mapToLong(Long::longValue).sum());
                final Map<Integer, List<Long>> byPartition = new TreeMap<>();
                read.forEach(r -> byPartition.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(r.offset()));
                for (final TopicPartition tp : tps)
                {
                    final List<Long> expected = new ArrayList<>();
                    for (long o = committed.get(tp); o < RECORDS / PARTITIONS; o++)
                    {
                        expected.add(o);
                    }
                    assertEquals(expected, byPartition.getOrDefault(tp.partition(), List.of()),
                        "partition " + tp.partition() + ": from the committed offset to the end, each record once");
                }
            }
        }
    }

    @Test
    void onlyTheLeaderOfTheGroupsOffsetsPartitionCoordinatesIt() throws Exception
    {
        final String group = "placed-group";
        try (BrokerCluster c = new BrokerCluster("group-roles", 3, Map.of(TOPIC, 1)))
        {
            c.startAll();
            c.awaitLeaders(TOPIC, 1, WAIT);
            final int coordinator = ClusterClients.coordinatorOf(c, group); // waits out the load, through Admin
            for (int i = 0; i < c.size(); i++)
            {
                try (RawClient client = new RawClient(c.broker(i)))
                {
                    final FindCoordinatorResponseData found = ((FindCoordinatorResponse)client.call(
                        new FindCoordinatorRequestData().setKeyType((byte)0).setCoordinatorKeys(List.of(group)),
                        (short)4)).data();
                    assertEquals(c.config(coordinator).nodeId(), found.coordinators().get(0).nodeId(),
                        "node " + i + " names the leader of the group's offsets partition");
                    final short expected = (i == coordinator ? Errors.NONE : Errors.NOT_COORDINATOR).code();
                    assertEquals(expected, commit(client, group, 5 + i), "OffsetCommit on node " + i);
                    final OffsetFetchResponseData fetched = ((OffsetFetchResponse)client.call(
                        new OffsetFetchRequestData().setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                            .setGroupId(group).setTopics(null))), (short)8)).data();
                    assertEquals(expected, fetched.groups().get(0).errorCode(), "OffsetFetch on node " + i);
                    if (i == coordinator)
                    {
                        assertEquals(5 + i, fetched.groups().get(0).topics().get(0).partitions().get(0)
                            .committedOffset());
                    }
                }
            }
        }
    }

    /** A simple (memberless) commit of one offset through the wire; returns the partition's error code. */
    private static short commit(final RawClient client, final String group, final long offset) throws Exception
    {
        final OffsetCommitRequestData req = new OffsetCommitRequestData().setGroupId(group)
            .setGenerationIdOrMemberEpoch(-1).setMemberId("");
        req.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(TOPIC).setPartitions(List.of(
            new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(offset)
                .setCommittedLeaderEpoch(-1).setCommittedMetadata(""))));
        return ((OffsetCommitResponse)client.call(req, (short)8)).data().topics().get(0).partitions().get(0)
            .errorCode();
    }

    /** Polls until the records read satisfy {@code done}; fails after {@link ClusterClients#WAIT}. */
    private static void pollUntil(final KafkaConsumer<String, String> consumer,
        final List<ConsumerRecord<String, String>> read, final Predicate<List<ConsumerRecord<String, String>>> done)
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (!done.test(read))
        {
            assertTrue(System.nanoTime() < deadline, "the consumer stalled after " + read.size() + " records");
            consumer.poll(Duration.ofMillis(200)).forEach(read::add);
        }
    }

    private static Map<TopicPartition, Long> positions(final KafkaConsumer<String, String> consumer,
        final List<TopicPartition> tps)
    {
        final Map<TopicPartition, Long> out = new HashMap<>();
        for (final TopicPartition tp : tps)
        {
            out.put(tp, consumer.position(tp, WAIT));
        }
        return out;
    }

    private static Map<TopicPartition, Long> committedOffsets(final KafkaConsumer<String, String> consumer,
        final List<TopicPartition> tps)
    {
        final Map<TopicPartition, Long> out = new HashMap<>();
        consumer.committed(new java.util.HashSet<>(tps), WAIT).forEach((tp, om) -> out.put(tp, om.offset()));
        return out;
    }
}
