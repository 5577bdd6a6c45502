package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
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
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Group membership as Kafka has it since 2.2/2.3: MEMBER_ID_REQUIRED on a dynamic member's first join (KIP-394),
 * static members (KIP-345) that rejoin without a rebalance and fence their old member id, and a stable group's
 * members kept across a broker restart.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GroupMembershipTest
{
    private static final short JOIN_V = 5;
    private static final String INSTANCE = "instance-1";

    @RegisterExtension
    final RunningBroker running = new RunningBroker("groups");

    private static JoinGroupRequestData join(final String group, final String memberId, final String instanceId)
    {
        final JoinGroupRequestData join = new JoinGroupRequestData().setGroupId(group).setMemberId(memberId)
            .setGroupInstanceId(instanceId).setSessionTimeoutMs(30_000).setRebalanceTimeoutMs(30_000)
            .setProtocolType("consumer");
        join.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
            .setMetadata(new byte[] {1}));
        return join;
    }

    private static JoinGroupResponseData call(final RawClient c, final JoinGroupRequestData join) throws Exception
    {
        return ((JoinGroupResponse)c.call(join, JOIN_V)).data();
    }

    private static SyncGroupResponseData sync(final RawClient c, final String group, final String memberId,
        final String instanceId, final int generation, final byte[] assignment) throws Exception
    {
        final SyncGroupRequestData sync = new SyncGroupRequestData().setGroupId(group).setMemberId(memberId)
            .setGroupInstanceId(instanceId).setGenerationId(generation);
        if (assignment != null)
        {
            sync.assignments().add(new SyncGroupRequestData.SyncGroupRequestAssignment().setMemberId(memberId)
                .setAssignment(assignment));
        }
        return ((SyncGroupResponse)c.call(sync, (short)3)).data();
    }

    private static short heartbeat(final RawClient c, final String group, final String memberId,
        final String instanceId, final int generation) throws Exception
    {
        return ((HeartbeatResponse)c.call(new HeartbeatRequestData().setGroupId(group).setMemberId(memberId)
            .setGroupInstanceId(instanceId).setGenerationId(generation), (short)3)).data().errorCode();
    }

    @Test
    void aDynamicMemberFirstGetsMemberIdRequiredAndJoinsWithTheIdGiven() throws Exception
    {
        try (RawClient c = new RawClient(running.broker()))
        {
            final JoinGroupResponseData first = call(c, join("dyn", "", null));
            assertEquals(Errors.MEMBER_ID_REQUIRED.code(), first.errorCode());
            assertTrue(!first.memberId().isEmpty(), "the id to join with");
            assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), call(c, join("dyn", "made-up-id", null)).errorCode(),
                "only an id the coordinator handed out may join");
            final JoinGroupResponseData joined = call(c, join("dyn", first.memberId(), null));
            assertEquals(Errors.NONE.code(), joined.errorCode());
            assertEquals(first.memberId(), joined.memberId());
            assertEquals(first.memberId(), joined.leader());
            final DescribeGroupsResponseData.DescribedGroup described = ((DescribeGroupsResponse)c.call(
                new DescribeGroupsRequestData().setGroups(List.of("dyn")), (short)5)).data().groups().get(0);
            assertEquals(1, described.members().size(), "no ghost member from the first join");
        }
    }

    /** Joins a dynamic member: MEMBER_ID_REQUIRED first, then the join with the id given (sent, not awaited). */
    private static org.apache.kafka.common.requests.RequestHeader startJoin(final RawClient c, final String group)
        throws Exception
    {
        final JoinGroupResponseData first = call(c, join(group, "", null));
        assertEquals(Errors.MEMBER_ID_REQUIRED.code(), first.errorCode());
        return c.send(join(group, first.memberId(), null), JOIN_V);
    }

    @Test
    void aFollowerRejoiningWithUnchangedProtocolsGetsTheCurrentGenerationWithoutARebalance() throws Exception
    {
        try (RawClient a = new RawClient(running.broker()); RawClient b = new RawClient(running.broker()))
        {
            // a forms the group alone; b's join then parks until a rejoins, and both get the next generation
            final JoinGroupResponseData alone = ((JoinGroupResponse)a.receive(startJoin(a, "followers"))).data();
            assertEquals(Errors.NONE.code(), alone.errorCode());
            final org.apache.kafka.common.requests.RequestHeader hb = startJoin(b, "followers");
            // b's join is in once a's heartbeat is told to rejoin; bounded in tries and time
            final long deadline = System.nanoTime() + BrokerTestSupport.TIMEOUT.toNanos();
            while (heartbeat(a, "followers", alone.memberId(), null, alone.generationId()) !=
                Errors.REBALANCE_IN_PROGRESS.code())
            {
                assertTrue(System.nanoTime() < deadline, "b's join never started a rebalance");
            }
            final JoinGroupResponseData ja = call(a, join("followers", alone.memberId(), null));
            final JoinGroupResponseData jb = ((JoinGroupResponse)b.receive(hb)).data();
            assertEquals(Errors.NONE.code(), ja.errorCode());
            assertEquals(ja.generationId(), jb.generationId());
            final JoinGroupResponseData leader = ja.memberId().equals(ja.leader()) ? ja : jb;
            final JoinGroupResponseData follower = leader == ja ? jb : ja;
            final RawClient leaderClient = leader == ja ? a : b;
            final RawClient followerClient = leader == ja ? b : a;
            final int generation = leader.generationId();
            final org.apache.kafka.common.requests.RequestHeader followerSync = followerClient.send(
                new SyncGroupRequestData().setGroupId("followers").setMemberId(follower.memberId())
                    .setGenerationId(generation), (short)3);
            final SyncGroupRequestData leaderSync = new SyncGroupRequestData().setGroupId("followers")
                .setMemberId(leader.memberId()).setGenerationId(generation);
            leaderSync.assignments().add(new SyncGroupRequestData.SyncGroupRequestAssignment()
                .setMemberId(follower.memberId()).setAssignment(new byte[] {5}));
            assertEquals(Errors.NONE.code(), ((SyncGroupResponse)leaderClient.call(leaderSync, (short)3)).data()
                .errorCode());
            assertEquals(5, ((SyncGroupResponse)followerClient.receive(followerSync)).data().assignment()[0]);

            final JoinGroupResponseData again = call(followerClient, join("followers", follower.memberId(), null));
            assertEquals(Errors.NONE.code(), again.errorCode());
            assertEquals(generation, again.generationId(), "no rebalance for an unchanged follower");
            assertEquals(leader.memberId(), again.leader());
            assertEquals(Errors.NONE.code(), heartbeat(leaderClient, "followers", leader.memberId(), null, generation),
                "the leader was not asked to rejoin");
            assertEquals(5, sync(followerClient, "followers", follower.memberId(), null, generation, null)
                .assignment()[0], "the follower's assignment is unchanged");

            final JoinGroupRequestData changed = join("followers", follower.memberId(), null);
            changed.protocols().iterator().next().setMetadata(new byte[] {2});
            final org.apache.kafka.common.requests.RequestHeader parked = followerClient.send(changed, JOIN_V);
            // the changed join was only sent: the leader's heartbeat is told to rejoin once it is in
            final long changedBy = System.nanoTime() + BrokerTestSupport.TIMEOUT.toNanos();
            short error;
            while ((error = heartbeat(leaderClient, "followers", leader.memberId(), null, generation)) ==
                Errors.NONE.code() && System.nanoTime() < changedBy)
            {
                Thread.onSpinWait();
            }
            assertEquals(Errors.REBALANCE_IN_PROGRESS.code(), error, "a changed subscription rebalances");
            final JoinGroupResponseData leaderRejoin = call(leaderClient, join("followers", leader.memberId(), null));
            assertEquals(generation + 1, leaderRejoin.generationId());
            assertEquals(generation + 1, ((JoinGroupResponse)followerClient.receive(parked)).data().generationId());
        }
    }

    @Test
    void aStaticMemberRejoinsWithoutARebalanceFencesItsOldIdAndKeepsItsPlaceAcrossARestart() throws Exception
    {
        final String oldId;
        final String newId;
        final int generation;
        try (RawClient c = new RawClient(running.broker()))
        {
            final JoinGroupResponseData first = call(c, join("static", "", INSTANCE));
            assertEquals(Errors.NONE.code(), first.errorCode(), "a static member joins at once");
            oldId = first.memberId();
            generation = first.generationId();
            assertEquals(Errors.NONE.code(), sync(c, "static", oldId, INSTANCE, generation, new byte[] {42}).errorCode());

            final JoinGroupResponseData again = call(c, join("static", "", INSTANCE));
            assertEquals(Errors.NONE.code(), again.errorCode());
            newId = again.memberId();
            assertNotEquals(oldId, newId);
            assertEquals(generation, again.generationId(), "no rebalance");
            assertEquals(oldId, again.leader(), "the current leader is reported, so the new id runs no assignment");
            final SyncGroupResponseData assigned = sync(c, "static", newId, INSTANCE, generation, null);
            assertEquals(Errors.NONE.code(), assigned.errorCode());
            assertEquals(42, assigned.assignment()[0], "the old member's assignment");

            assertEquals(Errors.FENCED_INSTANCE_ID.code(), heartbeat(c, "static", oldId, INSTANCE, generation));
            assertEquals(Errors.FENCED_INSTANCE_ID.code(), call(c, join("static", oldId, INSTANCE)).errorCode());
            final OffsetCommitRequestData commit = new OffsetCommitRequestData().setGroupId("static")
                .setMemberId(oldId).setGroupInstanceId(INSTANCE).setGenerationIdOrMemberEpoch(generation);
            commit.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("t").setPartitions(
                List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0)
                    .setCommittedOffset(1))));
            assertEquals(Errors.FENCED_INSTANCE_ID.code(), ((OffsetCommitResponse)c.call(commit, (short)7)).data()
                .topics().get(0).partitions().get(0).errorCode());
            assertEquals(Errors.NONE.code(), heartbeat(c, "static", newId, INSTANCE, generation));
        }
        running.restartOnSamePort();
        try (RawClient c = new RawClient(running.broker()))
        {
            assertEquals(Errors.NONE.code(), heartbeat(c, "static", newId, INSTANCE, generation),
                "the stable group's members were stored");
            assertEquals(Errors.FENCED_INSTANCE_ID.code(), heartbeat(c, "static", oldId, INSTANCE, generation));
            final SyncGroupResponseData assigned = sync(c, "static", newId, INSTANCE, generation, null);
            assertEquals(42, assigned.assignment()[0], "the assignment was stored");
            final DescribeGroupsResponseData.DescribedGroup described = ((DescribeGroupsResponse)c.call(
                new DescribeGroupsRequestData().setGroups(List.of("static")), (short)5)).data().groups().get(0);
            assertEquals("Stable", described.groupState());
            assertEquals(List.of(newId), described.members().stream().map(m -> m.memberId()).toList());
        }
    }

    private void produce(final String topic, final int count) throws Exception
    {
        try (KafkaProducer<String, String> p = BrokerTestSupport.producer(running.broker(), Map.of()))
        {
            for (int i = 0; i < count; i++)
            {
                p.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get();
            }
        }
    }

    private KafkaConsumer<String, String> staticConsumer(final String group)
    {
        final Map<String, Object> extra = new HashMap<>();
        extra.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        extra.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, INSTANCE);
        extra.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 30_000);
        extra.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 20);
        return BrokerTestSupport.consumer(running.broker(), extra);
    }

    /** Polls, committing after each poll, until {@code total} values are in {@code seen} or the time is up. */
    private static void consumeUntil(final KafkaConsumer<String, String> c, final List<String> seen, final int total)
    {
        final long deadline = System.nanoTime() + BrokerTestSupport.TIMEOUT.toNanos() * 2;
        for (int polls = 0; polls < 10_000 && seen.size() < total && System.nanoTime() < deadline; polls++)
        {
            for (final ConsumerRecord<String, String> r : c.poll(java.time.Duration.ofMillis(200)))
            {
                seen.add(r.value());
            }
            c.commitSync();
        }
    }

    private static void assertEveryValueOnce(final List<String> seen, final int total)
    {
        final Set<String> distinct = new HashSet<>(seen);
        assertEquals(total, distinct.size(), "every record consumed");
        assertEquals(total, seen.size(), "none twice (each poll was committed)");
    }

    @Test
    void aRestartedStaticConsumerResumesFromItsCommitsInTheSameGeneration() throws Exception
    {
        BrokerTestSupport.createTopic(running.broker(), "static-t", 2, Map.of());
        produce("static-t", 200);
        final List<String> seen = new ArrayList<>();
        final int generation;
        try (KafkaConsumer<String, String> c = staticConsumer("static-g"))
        {
            c.subscribe(List.of("static-t"));
            consumeUntil(c, seen, 100);
            assertTrue(seen.size() >= 100, "consumed " + seen.size());
            generation = c.groupMetadata().generationId();
        } // a static member sends no LeaveGroup: it keeps its place for its session timeout
        try (KafkaConsumer<String, String> c = staticConsumer("static-g"))
        {
            c.subscribe(List.of("static-t"));
            consumeUntil(c, seen, 200);
            assertEquals(generation, c.groupMetadata().generationId(), "the rejoin caused no rebalance");
        }
        assertEveryValueOnce(seen, 200);
    }

    @Test
    void aStaticConsumerGoesOnInItsGenerationAcrossABrokerRestart() throws Exception
    {
        BrokerTestSupport.createTopic(running.broker(), "restart-t", 2, Map.of());
        produce("restart-t", 200);
        final List<String> seen = new ArrayList<>();
        try (KafkaConsumer<String, String> c = staticConsumer("restart-g"))
        {
            c.subscribe(List.of("restart-t"));
            consumeUntil(c, seen, 100);
            final int generation = c.groupMetadata().generationId();
            running.restartOnSamePort(); // running clients reconnect to their bootstrap address
            consumeUntil(c, seen, 200);
            assertEquals(generation, c.groupMetadata().generationId(),
                "the stored membership answered the consumer's heartbeats: no rejoin");
        }
        assertEveryValueOnce(seen, 200);
    }
}
