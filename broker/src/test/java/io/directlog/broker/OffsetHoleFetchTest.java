package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.storage.RecoveryMode;

/**
 * A partition log with a hole in its offsets (issue 17, docs/durability.md "Holes in the offsets"): a middle
 * segment of a cleanly closed log is lost, and TRUNCATE_AT_CORRUPTION opens it with the records before the lost
 * segment (the engine cuts there: the later segments are not served either) and goes on at the checkpoint's end,
 * so the hole runs from the first lost offset to the old end and no offset is given twice. A record produced
 * afterwards takes the old end offset, and a real consumer reading from the start goes over the hole: a Fetch at
 * an offset in it returns the batch after it, whose base offset is higher (Kafka's consumers accept that, as
 * compaction makes it normal). Until that append, a consumer at the hole's start gets empty fetches: there is no
 * batch to move its position past the hole.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class OffsetHoleFetchTest
{
    private static final String TOPIC = "holed";
    private static final int RECORDS = 3_000;
    private static final String PAD = "x".repeat(1_000);

    private static BrokerConfig config(final Path dir, final int port)
    {
        return BrokerTestSupport.configBuilder(dir).port(port).segmentBytes(1 << 20)
            .storeOptions(b -> b.recoveryMode(RecoveryMode.TRUNCATE_AT_CORRUPTION)).build();
    }

    /** @return the partition's log directory: the store keeps log {@code p.<topic id>.0} in a directory of its own. */
    private static Path partitionLog(final Path dir) throws IOException
    {
        try (Stream<Path> all = Files.walk(dir))
        {
            final List<Path> found = all.filter(Files::isDirectory)
                .filter(p -> p.getFileName().toString().startsWith("p.") && p.getFileName().toString().endsWith(".0"))
                .toList();
            assertEquals(1, found.size(), "one partition log under " + dir + ": " + found);
            return found.get(0);
        }
    }

    private static List<Path> segments(final Path logDir) throws IOException
    {
        try (Stream<Path> s = Files.list(logDir))
        {
            return s.filter(p -> p.getFileName().toString().matches("\\d{20}\\.log")).sorted().toList();
        }
    }

    @Test
    void aConsumerReadsOverAHoleLeftByALostMiddleSegment() throws Exception
    {
        final Path dir = BrokerTestSupport.newDirectory("offset-hole");
        try (KafkaBroker broker = KafkaBroker.start(config(dir, 0)))
        {
            BrokerTestSupport.createTopic(broker, TOPIC, 1, Map.of());
            try (KafkaProducer<String, String> p = BrokerTestSupport.producer(broker, Map.of()))
            {
                final List<Future<RecordMetadata>> sent = new ArrayList<>();
                for (int i = 0; i < RECORDS; i++)
                {
                    sent.add(p.send(new ProducerRecord<>(TOPIC, 0, "k" + i, i + ":" + PAD)));
                }
                for (int i = 0; i < RECORDS; i++)
                {
                    assertEquals(i, sent.get(i).get().offset(), "one producer, one partition: offset = index");
                }
            }
        }
        final List<Path> segs = segments(partitionLog(dir));
        assertTrue(segs.size() >= 3, "a middle segment to lose: " + segs);
        Files.delete(segs.get(1));

        try (KafkaBroker broker = KafkaBroker.start(config(dir, 0)))
        {
            final TopicPartition tp = new TopicPartition(TOPIC, 0);
            try (KafkaProducer<String, String> p = BrokerTestSupport.producer(broker, Map.of()))
            {
                assertEquals(RECORDS, p.send(new ProducerRecord<>(TOPIC, 0, "after", RECORDS + ":" + PAD)).get()
                    .offset(), "appends go on at the old end: no offset is given twice");
            }
            final List<Long> offsets = new ArrayList<>();
            try (KafkaConsumer<String, String> c = BrokerTestSupport.consumer(broker, Map.of()))
            {
                c.assign(List.of(tp));
                c.seekToBeginning(List.of(tp));
                assertEquals(RECORDS + 1, c.endOffsets(List.of(tp)).get(tp));
                final long deadline = System.nanoTime() + BrokerTestSupport.TIMEOUT.toNanos() * 2;
                for (int polls = 0; polls < 10_000 && c.position(tp) <= RECORDS; polls++)
                {
                    assertTrue(System.nanoTime() < deadline, "the consumer stopped at " + c.position(tp) +
                        " after " + offsets.size() + " records");
                    for (final ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200)))
                    {
                        assertEquals(r.offset() + ":" + PAD, r.value(), "the record stored at " + r.offset());
                        offsets.add(r.offset());
                    }
                }
                assertEquals(RECORDS + 1, c.position(tp));
            }
            // what was read: the first segment's records 0 .. holeStart-1, then the record after the hole
            assertEquals(0L, offsets.get(0));
            final int holeStart = offsets.size() - 1;
            assertTrue(holeStart > 0, "records before the hole: " + offsets.size());
            for (int i = 0; i < holeStart; i++)
            {
                assertEquals(i, offsets.get(i), "in order, none twice, none missing before the hole");
            }
            assertEquals(RECORDS, offsets.get(holeStart), "over the hole [" + holeStart + ", " + RECORDS + ")");
        }
    }
}
