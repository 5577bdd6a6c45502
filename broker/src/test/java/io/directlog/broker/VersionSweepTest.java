package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.broker.protocol.SupportedApis;

/**
 * Every advertised version of every API, with the codec's default request: the broker answers with a response the
 * client's codec can read at that version, and keeps the connection. Catches fields written at versions that do not
 * have them, and response shapes that differ by version.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class VersionSweepTest
{
    @Test
    void everyAdvertisedVersionGetsAReadableResponse() throws Exception
    {
        final List<String> failures = new ArrayList<>();
        try (KafkaBroker broker = KafkaBroker.start(BrokerTestSupport.config(BrokerTestSupport.newDirectory("sweep"))))
        {
            for (final Map.Entry<ApiKeys, short[]> e : SupportedApis.ranges().entrySet())
            {
                final ApiKeys key = e.getKey();
                for (short v = SupportedApis.lowestParsable(key); v <= e.getValue()[1]; v++)
                {
                    final ApiMessage request = ApiMessageType.fromApiKey(key.id).newRequest();
                    if (request instanceof ProduceRequestData produce)
                    {
                        produce.setAcks((short)-1); // acks=0 has no response to read
                    }
                    try (RawClient c = new RawClient(broker))
                    {
                        final AbstractResponse r = c.call(request, v);
                        if (r.apiKey() != key)
                        {
                            failures.add(key + " v" + v + ": answered as " + r.apiKey());
                        }
                    }
                    catch (final IOException | RuntimeException ex)
                    {
                        failures.add(key + " v" + v + ": " + ex);
                    }
                }
            }
        }
        assertEquals(List.of(), failures);
    }

    @Test
    void produceAndFetchByNameRoundTripAtEveryVersion() throws Exception
    {
        try (KafkaBroker broker = KafkaBroker.start(BrokerTestSupport.config(BrokerTestSupport.newDirectory("sweep"))))
        {
            BrokerTestSupport.createTopic(broker, "sweep", 1, Map.of());
            try (RawClient c = new RawClient(broker))
            {
                long expected = 0;
                for (short v = 3; v <= 12; v++, expected++)
                {
                    final ProduceRequestData produce = new ProduceRequestData().setAcks((short)-1).setTimeoutMs(30_000);
                    final ProduceRequestData.TopicProduceData td = new ProduceRequestData.TopicProduceData()
                        .setName("sweep");
                    td.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(
                        org.apache.kafka.common.record.internal.MemoryRecords.withRecords(
                            org.apache.kafka.common.compress.Compression.NONE,
                            new org.apache.kafka.common.record.internal.SimpleRecord(("v" + v).getBytes(
                                java.nio.charset.StandardCharsets.UTF_8)))));
                    produce.topicData().add(td);
                    final org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse pr =
                        ((org.apache.kafka.common.requests.ProduceResponse)c.call(produce, v)).data().responses()
                            .iterator().next().partitionResponses().get(0);
                    assertEquals(0, pr.errorCode(), "Produce v" + v);
                    assertEquals(expected, pr.baseOffset(), "Produce v" + v);
                }
                for (short v = 1; v <= 10; v++)
                {
                    final org.apache.kafka.common.message.ListOffsetsRequestData list =
                        new org.apache.kafka.common.message.ListOffsetsRequestData().setReplicaId(-1);
                    final org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic lt =
                        new org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic().setName("sweep");
                    lt.partitions().add(new org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition()
                        .setPartitionIndex(0).setTimestamp(-1));
                    list.topics().add(lt);
                    final org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse lr =
                        ((org.apache.kafka.common.requests.ListOffsetsResponse)c.call(list, v)).data().topics().get(0)
                            .partitions().get(0);
                    assertEquals(0, lr.errorCode(), "ListOffsets v" + v);
                    assertEquals(10, lr.offset(), "ListOffsets v" + v);
                }
                for (short v = 4; v <= 12; v++)
                {
                    final org.apache.kafka.common.message.FetchRequestData fetch =
                        new org.apache.kafka.common.message.FetchRequestData().setMaxWaitMs(0).setMinBytes(1)
                            .setMaxBytes(1 << 20).setReplicaId(-1);
                    final org.apache.kafka.common.message.FetchRequestData.FetchTopic ft =
                        new org.apache.kafka.common.message.FetchRequestData.FetchTopic().setTopic("sweep");
                    ft.partitions().add(new org.apache.kafka.common.message.FetchRequestData.FetchPartition()
                        .setPartition(0).setFetchOffset(v - 4).setPartitionMaxBytes(1 << 20));
                    fetch.topics().add(ft);
                    final org.apache.kafka.common.message.FetchResponseData.PartitionData pd =
                        ((org.apache.kafka.common.requests.FetchResponse)c.call(fetch, v)).data().responses().get(0)
                            .partitions().get(0);
                    assertEquals(0, pd.errorCode(), "Fetch v" + v);
                    assertEquals(10, pd.highWatermark(), "Fetch v" + v);
                    assertEquals(true, pd.records().sizeInBytes() > 0, "Fetch v" + v + " returned no records: " + pd);
                    final org.apache.kafka.common.record.internal.RecordBatch first =
                        ((org.apache.kafka.common.record.internal.MemoryRecords)pd.records()).batches().iterator().next();
                    assertEquals(v - 4, first.baseOffset(), "Fetch v" + v + " starts at the batch holding the offset");
                }
            }
        }
    }

    @Test
    void aGroupHandshakeWorksAtEveryJoinGroupVersion() throws Exception
    {
        try (KafkaBroker broker = KafkaBroker.start(BrokerTestSupport.config(BrokerTestSupport.newDirectory("sweep")));
             RawClient c = new RawClient(broker))
        {
            for (short v = 0; v <= 9; v++)
            {
                final String group = "sweep-" + v;
                final org.apache.kafka.common.message.JoinGroupRequestData join =
                    new org.apache.kafka.common.message.JoinGroupRequestData().setGroupId(group).setMemberId("")
                        .setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(10_000).setProtocolType("consumer");
                join.protocols().add(new org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol()
                    .setName("range").setMetadata(new byte[] {1, 2}));
                org.apache.kafka.common.message.JoinGroupResponseData jr =
                    ((org.apache.kafka.common.requests.JoinGroupResponse)c.call(join, v)).data();
                if (v >= 4)
                {
                    // KIP-394: the first join gets MEMBER_ID_REQUIRED and the id to join with, as from Kafka 2.2
                    assertEquals(org.apache.kafka.common.protocol.Errors.MEMBER_ID_REQUIRED.code(), jr.errorCode(),
                        "JoinGroup v" + v);
                    assertEquals(false, jr.memberId().isEmpty(), "JoinGroup v" + v);
                    jr = ((org.apache.kafka.common.requests.JoinGroupResponse)c.call(join.setMemberId(jr.memberId()),
                        v)).data();
                }
                assertEquals(0, jr.errorCode(), "JoinGroup v" + v);
                assertEquals("range", jr.protocolName(), "JoinGroup v" + v);
                assertEquals(jr.memberId(), jr.leader(), "JoinGroup v" + v);
                final short syncV = (short)Math.min(v, 5);
                final org.apache.kafka.common.message.SyncGroupRequestData sync =
                    new org.apache.kafka.common.message.SyncGroupRequestData().setGroupId(group)
                        .setMemberId(jr.memberId()).setGenerationId(jr.generationId()).setProtocolType("consumer")
                        .setProtocolName("range");
                sync.assignments().add(new org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment()
                    .setMemberId(jr.memberId()).setAssignment(new byte[] {7}));
                final org.apache.kafka.common.message.SyncGroupResponseData sr =
                    ((org.apache.kafka.common.requests.SyncGroupResponse)c.call(sync, syncV)).data();
                assertEquals(0, sr.errorCode(), "SyncGroup v" + syncV);
                assertEquals(7, sr.assignment()[0], "SyncGroup v" + syncV);
                final short hbV = (short)Math.min(v, 4);
                assertEquals(0, ((org.apache.kafka.common.requests.HeartbeatResponse)c.call(
                    new org.apache.kafka.common.message.HeartbeatRequestData().setGroupId(group)
                        .setMemberId(jr.memberId()).setGenerationId(jr.generationId()), hbV)).data().errorCode(),
                    "Heartbeat v" + hbV);
                final short leaveV = (short)Math.min(v, 5);
                final org.apache.kafka.common.message.LeaveGroupRequestData leave =
                    new org.apache.kafka.common.message.LeaveGroupRequestData().setGroupId(group);
                if (leaveV < 3)
                {
                    leave.setMemberId(jr.memberId());
                }
                else
                {
                    leave.members().add(new org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity()
                        .setMemberId(jr.memberId()));
                }
                assertEquals(0, ((org.apache.kafka.common.requests.LeaveGroupResponse)c.call(leave, leaveV)).data()
                    .errorCode(), "LeaveGroup v" + leaveV);
            }
        }
    }
}
