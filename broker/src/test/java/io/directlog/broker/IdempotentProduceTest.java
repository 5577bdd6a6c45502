package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Kafka's idempotent-producer sequence rules, and that they hold across a restart. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IdempotentProduceTest
{
    private static final short PRODUCE_VERSION = 12;

    @RegisterExtension
    final RunningBroker running = new RunningBroker("idempotent");

    @BeforeEach
    void createTopic() throws Exception
    {
        BrokerTestSupport.createTopic(running.broker(), "seq", 1, java.util.Map.of());
    }

    private static MemoryRecords batch(final long producerId, final short epoch, final int baseSequence,
        final int count)
    {
        final MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate(1024), Compression.NONE, 0L,
            producerId, epoch, baseSequence, false);
        for (int i = 0; i < count; i++)
        {
            b.append(1000L + i, null, ("v" + (baseSequence + i)).getBytes(StandardCharsets.UTF_8));
        }
        return b.build();
    }

    private ProduceResponseData.PartitionProduceResponse produce(final RawClient c, final MemoryRecords records)
        throws Exception
    {
        final ProduceRequestData req = new ProduceRequestData().setAcks((short)-1).setTimeoutMs(30_000);
        final ProduceRequestData.TopicProduceData td = new ProduceRequestData.TopicProduceData().setName("seq");
        td.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
        req.topicData().add(td);
        final ProduceResponse r = (ProduceResponse)c.call(req, PRODUCE_VERSION);
        return r.data().responses().iterator().next().partitionResponses().get(0);
    }

    private long producerId(final RawClient c) throws Exception
    {
        final InitProducerIdResponseData r = ((InitProducerIdResponse)c.call(new InitProducerIdRequestData()
            .setTransactionalId(null).setTransactionTimeoutMs(60_000), (short)4)).data();
        assertEquals(Errors.NONE.code(), r.errorCode());
        return r.producerId();
    }

    @Test
    void duplicatesGetTheOriginalOffsetsAndGapsAreRefusedAlsoAfterARestart() throws Exception
    {
        final long pid;
        try (RawClient c = new RawClient(running.broker()))
        {
            pid = producerId(c);
            assertEquals(0, produce(c, batch(pid, (short)0, 0, 3)).baseOffset());
            assertEquals(3, produce(c, batch(pid, (short)0, 3, 2)).baseOffset());
            final ProduceResponseData.PartitionProduceResponse dup = produce(c, batch(pid, (short)0, 0, 3));
            assertEquals(Errors.NONE.code(), dup.errorCode());
            assertEquals(0, dup.baseOffset());
            assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code(), produce(c, batch(pid, (short)0, 9, 1)).errorCode());
            assertEquals(5, produce(c, batch(pid, (short)0, 5, 1)).baseOffset());
            assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code(), produce(c, batch(pid, (short)1, 6, 1)).errorCode(),
                "a new epoch starts at sequence 0");
            assertEquals(6, produce(c, batch(pid, (short)1, 0, 1)).baseOffset());
            assertEquals(Errors.INVALID_PRODUCER_EPOCH.code(), produce(c, batch(pid, (short)0, 6, 1)).errorCode());
        }
        running.restart();
        try (RawClient c = new RawClient(running.broker()))
        {
            assertEquals(6, produce(c, batch(pid, (short)1, 0, 1)).baseOffset(), "recovered from the stored batches");
            assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code(), produce(c, batch(pid, (short)1, 9, 1)).errorCode());
            assertEquals(7, produce(c, batch(pid, (short)1, 1, 1)).baseOffset());
            final long next = producerId(c);
            assertEquals(true, next > pid, "producer ids are not reused after a restart");
        }
    }
}
