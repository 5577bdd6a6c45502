package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.netty.util.NettyRuntime;

/**
 * Blocking work stays off the network event loops: a Produce whose append waits for room in a full writer queue
 * (the device is held, as a stalled disk would be) must not stop other connections' ApiVersions and Metadata, and a
 * parked long-poll Fetch must not stop its own connection's later requests from running.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EventLoopBlockingTest
{
    /** How long a probe may take; the held append would wait 60 s. */
    private static final Duration PROMPT = Duration.ofSeconds(10);

    private final GatedBlockIo device = new GatedBlockIo();

    @RegisterExtension
    final RunningBroker running = new RunningBroker("eventloop", dir -> BrokerTestSupport.configBuilder(dir)
        // a small writer queue that a held device fills quickly; appends then wait up to 60 s for room
        .storeOptions(b -> b.blockIo(device).writerQueueBytes(64 << 10).appendTimeout(Duration.ofSeconds(60))));

    /** Runs before the broker closes: a held device would hold its close up. */
    @AfterEach
    void releaseDevice()
    {
        device.open();
    }

    private static MemoryRecords batch(final long producerId, final int sequence)
    {
        final MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate(4096), Compression.NONE, 0L,
            producerId, (short)0, sequence, false);
        b.append(1000L + sequence, null, new byte[3000]);
        return b.build();
    }

    private static ProduceRequestData produce(final String topic, final MemoryRecords records)
    {
        final ProduceRequestData req = new ProduceRequestData().setAcks((short)1).setTimeoutMs(90_000);
        final ProduceRequestData.TopicProduceData td = new ProduceRequestData.TopicProduceData().setName(topic);
        td.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
        req.topicData().add(td);
        return req;
    }

    /** @return true when some thread is inside the engine's append, waiting for room in the writer queue. */
    private static boolean anAppendWaitsForRoom()
    {
        for (final Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet())
        {
            for (final StackTraceElement frame : e.getValue())
            {
                if (frame.getMethodName().equals("offerAppend"))
                {
                    return true;
                }
            }
        }
        return false;
    }

    @Test
    void aProduceWaitingForAFullWriterQueueDoesNotStopOtherConnections() throws Exception
    {
        BrokerTestSupport.createTopic(running.broker(), "slow", 1, Map.of());
        try (RawClient producer = new RawClient(running.broker()))
        {
            producer.readTimeout(Duration.ofSeconds(90));
            final long pid = ((InitProducerIdResponse)producer.call(new InitProducerIdRequestData()
                .setTransactionalId(null).setTransactionTimeoutMs(60_000), (short)4)).data().producerId();
            // CreateTopics answers before the partition's log is open (it opens in the background): one produce
            // answered first means the log is open, so that holding the device holds its writes, not its open
            final ProduceResponseData.PartitionProduceResponse first = ((ProduceResponse)producer.call(
                produce("slow", batch(pid, 0)), (short)12)).data().responses().iterator().next()
                .partitionResponses().get(0);
            assertEquals(Errors.NONE.code(), first.errorCode(), "the first produce, before the device is held");
            device.close();
            // pipelined batches of one idempotent producer: they must also reach the log in the order sent
            final int requests = 60;
            final List<RequestHeader> sent = new ArrayList<>();
            for (int i = 1; i <= requests; i++)
            {
                sent.add(producer.send(produce("slow", batch(pid, i)), (short)12));
            }
            assertTrue(device.awaitHeldWrite(30, TimeUnit.SECONDS), "the partition's write reached the device");
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!anAppendWaitsForRoom())
            {
                assertTrue(System.nanoTime() < deadline, "no append came to wait for room in the writer queue");
                Thread.onSpinWait();
            }
            // one probe per event loop and then some: round-robin puts at least one on the producer's loop
            final int probes = 2 * NettyRuntime.availableProcessors() + 2;
            for (int i = 0; i < probes; i++)
            {
                try (RawClient probe = new RawClient(running.broker()))
                {
                    probe.readTimeout(PROMPT);
                    final long start = System.nanoTime();
                    final ApiVersionsResponse versions = (ApiVersionsResponse)probe.call(new ApiVersionsRequestData()
                        .setClientSoftwareName("probe").setClientSoftwareVersion("1"), (short)3);
                    assertEquals(Errors.NONE.code(), versions.data().errorCode());
                    final MetadataResponse metadata = (MetadataResponse)probe.call(new MetadataRequestData()
                        .setTopics(null).setAllowAutoTopicCreation(false), (short)12);
                    assertEquals(1, metadata.topicMetadata().size());
                    assertTrue(System.nanoTime() - start < PROMPT.toNanos(), "probe " + i + " answered late");
                }
            }
            assertTrue(anAppendWaitsForRoom(), "the append still waits: the probes ran while it was blocked");
            device.open();
            long expected = 1;
            for (final RequestHeader h : sent)
            {
                final ProduceResponseData.PartitionProduceResponse r = ((ProduceResponse)producer.receive(h)).data()
                    .responses().iterator().next().partitionResponses().get(0);
                assertEquals(Errors.NONE.code(), r.errorCode(), "request " + h.correlationId());
                assertEquals(expected++, r.baseOffset(), "request " + h.correlationId());
            }
        }
    }

    @Test
    void aParkedFetchLeavesItsConnectionFreeForAProduceThatWakesIt() throws Exception
    {
        BrokerTestSupport.createTopic(running.broker(), "wake", 1, Map.of());
        final org.apache.kafka.common.Uuid id = running.broker().topics().topic("wake").id();
        try (RawClient c = new RawClient(running.broker()))
        {
            c.readTimeout(PROMPT);
            final FetchRequestData fetch = new FetchRequestData().setMaxWaitMs(60_000).setMinBytes(1)
                .setMaxBytes(1 << 20).setReplicaId(-1).setIsolationLevel((byte)0);
            fetch.topics().add(new FetchRequestData.FetchTopic().setTopic("wake").setTopicId(id)
                .setPartitions(List.of(new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                    .setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(-1).setLogStartOffset(-1))));
            final RequestHeader parked = c.send(fetch, (short)12);
            final RequestHeader produced = c.send(produce("wake", batch(-1, -1)), (short)12);
            // the Fetch is answered first (request order), with the record the Produce behind it appended
            final FetchResponseData.PartitionData pd = ((FetchResponse)c.receive(parked)).data().responses().get(0)
                .partitions().get(0);
            assertEquals(Errors.NONE.code(), pd.errorCode());
            assertEquals(1, pd.highWatermark());
            assertTrue(MemoryRecords.readableRecords(((MemoryRecords)pd.records()).buffer()).sizeInBytes() > 0);
            assertEquals(Errors.NONE.code(), ((ProduceResponse)c.receive(produced)).data().responses().iterator()
                .next().partitionResponses().get(0).errorCode());
        }
    }
}
