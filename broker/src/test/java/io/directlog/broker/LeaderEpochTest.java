package io.directlog.broker;

import static io.directlog.broker.ClusterClients.WAIT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.broker.protocol.PinnedRecords;
import io.directlog.broker.topic.Partition;

/**
 * OffsetForLeaderEpoch (issue 22): answered by the leader from the epochs stamped in the batches, checked against
 * the stamped epochs read back after two leader changes; a kafka-clients consumer that validates its position after
 * a leader change (it does once the broker advertises the API) reads on without a reset, a skip or a repeat; a
 * single node answers its one epoch.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class LeaderEpochTest
{
    private static final String TOPIC = "epochs";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final short VERSION = 4;

    @Test
    void answersFromTheStampedEpochsAfterTwoLeaderChanges() throws Exception
    {
        try (BrokerCluster c = new BrokerCluster("leader-epochs", 3, Map.of(TOPIC, 1));
             KafkaProducer<String, String> producer = ClusterClients.producer(c))
        {
            c.startAll();
            c.awaitLeaders(TOPIC, 1, WAIT);
            produce(producer, 0, 20);
            for (int change = 1; change <= 2; change++)
            {
                final int leader = c.leaderOf(TOPIC, 0);
                c.stop(leader);
                c.awaitLeaders(TOPIC, 1, WAIT);
                produce(producer, change * 20, 20);
                c.start(leader); // a majority stays up for the next change
            }
            final int leader = c.leaderOf(TOPIC, 0);
            final Partition p = c.partition(leader, TOPIC, 0);
            final TreeMap<Integer, Long> starts = stampedEpochStarts(p);
            assertTrue(starts.size() >= 3, "three leaders stamped their epochs: " + starts);
            final int current = p.leaderEpoch();
            final long end = p.highWatermark(); // nothing is in flight: the log end
            try (RawClient client = new RawClient(c.broker(leader)))
            {
                for (int epoch = starts.firstKey() - 1; epoch <= current + 1; epoch++)
                {
                    final long[] expected = expected(starts, epoch, current, end);
                    final OffsetForLeaderEpochResponseData.EpochEndOffset r = ask(client, epoch, current);
                    assertEquals(Errors.NONE.code(), r.errorCode(), "epoch " + epoch);
                    assertArrayEquals(expected, new long[] {r.leaderEpoch(), r.endOffset()},
                        "epoch " + epoch + " (stamped starts " + starts + ", current " + current + ", end " + end + ")");
                }
                assertEquals(Errors.FENCED_LEADER_EPOCH.code(), ask(client, current, current - 1).errorCode());
                assertEquals(Errors.UNKNOWN_LEADER_EPOCH.code(), ask(client, current, current + 1).errorCode());
                assertEquals(Errors.NONE.code(), ask(client, current, -1).errorCode(), "no current epoch: no fencing");
                // Fetch (v9+) and ListOffsets (v4+) name the epoch they expect too (Kafka's Partition.getLocalLog)
                assertEquals(Errors.FENCED_LEADER_EPOCH, fetchError(client, current - 1));
                assertEquals(Errors.UNKNOWN_LEADER_EPOCH, fetchError(client, current + 1));
                assertEquals(Errors.NONE, fetchError(client, current));
                assertEquals(Errors.FENCED_LEADER_EPOCH, listOffsetsError(client, current - 1));
                assertEquals(Errors.UNKNOWN_LEADER_EPOCH, listOffsetsError(client, current + 1));
                assertEquals(Errors.NONE, listOffsetsError(client, current));
            }
            try (RawClient follower = new RawClient(c.broker((leader + 1) % c.size())))
            {
                assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), ask(follower, current, -1).errorCode());
            }
        }
    }

    @Test
    void aConsumerThatValidatesAfterALeaderChangeKeepsReading() throws Exception
    {
        try (BrokerCluster c = new BrokerCluster("epoch-validate", 3, Map.of(TOPIC, 1));
             KafkaProducer<String, String> producer = ClusterClients.producer(c);
             KafkaConsumer<String, String> consumer = ClusterClients.consumer(c, null,
                 Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none")))
        {
            c.startAll();
            c.awaitLeaders(TOPIC, 1, WAIT);
            consumer.assign(List.of(TP));
            consumer.seekToBeginning(List.of(TP));
            final List<ConsumerRecord<String, String>> read = new ArrayList<>();
            produce(producer, 0, 50);
            readUntil(consumer, read, 50);
            for (int change = 1; change <= 2; change++)
            {
                final int leader = c.leaderOf(TOPIC, 0);
                c.stop(leader);
                produce(producer, change * 50, 50);
                readUntil(consumer, read, (change + 1) * 50);
                c.start(leader);
            }
            for (int i = 0; i < read.size(); i++)
            {
                assertEquals(i, read.get(i).offset(), "offsets in order, none skipped or repeated");
                assertEquals("v-" + i, read.get(i).value());
            }
            assertEquals(150, read.size());
            assertTrue(answered(c) > 0, "the consumer validated its position with OffsetForLeaderEpoch");
        }
    }

    @Test
    void aSingleNodeAnswersItsOneEpoch() throws Exception
    {
        try (KafkaBroker broker = KafkaBroker.start(BrokerTestSupport.config(BrokerTestSupport.newDirectory("epoch1")));
             KafkaProducer<String, String> producer = BrokerTestSupport.producer(broker, Map.of()))
        {
            BrokerTestSupport.createTopic(broker, TOPIC, 1, Map.of());
            produce(producer, 0, 7);
            try (RawClient client = new RawClient(broker))
            {
                final OffsetForLeaderEpochResponseData.EpochEndOffset zero = ask(client, 0, 0);
                assertEquals(Errors.NONE.code(), zero.errorCode());
                assertEquals(0, zero.leaderEpoch());
                assertEquals(7, zero.endOffset());
                final OffsetForLeaderEpochResponseData.EpochEndOffset later = ask(client, 1, -1);
                assertEquals(-1, later.leaderEpoch());
                assertEquals(-1, later.endOffset());
                assertEquals(Errors.UNKNOWN_LEADER_EPOCH.code(), ask(client, 0, 1).errorCode());
                assertEquals(Errors.NONE, fetchError(client, 0));
                assertEquals(Errors.NONE, fetchError(client, -1));
                assertEquals(Errors.UNKNOWN_LEADER_EPOCH, fetchError(client, 1));
                assertEquals(Errors.NONE, listOffsetsError(client, 0));
                assertEquals(Errors.UNKNOWN_LEADER_EPOCH, listOffsetsError(client, 1));
            }
        }
    }

    /** Kafka's rule, written out independently: the largest stamped epoch at or below, to the next one's start. */
    private static long[] expected(final TreeMap<Integer, Long> starts, final int epoch, final int current,
        final long end)
    {
        if (epoch < 0 || epoch > current)
        {
            return new long[] {-1, -1};
        }
        if (epoch == current)
        {
            return new long[] {current, end};
        }
        long next = end;
        for (final Map.Entry<Integer, Long> e : starts.entrySet())
        {
            if (e.getKey() > epoch)
            {
                next = e.getValue();
                break;
            }
        }
        int floor = epoch;
        boolean found = false;
        for (final int stamped : starts.keySet())
        {
            if (stamped <= epoch)
            {
                floor = stamped;
                found = true;
            }
        }
        return new long[] {found ? floor : epoch, next};
    }

    private static OffsetForLeaderEpochResponseData.EpochEndOffset ask(final RawClient client, final int epoch,
        final int currentLeaderEpoch) throws Exception
    {
        final OffsetForLeaderEpochRequestData req = new OffsetForLeaderEpochRequestData().setReplicaId(-1);
        final OffsetForLeaderEpochRequestData.OffsetForLeaderTopic t =
            new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(TOPIC);
        t.partitions().add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(0)
            .setLeaderEpoch(epoch).setCurrentLeaderEpoch(currentLeaderEpoch));
        req.topics().add(t);
        final OffsetsForLeaderEpochResponse resp = (OffsetsForLeaderEpochResponse)client.call(req, VERSION);
        return resp.data().topics().find(TOPIC).partitions().get(0);
    }

    /** A Fetch v12 (topic names) of partition 0 from offset 0 naming currentLeaderEpoch; its partition's error. */
    private static Errors fetchError(final RawClient client, final int currentLeaderEpoch) throws Exception
    {
        final FetchRequestData req = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(0)
            .setMaxBytes(1 << 20).setSessionId(0).setSessionEpoch(-1);
        final FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic().setTopic(TOPIC);
        t.partitions().add(new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
            .setCurrentLeaderEpoch(currentLeaderEpoch).setLogStartOffset(-1).setPartitionMaxBytes(1 << 20));
        req.topics().add(t);
        final FetchResponse resp = (FetchResponse)client.call(req, (short)12);
        return Errors.forCode(resp.data().responses().get(0).partitions().get(0).errorCode());
    }

    /** A ListOffsets v7 (latest offset) of partition 0 naming currentLeaderEpoch; its partition's error. */
    private static Errors listOffsetsError(final RawClient client, final int currentLeaderEpoch) throws Exception
    {
        final ListOffsetsRequestData req = new ListOffsetsRequestData().setReplicaId(-1);
        final ListOffsetsRequestData.ListOffsetsTopic t = new ListOffsetsRequestData.ListOffsetsTopic().setName(TOPIC);
        t.partitions().add(new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0)
            .setCurrentLeaderEpoch(currentLeaderEpoch).setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP));
        req.topics().add(t);
        final ListOffsetsResponse resp = (ListOffsetsResponse)client.call(req, (short)7);
        return Errors.forCode(resp.data().topics().get(0).partitions().get(0).errorCode());
    }

    /** Epoch to the base offset of its first batch, read from the stamped batches below the high watermark. */
    private static TreeMap<Integer, Long> stampedEpochStarts(final Partition p)
    {
        final TreeMap<Integer, Long> starts = new TreeMap<>();
        long offset = p.logStartOffset();
        final long hw = p.highWatermark();
        while (offset < hw)
        {
            final PinnedRecords read = p.read(offset, 1 << 20);
            final ByteBuffer b;
            try
            {
                b = read.copy();
            }
            finally
            {
                read.release();
            }
            assertTrue(b.hasRemaining(), "read at " + offset + " below the high watermark " + hw);
            for (final RecordBatch batch : MemoryRecords.readableRecords(b).batches())
            {
                final int epoch = batch.partitionLeaderEpoch();
                if (starts.isEmpty() || epoch > starts.lastKey())
                {
                    starts.put(epoch, batch.baseOffset());
                }
                assertTrue(epoch >= starts.lastKey(), "epochs never decrease along the log");
                offset = batch.nextOffset();
            }
        }
        return starts;
    }

    private static void produce(final KafkaProducer<String, String> producer, final int from, final int count)
        throws Exception
    {
        for (int i = from; i < from + count; i++)
        {
            producer.send(new ProducerRecord<>(TOPIC, 0, null, "v-" + i));
        }
        producer.flush();
    }

    private static void readUntil(final KafkaConsumer<String, String> consumer,
        final List<ConsumerRecord<String, String>> read, final int count)
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (read.size() < count)
        {
            assertTrue(System.nanoTime() < deadline, "the consumer stalled after " + read.size() + " records");
            consumer.poll(Duration.ofMillis(200)).forEach(read::add);
        }
    }

    /** @return how many OffsetForLeaderEpoch requests the running nodes answered. */
    private static long answered(final BrokerCluster c)
    {
        long n = 0;
        for (int i = 0; i < c.size(); i++)
        {
            if (c.running(i))
            {
                final var timer = c.broker(i).meterRegistry().find("directlog.broker.requests")
                    .tag("api", "OffsetForLeaderEpoch").tag("outcome", "response").timer();
                n += timer == null ? 0 : timer.count();
            }
        }
        return n;
    }
}
