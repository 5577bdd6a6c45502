package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A silent member of a classic group is expired after its session timeout (KIP-62): the group rebalances without
 * it, the live member (a real kafka-clients consumer) gets its partitions and reads their records, and the expired
 * member's next heartbeat, sync and commit answer UNKNOWN_MEMBER_ID, as Kafka answers a member it removed. The
 * silent member speaks the raw protocol (join, sync, then nothing), since a KafkaConsumer's heartbeat thread keeps
 * it alive even when the application stops polling.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SessionExpiryTest
{
    private static final String GROUP = "expiry-g";
    private static final String TOPIC = "expiry-t";
    /** The broker's minimum (Kafka's group.min.session.timeout.ms default). */
    private static final int SESSION_MS = 6_000;
    private static final int RECORDS_PER_PARTITION = 10;

    @RegisterExtension
    final RunningBroker running = new RunningBroker("session-expiry");

    private static JoinGroupRequestData join(final String memberId)
    {
        final ByteBuffer subscription = ConsumerProtocol.serializeSubscription(
            new ConsumerPartitionAssignor.Subscription(List.of(TOPIC)));
        final byte[] metadata = new byte[subscription.remaining()];
        subscription.get(metadata);
        final JoinGroupRequestData join = new JoinGroupRequestData().setGroupId(GROUP).setMemberId(memberId)
            .setSessionTimeoutMs(SESSION_MS).setRebalanceTimeoutMs(10_000).setProtocolType("consumer");
        join.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
            .setMetadata(metadata));
        return join;
    }

    private KafkaConsumer<String, String> liveConsumer()
    {
        final Map<String, Object> extra = new HashMap<>();
        extra.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        extra.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, SESSION_MS);
        extra.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
        extra.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 60_000);
        extra.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName());
        return BrokerTestSupport.consumer(running.broker(), extra);
    }

    /** Polls the live consumer (whose rebalances run in poll) until {@code done} holds; bounded in time and polls. */
    private static void pollUntil(final KafkaConsumer<String, String> c, final List<ConsumerRecord<String, String>> into,
        final java.util.function.BooleanSupplier done, final Duration max, final String what)
    {
        final long deadline = System.nanoTime() + max.toNanos();
        for (int polls = 0; polls < 10_000 && !done.getAsBoolean(); polls++)
        {
            assertTrue(System.nanoTime() < deadline, "not within " + max + ": " + what);
            c.poll(Duration.ofMillis(100)).forEach(into::add);
        }
    }

    private static <T> CompletableFuture<T> receiveAsync(final RawClient c, final RequestHeader header,
        final Class<T> type)
    {
        return CompletableFuture.supplyAsync(() ->
        {
            try
            {
                return type.cast(c.receive(header));
            }
            catch (final java.io.IOException e)
            {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    @Test
    void aSilentMemberIsExpiredAfterItsSessionAndTheLiveMemberTakesItsPartitions() throws Exception
    {
        BrokerTestSupport.createTopic(running.broker(), TOPIC, 2, Map.of());
        final List<ConsumerRecord<String, String>> consumed = new java.util.ArrayList<>();
        try (KafkaConsumer<String, String> live = liveConsumer(); RawClient silent = new RawClient(running.broker()))
        {
            live.subscribe(List.of(TOPIC));
            pollUntil(live, consumed, () -> live.assignment().size() == 2, BrokerTestSupport.TIMEOUT,
                "the live consumer alone owns both partitions");

            // the silent member joins: the live consumer rejoins in its polls, and as leader splits the partitions
            final JoinGroupResponseData idRequired = ((JoinGroupResponse)silent.call(join(""), (short)5)).data();
            assertEquals(Errors.MEMBER_ID_REQUIRED.code(), idRequired.errorCode());
            final CompletableFuture<JoinGroupResponse> joined = receiveAsync(silent,
                silent.send(join(idRequired.memberId()), (short)5), JoinGroupResponse.class);
            pollUntil(live, consumed, joined::isDone, BrokerTestSupport.TIMEOUT, "the silent member's join");
            final JoinGroupResponseData join = joined.join().data();
            assertEquals(Errors.NONE.code(), join.errorCode());
            final String memberId = join.memberId();
            final int generation = join.generationId();
            final CompletableFuture<SyncGroupResponse> synced = receiveAsync(silent, silent.send(
                new SyncGroupRequestData().setGroupId(GROUP).setMemberId(memberId).setGenerationId(generation),
                (short)3), SyncGroupResponse.class);
            pollUntil(live, consumed, synced::isDone, BrokerTestSupport.TIMEOUT, "the silent member's sync");
            final SyncGroupResponseData sync = synced.join().data();
            assertEquals(Errors.NONE.code(), sync.errorCode());
            final List<TopicPartition> silentOwns = ConsumerProtocol.deserializeAssignment(
                ByteBuffer.wrap(sync.assignment())).partitions();
            assertEquals(1, silentOwns.size(), "range split two partitions over two members: " + silentOwns);
            pollUntil(live, consumed, () -> live.assignment().size() == 1, BrokerTestSupport.TIMEOUT,
                "the live consumer gave up the silent member's partition");
            assertTrue(!live.assignment().contains(silentOwns.get(0)));

            try (KafkaProducer<String, String> p = BrokerTestSupport.producer(running.broker(), Map.of()))
            {
                for (int partition = 0; partition < 2; partition++)
                {
                    for (int i = 0; i < RECORDS_PER_PARTITION; i++)
                    {
                        p.send(new ProducerRecord<>(TOPIC, partition, "k" + i, partition + "-" + i)).get();
                    }
                }
            }

            // from here the silent member sends nothing: its session runs out and the group rebalances without it
            consumed.clear();
            final Set<TopicPartition> both = Set.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));
            pollUntil(live, consumed, () -> live.assignment().equals(both) &&
                    consumed.stream().filter(r -> r.partition() == silentOwns.get(0).partition()).count() >=
                        RECORDS_PER_PARTITION,
                BrokerTestSupport.TIMEOUT.plusMillis(SESSION_MS), "the expired member's partition went to the live one");
            final Set<String> values = new HashSet<>();
            consumed.forEach(r -> values.add(r.value()));
            assertEquals(2 * RECORDS_PER_PARTITION, values.size(), "every record of both partitions: " + values);
            live.commitSync(Duration.ofSeconds(30)); // the live member's commit is accepted in the new generation
            assertTrue(live.groupMetadata().generationId() > generation, "a new generation without the silent member");

            assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), ((HeartbeatResponse)silent.call(new HeartbeatRequestData()
                .setGroupId(GROUP).setMemberId(memberId).setGenerationId(generation), (short)3)).data().errorCode(),
                "the expired member's heartbeat");
            final OffsetCommitRequestData commit = new OffsetCommitRequestData().setGroupId(GROUP)
                .setMemberId(memberId).setGenerationIdOrMemberEpoch(generation);
            commit.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(TOPIC).setPartitions(
                List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                    .setPartitionIndex(silentOwns.get(0).partition()).setCommittedOffset(1))));
            assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), ((OffsetCommitResponse)silent.call(commit, (short)7)).data()
                .topics().get(0).partitions().get(0).errorCode(), "the expired member's commit");
            assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), ((SyncGroupResponse)silent.call(new SyncGroupRequestData()
                .setGroupId(GROUP).setMemberId(memberId).setGenerationId(generation), (short)3)).data().errorCode(),
                "the expired member's sync");
            final DescribeGroupsResponseData.DescribedGroup described = ((DescribeGroupsResponse)silent.call(
                new DescribeGroupsRequestData().setGroups(List.of(GROUP)), (short)5)).data().groups().get(0);
            assertEquals("Stable", described.groupState());
            assertEquals(1, described.members().size(), "only the live member is left");
            assertTrue(!described.members().get(0).memberId().equals(memberId));
        }
    }
}
