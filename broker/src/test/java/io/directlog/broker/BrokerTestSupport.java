package io.directlog.broker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import io.directlog.storage.Durability;

/**
 * Settings for brokers on free loopback ports over a fresh directory ({@link RunningBroker} starts one per test),
 * and clients for them.
 */
final class BrokerTestSupport
{
    /** Upper bound of any wait in these tests; a test that needs it has failed. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private BrokerTestSupport()
    {
    }

    static Path newDirectory(final String name) throws IOException
    {
        final Path base = Path.of(System.getProperty("directlog.test.dir", System.getProperty("java.io.tmpdir")));
        Files.createDirectories(base);
        return Files.createTempDirectory(base, name);
    }

    static BrokerConfig config(final Path dir)
    {
        return configBuilder(dir).build();
    }

    /** The settings of {@link #config}, for a test that changes some of them. */
    static BrokerConfig.Builder configBuilder(final Path dir)
    {
        return BrokerConfig.builder(dir).port(0).segmentBytes(2 << 20).memoryBudget(128L << 20)
            .durability(Durability.DSYNC).initialRebalanceDelay(Duration.ZERO);
    }

    static Admin admin(final KafkaBroker broker)
    {
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int)TIMEOUT.toMillis());
        return Admin.create(p);
    }

    static KafkaProducer<String, String> producer(final KafkaBroker broker, final Map<String, Object> extra)
    {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int)TIMEOUT.toMillis());
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int)TIMEOUT.toMillis());
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int)TIMEOUT.toMillis() - 1000);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.putAll(extra);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    static KafkaConsumer<String, String> consumer(final KafkaBroker broker, final Map<String, Object> extra)
    {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int)TIMEOUT.toMillis());
        p.putAll(extra);
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    static void createTopic(final KafkaBroker broker, final String name, final int partitions,
        final Map<String, String> configs) throws Exception
    {
        try (Admin admin = admin(broker))
        {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short)1).configs(configs))).all().get();
        }
    }

    /** Polls until {@code count} records arrived or the deadline passed; bounded in time and in polls. */
    static List<ConsumerRecord<String, String>> pollUntil(final KafkaConsumer<String, String> consumer,
        final int count)
    {
        final List<ConsumerRecord<String, String>> out = new ArrayList<>();
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        for (int polls = 0; polls < 10_000 && out.size() < count && System.nanoTime() < deadline; polls++)
        {
            consumer.poll(Duration.ofMillis(200)).forEach(out::add);
        }
        return out;
    }
}
