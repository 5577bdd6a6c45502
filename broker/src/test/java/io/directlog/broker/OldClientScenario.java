package io.directlog.broker;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A client scenario run inside a class loader that holds another kafka-clients version (3.9.1): it uses only the
 * public client API the two versions share, and refers to no other test class. {@link OldClientTest} loads it.
 */
public final class OldClientScenario
{
    private OldClientScenario()
    {
    }

    private static void check(final boolean condition, final String what)
    {
        if (!condition)
        {
            throw new IllegalStateException(what);
        }
    }

    /**
     * @param bootstrap the broker's address.
     * @return the file name of the kafka-clients jar that ran.
     * @throws Exception when a step fails; the message says which.
     */
    public static String run(final String bootstrap) throws Exception
    {
        final Properties common = new Properties();
        common.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(common))
        {
            admin.createTopics(List.of(new NewTopic("old", 2, (short)1))).all().get();
            check(admin.listTopics().names().get().contains("old"), "listTopics lists the topic");
            check(admin.describeTopics(List.of("old")).allTopicNames().get().get("old").partitions().size() == 2,
                "describeTopics shows 2 partitions");
        }
        int n = 0;
        for (final String codec : List.of("none", "gzip", "snappy", "lz4", "zstd"))
        {
            final Properties p = new Properties();
            p.putAll(common);
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
                new StringSerializer()))
            {
                for (int i = 0; i < 10; i++, n++)
                {
                    final ProducerRecord<String, String> r = new ProducerRecord<>("old", n % 2, 5000L + n, "k" + n,
                        codec + "-" + n);
                    r.headers().add("codec", codec.getBytes(StandardCharsets.UTF_8));
                    producer.send(r).get();
                }
            }
        }
        final Properties c = new Properties();
        c.putAll(common);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        final TopicPartition p0 = new TopicPartition("old", 0);
        final TopicPartition p1 = new TopicPartition("old", 1);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(),
            new StringDeserializer()))
        {
            consumer.assign(List.of(p0, p1));
            consumer.seekToBeginning(List.of(p0, p1));
            final List<ConsumerRecord<String, String>> got = poll(consumer, n);
            check(got.size() == n, "assign+seek read " + got.size() + " of " + n);
            for (final ConsumerRecord<String, String> r : got)
            {
                final int i = Integer.parseInt(r.key().substring(1));
                check(r.timestamp() == 5000L + i, "timestamp of " + r.key());
                check(r.value().endsWith("-" + i), "value of " + r.key());
            }
            final Map<TopicPartition, OffsetAndTimestamp> times = consumer.offsetsForTimes(Map.of(p0, 5010L));
            check(times.get(p0) != null && times.get(p0).offset() == 5 && times.get(p0).timestamp() == 5010L,
                "offsetsForTimes " + times);
        }
        c.put(ConsumerConfig.GROUP_ID_CONFIG, "old-group");
        c.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        c.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
        try (KafkaConsumer<String, String> a = new KafkaConsumer<>(c, new StringDeserializer(),
            new StringDeserializer());
             KafkaConsumer<String, String> b = new KafkaConsumer<>(c, new StringDeserializer(),
                 new StringDeserializer()))
        {
            // a group of two: polled in turn from this thread, each ends with one partition read to its end
            a.subscribe(List.of("old"));
            b.subscribe(List.of("old"));
            final List<ConsumerRecord<String, String>> got = new ArrayList<>();
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            for (int polls = 0; polls < 2000 && System.nanoTime() < deadline &&
                !(atEnd(a, n / 2) && atEnd(b, n / 2)); polls++)
            {
                a.poll(Duration.ofMillis(50)).forEach(got::add);
                b.poll(Duration.ofMillis(50)).forEach(got::add);
            }
            check(a.assignment().size() == 1 && b.assignment().size() == 1, "group of two: one partition each, " +
                a.assignment() + " and " + b.assignment());
            check(got.size() >= n, "group of two read " + got.size() + " of " + n);
            a.commitSync();
            b.commitSync();
            check(a.committed(Set.of(p0)).get(p0).offset() == n / 2, "committed offset");
        }
        produce(common, "old", 0, 4, "after-commit");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(),
            new StringDeserializer()))
        {
            consumer.subscribe(List.of("old"));
            final List<ConsumerRecord<String, String>> rest = poll(consumer, 4);
            check(rest.size() == 4 && rest.stream().allMatch(r -> r.value().startsWith("after-commit")),
                "a restarted group member resumes from the committed offsets: " + rest.size() + " records");
        }
        nearOneMebibyte(common, c);
        try (Admin admin = Admin.create(common))
        {
            admin.deleteTopics(List.of("old", "big")).all().get();
            check(!admin.listTopics().names().get().contains("old"), "deleteTopics removes the topic");
        }
        // the jar the client classes came from names the version (AppInfoParser moved package in 4.x)
        return Path.of(KafkaProducer.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .getFileName().toString();
    }

    /** A record of 1,000,000 bytes (under the 1 MiB defaults of producer and topic) is stored and read back. */
    private static void nearOneMebibyte(final Properties common, final Properties consumerConfig) throws Exception
    {
        try (Admin admin = Admin.create(common))
        {
            admin.createTopics(List.of(new NewTopic("big", 1, (short)1))).all().get();
        }
        final String value = "v".repeat(1_000_000);
        final Properties p = new Properties();
        p.putAll(common);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
            new StringSerializer()))
        {
            producer.send(new ProducerRecord<>("big", 0, "k", value)).get();
        }
        final Properties c = new Properties();
        c.putAll(consumerConfig);
        c.remove(ConsumerConfig.GROUP_ID_CONFIG);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(),
            new StringDeserializer()))
        {
            final TopicPartition big = new TopicPartition("big", 0);
            consumer.assign(List.of(big));
            consumer.seekToBeginning(List.of(big));
            final List<ConsumerRecord<String, String>> got = poll(consumer, 1);
            check(got.size() == 1 && got.get(0).value().equals(value), "a 1,000,000-byte record round trips");
        }
    }

    private static void produce(final Properties common, final String topic, final int partition, final int count,
        final String prefix) throws Exception
    {
        final Properties p = new Properties();
        p.putAll(common);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
            new StringSerializer()))
        {
            for (int i = 0; i < count; i++)
            {
                producer.send(new ProducerRecord<>(topic, partition, "k" + i, prefix + "-" + i)).get();
            }
        }
    }

    /** True once the consumer holds one partition and has read it up to {@code end}. */
    private static boolean atEnd(final KafkaConsumer<String, String> c, final long end)
    {
        if (c.assignment().size() != 1)
        {
            return false;
        }
        final TopicPartition tp = c.assignment().iterator().next();
        return c.position(tp) == end;
    }

    private static List<ConsumerRecord<String, String>> poll(final KafkaConsumer<String, String> consumer,
        final int count)
    {
        final List<ConsumerRecord<String, String>> out = new ArrayList<>();
        final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        for (int polls = 0; polls < 1000 && out.size() < count && System.nanoTime() < deadline; polls++)
        {
            consumer.poll(Duration.ofMillis(200)).forEach(out::add);
        }
        return out;
    }
}
