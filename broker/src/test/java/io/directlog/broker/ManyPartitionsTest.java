package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A topic of 1,000 partitions created through a real AdminClient (issue 21's many-partitions scenario): answered,
 * described with every partition, produced to and consumed from on partitions across the range, and the same
 * after a restart (topic id, partitions, records). It prints how long CreateTopics took; no timing is asserted.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ManyPartitionsTest
{
    private static final int PARTITIONS = 1000;
    private static final int[] USED = {0, 1, 499, 998, 999};
    private static final int RECORDS = 5;

    @RegisterExtension
    final RunningBroker running = new RunningBroker("many-partitions");

    @Test
    void aTopicOfAThousandPartitionsIsCreatedAndServesProduceAndFetch() throws Exception
    {
        final Uuid id;
        try (Admin admin = admin())
        {
            final long started = System.nanoTime();
            final CreateTopicsResult created = admin.createTopics(List.of(new NewTopic("wide", PARTITIONS, (short)1)
                .configs(Map.of("retention.ms", "7200000"))), new CreateTopicsOptions().timeoutMs(120_000));
            created.all().get(150, TimeUnit.SECONDS);
            final long millis = (System.nanoTime() - started) / 1_000_000;
            System.out.println("MANY-PARTITIONS create partitions=" + PARTITIONS + " ms=" + millis);
            id = created.topicId("wide").get();
            assertEquals(PARTITIONS, created.numPartitions("wide").get());
            final TopicDescription d = admin.describeTopics(List.of("wide")).allTopicNames().get(30, TimeUnit.SECONDS)
                .get("wide");
            assertEquals(PARTITIONS, d.partitions().size());
            assertEquals(id, d.topicId());
        }
        final Map<Integer, List<String>> sent = produce();
        assertEquals(sent, consume(), "every record on its partition, in order");
        assertEquals(PARTITIONS, running.broker().topics().topic("wide").partitions().size());

        running.restart();
        assertEquals(id, running.broker().topics().topic("wide").id(), "the topic id survives the restart");
        assertEquals(PARTITIONS, running.broker().topics().topic("wide").partitions().size());
        assertEquals(sent, consume(), "the records survive the restart");
    }

    private Admin admin()
    {
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, running.broker().bootstrapServers());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 150_000);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 140_000);
        return Admin.create(p);
    }

    private Map<Integer, List<String>> produce() throws Exception
    {
        final Map<Integer, List<String>> sent = new HashMap<>();
        try (KafkaProducer<String, String> producer = BrokerTestSupport.producer(running.broker(), Map.of()))
        {
            final List<java.util.concurrent.Future<RecordMetadata>> acks = new ArrayList<>();
            for (final int partition : USED)
            {
                for (int i = 0; i < RECORDS; i++)
                {
                    final String value = "p" + partition + "-r" + i;
                    sent.computeIfAbsent(partition, k -> new ArrayList<>()).add(value);
                    acks.add(producer.send(new ProducerRecord<>("wide", partition, "k" + i, value)));
                }
            }
            for (final var ack : acks)
            {
                assertTrue(ack.get(30, TimeUnit.SECONDS).offset() < RECORDS);
            }
        }
        return sent;
    }

    private Map<Integer, List<String>> consume()
    {
        final Map<Integer, List<String>> received = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = BrokerTestSupport.consumer(running.broker(), Map.of()))
        {
            final List<TopicPartition> assigned = new ArrayList<>();
            for (final int partition : USED)
            {
                assigned.add(new TopicPartition("wide", partition));
            }
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            for (final ConsumerRecord<String, String> r : BrokerTestSupport.pollUntil(consumer, USED.length * RECORDS))
            {
                received.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r.value());
            }
        }
        return received;
    }
}
