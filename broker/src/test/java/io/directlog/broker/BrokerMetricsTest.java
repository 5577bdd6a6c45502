package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The broker's meters after real requests: the error codes of the responses per API and Kafka error name (Kafka's
 * ErrorsPerSec), and the number of groups per state (Kafka's NumGroups gauges).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BrokerMetricsTest
{
    private static final String ERRORS = "directlog.broker.request.errors";

    @RegisterExtension
    final RunningBroker running = new RunningBroker("metrics-tags");

    private MeterRegistry registry()
    {
        return running.broker().meterRegistry();
    }

    private double errors(final String api, final Errors error)
    {
        final Counter c = registry().find(ERRORS).tags("api", api, "error", error.name()).counter();
        return c == null ? 0 : c.count();
    }

    private static ProduceRequestData produce(final String topic, final int... partitions)
    {
        final ProduceRequestData req = new ProduceRequestData().setAcks((short)-1).setTimeoutMs(30_000);
        final ProduceRequestData.TopicProduceData td = new ProduceRequestData.TopicProduceData().setName(topic);
        for (final int p : partitions)
        {
            td.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(p).setRecords(
                MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("v".getBytes(StandardCharsets.UTF_8)))));
        }
        req.topicData().add(td);
        return req;
    }

    @Test
    void responsesAreCountedPerApiAndKafkaErrorName() throws Exception
    {
        BrokerTestSupport.createTopic(running.broker(), "present", 2, Map.of());
        final double apiVersionsBefore = errors("ApiVersions", Errors.NONE); // the admin client's
        try (RawClient c = new RawClient(running.broker()))
        {
            c.call(new ApiVersionsRequestData(), (short)3);
            final ProduceResponse missing = (ProduceResponse)c.call(produce("missing", 0, 1, 2), (short)9);
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), missing.data().responses().iterator().next()
                .partitionResponses().get(0).errorCode());
            // partition 5 of a topic of two does not exist either: one request, two outcomes
            c.call(produce("present", 0, 1, 5), (short)9);
            assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), ((org.apache.kafka.common.requests.HeartbeatResponse)c.call(
                new HeartbeatRequestData().setGroupId("g").setMemberId("nobody").setGenerationId(1), (short)3))
                .data().errorCode());
            // v0-2 carry the error at the top, with no member list (kafka-clients' versioned wrapper refuses that)
            c.call(new LeaveGroupRequestData().setGroupId("g").setMemberId("nobody"), (short)0);
        }
        assertEquals(1, errors("LeaveGroup", Errors.UNKNOWN_MEMBER_ID), "a LeaveGroup v0 error is counted");
        assertEquals(apiVersionsBefore + 1, errors("ApiVersions", Errors.NONE));
        assertEquals(4, errors("Produce", Errors.UNKNOWN_TOPIC_OR_PARTITION), "3 partitions of a missing topic, 1 " +
            "missing partition of a topic");
        assertEquals(2, errors("Produce", Errors.NONE), "the two partitions that exist");
        assertEquals(1, errors("Heartbeat", Errors.UNKNOWN_MEMBER_ID));
        assertNull(registry().find(ERRORS).tags("api", "Heartbeat", "error", Errors.NONE.name()).counter(),
            "counters exist only for the error codes seen");
        assertEquals(2, registry().find("directlog.broker.requests").tags("api", "Produce", "outcome", "response")
            .timer().count(), "the timer still counts requests, not partitions");
    }

    private double groups(final String state)
    {
        final Gauge g = registry().find("directlog.broker.groups").tags("state", state).gauge();
        assertNotNull(g, "no gauge for state " + state);
        return g.value();
    }

    /** Waits, bounded, for the coordinator's sweep (every half second) to publish the counts. */
    private void awaitGroups(final String state, final double expected)
    {
        final long deadline = System.nanoTime() + BrokerTestSupport.TIMEOUT.toNanos();
        while (groups(state) != expected)
        {
            assertTrue(System.nanoTime() < deadline, "groups in " + state + ": " + groups(state) + ", expected " +
                expected);
            Thread.onSpinWait();
        }
    }

    @Test
    void groupsAreCountedPerState() throws Exception
    {
        for (final String state : List.of("Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead"))
        {
            assertEquals(0, groups(state), state);
        }
        try (RawClient c = new RawClient(running.broker()))
        {
            final JoinGroupRequestData join = new JoinGroupRequestData().setGroupId("gauged").setMemberId("")
                .setGroupInstanceId("static-1").setSessionTimeoutMs(30_000).setRebalanceTimeoutMs(30_000)
                .setProtocolType("consumer");
            join.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
                .setMetadata(new byte[] {1}));
            final JoinGroupResponseData joined = ((JoinGroupResponse)c.call(join, (short)5)).data();
            assertEquals(Errors.NONE.code(), joined.errorCode());
            awaitGroups("CompletingRebalance", 1);
            assertEquals(Errors.NONE.code(), ((SyncGroupResponse)c.call(new SyncGroupRequestData().setGroupId("gauged")
                .setMemberId(joined.memberId()).setGroupInstanceId("static-1").setGenerationId(joined.generationId()),
                (short)3)).data().errorCode());
            awaitGroups("Stable", 1);
            assertEquals(0, groups("CompletingRebalance"));
            c.call(new LeaveGroupRequestData().setGroupId("gauged").setMembers(List.of(
                new LeaveGroupRequestData.MemberIdentity().setGroupInstanceId("static-1"))), (short)3);
            awaitGroups("Empty", 1);
            assertEquals(0, groups("Stable"));
        }
    }
}
