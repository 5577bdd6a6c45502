package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.broker.topic.Topic;
import io.directlog.storage.Durability;

/**
 * CreateTopics is answered once the topic's metadata event is durable, and the partition logs are created after
 * (in the background, as Kafka's brokers create logs after the controller committed the topic). A broker process
 * killed with SIGKILL right after CreateTopics of 1,000 partitions answered, while those logs are being created,
 * still has the topic after a restart: the same id, every partition, each one taking records and serving them.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class CreateTopicsCrashTest
{
    private static final int PARTITIONS = 1000;
    private static final int[] USED = {0, 1, 500, 998, 999};

    @Test
    void aTopicAnsweredBeforeAKillIsThereAfterTheRestart() throws Exception
    {
        final Path dir = BrokerTestSupport.newDirectory("create-crash");
        final Uuid id;
        try (BrokerKillTest.Child child = new BrokerKillTest.Child(dir))
        {
            final Properties a = new Properties();
            a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, child.bootstrap);
            a.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 150_000);
            a.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 140_000);
            try (Admin admin = Admin.create(a))
            {
                final CreateTopicsResult created = admin.createTopics(List.of(new NewTopic("wide", PARTITIONS,
                    (short)1)), new CreateTopicsOptions().timeoutMs(120_000));
                created.all().get(150, TimeUnit.SECONDS);
                id = created.topicId("wide").get();
                child.kill(); // SIGKILL, right after the answer: the partition logs are still being created
            }
        }
        // how far the creation got (the kill's timing decides; printed, not asserted)
        try (java.util.stream.Stream<Path> logs = java.nio.file.Files.list(dir))
        {
            System.out.println("CREATE-CRASH partition log directories at the kill: " +
                logs.filter(d -> d.getFileName().toString().startsWith("p." + id)).count() + " of " + PARTITIONS);
        }
        // the child's settings (ChildBroker), in this JVM
        final BrokerConfig config = BrokerConfig.builder(dir).host("127.0.0.1").port(0).segmentBytes(2 << 20)
            .memoryBudget(32L << 20).durability(Durability.DSYNC).initialRebalanceDelay(Duration.ZERO).build();
        try (KafkaBroker broker = KafkaBroker.start(config))
        {
            final Topic topic = broker.topics().topic("wide");
            assertNotNull(topic, "the topic answered before the kill");
            assertEquals(id, topic.id());
            assertEquals(PARTITIONS, topic.partitions().size());
            try (KafkaProducer<String, String> p = BrokerTestSupport.producer(broker, Map.of()))
            {
                for (final int partition : USED)
                {
                    assertEquals(0L, p.send(new ProducerRecord<>("wide", partition, "k", "v" + partition)).get(30,
                        TimeUnit.SECONDS).offset(), "partition " + partition + " is empty and takes records");
                }
            }
            try (KafkaConsumer<String, String> c = BrokerTestSupport.consumer(broker, Map.of()))
            {
                final List<TopicPartition> tps = java.util.Arrays.stream(USED)
                    .mapToObj(i -> new TopicPartition("wide", i)).toList();
                c.assign(tps);
                c.seekToBeginning(tps);
                for (final ConsumerRecord<String, String> r : BrokerTestSupport.pollUntil(c, USED.length))
                {
                    assertEquals("v" + r.partition(), r.value());
                }
            }
        }
    }
}
