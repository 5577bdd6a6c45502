package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
 * compaction makes it normal). Before that append nothing follows the hole: a Fetch in it gets an empty batch (no
 * records) whose last offset is the hole's end - 1, as Kafka's log cleaner leaves of a batch compacted away, and the
 * consumer's position moves to the log end (kafka-clients and librdkafka, through kcat, both checked here).
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

    /**
     * Produces {@link #RECORDS} records into one partition, then deletes the partition log's second segment, as a
     * lost file would: the next start recovers the records before it and goes on at the old end.
     *
     * @return the broker's data directory.
     */
    private static Path logWithLostMiddleSegment(final String name) throws Exception
    {
        final Path dir = BrokerTestSupport.newDirectory(name);
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
        return dir;
    }

    /**
     * Polls until the consumer's position reaches {@code end}, bounded in polls and time.
     *
     * @return the offsets of the records read, in order.
     */
    private static List<Long> readTo(final KafkaConsumer<String, String> c, final TopicPartition tp, final long end)
    {
        final List<Long> offsets = new ArrayList<>();
        final long deadline = System.nanoTime() + BrokerTestSupport.TIMEOUT.toNanos() * 2;
        for (int polls = 0; polls < 10_000 && c.position(tp) < end; polls++)
        {
            assertTrue(System.nanoTime() < deadline, "the consumer stopped at " + c.position(tp) +
                " after " + offsets.size() + " records (end " + end + ")");
            for (final ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200)))
            {
                assertEquals(r.offset() + ":" + PAD, r.value(), "the record stored at " + r.offset());
                offsets.add(r.offset());
            }
        }
        assertEquals(end, c.position(tp));
        return offsets;
    }

    /** The records read end right before a hole: 0 .. holeStart-1 in order, none twice, none missing. */
    private static int assertDenseFromZero(final List<Long> offsets, final int count)
    {
        assertTrue(count > 0 && offsets.get(0) == 0L, "records before the hole: " + offsets.size());
        for (int i = 0; i < count; i++)
        {
            assertEquals(i, offsets.get(i), "in order, none twice, none missing before the hole");
        }
        return count;
    }

    @Test
    void aConsumerReadsOverAHoleLeftByALostMiddleSegment() throws Exception
    {
        final Path dir = logWithLostMiddleSegment("offset-hole");
        try (KafkaBroker broker = KafkaBroker.start(config(dir, 0)))
        {
            final TopicPartition tp = new TopicPartition(TOPIC, 0);
            try (KafkaProducer<String, String> p = BrokerTestSupport.producer(broker, Map.of()))
            {
                assertEquals(RECORDS, p.send(new ProducerRecord<>(TOPIC, 0, "after", RECORDS + ":" + PAD)).get()
                    .offset(), "appends go on at the old end: no offset is given twice");
            }
            final List<Long> offsets;
            try (KafkaConsumer<String, String> c = BrokerTestSupport.consumer(broker, Map.of()))
            {
                c.assign(List.of(tp));
                c.seekToBeginning(List.of(tp));
                assertEquals(RECORDS + 1, c.endOffsets(List.of(tp)).get(tp));
                offsets = readTo(c, tp, RECORDS + 1);
            }
            // what was read: the first segment's records 0 .. holeStart-1, then the record after the hole
            final int holeStart = assertDenseFromZero(offsets, offsets.size() - 1);
            assertEquals(RECORDS, offsets.get(holeStart), "over the hole [" + holeStart + ", " + RECORDS + ")");
        }
    }

    /**
     * The hole at the end of the log: nothing was produced after the restart, so no batch follows the hole. A
     * consumer reading from the start, and one positioned inside the hole, both move to the log end (the high
     * watermark) without a record, and read the next record produced where it lands.
     */
    @Test
    void aConsumerInAHoleAtTheLogEndMovesToTheEnd() throws Exception
    {
        final Path dir = logWithLostMiddleSegment("offset-hole-end");
        try (KafkaBroker broker = KafkaBroker.start(config(dir, 0)))
        {
            final TopicPartition tp = new TopicPartition(TOPIC, 0);
            try (KafkaConsumer<String, String> c = BrokerTestSupport.consumer(broker, Map.of()))
            {
                c.assign(List.of(tp));
                assertEquals(RECORDS, c.endOffsets(List.of(tp)).get(tp), "the log goes on at the old end");
                c.seekToBeginning(List.of(tp));
                final List<Long> offsets = readTo(c, tp, RECORDS);
                assertTrue(offsets.size() < RECORDS, "the lost segment's records are not served: " + offsets.size());
                assertDenseFromZero(offsets, offsets.size());

                c.seek(tp, RECORDS - 1); // inside the hole: the lost segment's last record
                assertEquals(List.of(), readTo(c, tp, RECORDS), "no record in the hole");

                try (KafkaProducer<String, String> p = BrokerTestSupport.producer(broker, Map.of()))
                {
                    assertEquals(RECORDS, p.send(new ProducerRecord<>(TOPIC, 0, "after", RECORDS + ":" + PAD)).get()
                        .offset(), "appends go on at the old end: no offset is given twice");
                }
                assertEquals(List.of((long)RECORDS), readTo(c, tp, RECORDS + 1), "the record after the hole");
            }
        }
    }

    /**
     * librdkafka (kcat) over the hole at the log end: {@code -e} exits when the consumer reaches the high
     * watermark, so a consumer held in the hole never exits (the bounded wait fails).
     */
    @Test
    void kcatReadsToTheEndOverAHoleAtTheLogEnd() throws Exception
    {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/kcat")), "kcat (librdkafka) is not installed");
        final Path dir = logWithLostMiddleSegment("offset-hole-kcat");
        try (KafkaBroker broker = KafkaBroker.start(config(dir, 0)))
        {
            final Path out = dir.resolve("kcat.out");
            final Process kcat = new ProcessBuilder("/usr/bin/kcat", "-b", "127.0.0.1:" + broker.port(), "-C", "-t",
                TOPIC, "-p", "0", "-o", "beginning", "-e", "-q", "-f", "%o\\n", "-X", "socket.timeout.ms=10000")
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            try
            {
                assertTrue(kcat.waitFor(BrokerTestSupport.TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS),
                    "kcat -e did not reach the end of the partition: " + tail(out));
            }
            finally
            {
                kcat.destroyForcibly();
            }
            assertEquals(0, kcat.exitValue(), "kcat: " + tail(out));
            final List<Long> offsets = Files.readAllLines(out).stream().filter(l -> !l.isBlank())
                .map(Long::parseLong).toList();
            assertDenseFromZero(offsets, offsets.size());
            assertTrue(offsets.size() < RECORDS, "the lost segment's records are not served: " + offsets.size());
        }
    }

    private static String tail(final Path file) throws IOException
    {
        final String text = Files.exists(file) ? Files.readString(file) : "";
        return text.length() <= 400 ? text : "..." + text.substring(text.length() - 400);
    }
}
