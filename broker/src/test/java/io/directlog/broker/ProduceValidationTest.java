package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Produce validates each batch as Kafka's LogValidator does and refuses a bad one with Kafka's error code, storing
 * nothing of it (issue 20: magic 2, CRC, record count, sizes): a flipped payload byte (CORRUPT_MESSAGE), magic 1
 * (INVALID_RECORD), a record count that does not match the last offset delta under a valid CRC (INVALID_RECORD),
 * two batches for one partition (INVALID_RECORD), a batch over the topic's max.message.bytes (MESSAGE_TOO_LARGE).
 * Good batches around them are stored at consecutive offsets.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProduceValidationTest
{
    private static final short PRODUCE_VERSION = 9;
    /** Batch header offsets (Kafka's DefaultRecordBatch). */
    private static final int MAGIC = 16;
    private static final int CRC = 17;
    private static final int ATTRIBUTES = 21;
    private static final int LAST_OFFSET_DELTA = 23;

    @RegisterExtension
    final RunningBroker running = new RunningBroker("validate");

    @BeforeEach
    void createTopic() throws Exception
    {
        BrokerTestSupport.createTopic(running.broker(), "checked", 1, Map.of("max.message.bytes", "2000"));
    }

    private static ByteBuffer batch(final int records, final int valueBytes)
    {
        // no producer id (-1), epoch -1, sequence -1: a plain batch
        final MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate(4096 + records * valueBytes),
            Compression.NONE, 0L, -1L, (short)-1, -1, false);
        for (int i = 0; i < records; i++)
        {
            b.append(1000L + i, null, "v".repeat(valueBytes).getBytes(StandardCharsets.UTF_8));
        }
        final ByteBuffer built = b.build().buffer();
        final ByteBuffer copy = ByteBuffer.allocate(built.remaining());
        copy.put(built.duplicate()).flip();
        return copy;
    }

    private static void recomputeCrc(final ByteBuffer batch)
    {
        final CRC32C crc = new CRC32C();
        crc.update(batch.duplicate().position(ATTRIBUTES));
        batch.putInt(CRC, (int)crc.getValue());
    }

    private ProduceResponseData.PartitionProduceResponse produce(final ByteBuffer records) throws Exception
    {
        try (RawClient c = new RawClient(running.broker()))
        {
            final ProduceRequestData req = new ProduceRequestData().setAcks((short)-1).setTimeoutMs(30_000);
            final ProduceRequestData.TopicProduceData td = new ProduceRequestData.TopicProduceData().setName("checked");
            td.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0)
                .setRecords(MemoryRecords.readableRecords(records)));
            req.topicData().add(td);
            final ProduceResponse r = (ProduceResponse)c.call(req, PRODUCE_VERSION);
            return r.data().responses().iterator().next().partitionResponses().get(0);
        }
    }

    private void assertRefused(final Errors expected, final ByteBuffer records) throws Exception
    {
        final ProduceResponseData.PartitionProduceResponse r = produce(records);
        assertEquals(expected, Errors.forCode(r.errorCode()), r.errorMessage());
    }

    private void assertStoredAt(final long offset) throws Exception
    {
        final ProduceResponseData.PartitionProduceResponse r = produce(batch(2, 10));
        assertEquals(Errors.NONE, Errors.forCode(r.errorCode()), r.errorMessage());
        assertEquals(offset, r.baseOffset());
    }

    @Test
    void badBatchesAreRefusedWithKafkasCodesAndNothingOfThemIsStored() throws Exception
    {
        assertStoredAt(0);

        final ByteBuffer flipped = batch(2, 10);
        flipped.put(flipped.limit() - 1, (byte)(flipped.get(flipped.limit() - 1) ^ 1));
        assertRefused(Errors.CORRUPT_MESSAGE, flipped);

        final ByteBuffer magic1 = batch(2, 10);
        magic1.put(MAGIC, (byte)1);
        assertRefused(Errors.INVALID_RECORD, magic1);

        final ByteBuffer miscounted = batch(2, 10);
        miscounted.putInt(LAST_OFFSET_DELTA, 5); // 2 records, last offset delta 5: the CRC is made valid again
        recomputeCrc(miscounted);
        assertRefused(Errors.INVALID_RECORD, miscounted);

        final ByteBuffer one = batch(1, 10);
        final ByteBuffer two = ByteBuffer.allocate(one.remaining() * 2);
        two.put(one.duplicate()).put(one.duplicate()).flip();
        assertRefused(Errors.INVALID_RECORD, two);

        assertRefused(Errors.MESSAGE_TOO_LARGE, batch(1, 3000));

        assertStoredAt(2); // the first batch took offsets 0 and 1; nothing refused took any
    }
}
