package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The real Java kafka-clients (the version on the test classpath) against the broker. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(NettyLeakCheck.class)
class KafkaClientCompatibilityTest
{
    @RegisterExtension
    final RunningBroker running = new RunningBroker("client");

    @Test
    void adminCreatesListsDescribesAndDeletesTopics() throws Exception
    {
        try (Admin admin = BrokerTestSupport.admin(running.broker()))
        {
            admin.createTopics(List.of(new NewTopic("orders", 3, (short)1)
                .configs(Map.of("retention.ms", "3600000", "directlog.durability", "DIRECT")))).all().get();
            final ExecutionException exists = assertThrows(ExecutionException.class,
                () -> admin.createTopics(List.of(new NewTopic("orders", 1, (short)1))).all().get());
            assertInstanceOf(TopicExistsException.class, exists.getCause());
            final ExecutionException rf = assertThrows(ExecutionException.class,
                () -> admin.createTopics(List.of(new NewTopic("replicated", 1, (short)3))).all().get());
            assertInstanceOf(InvalidReplicationFactorException.class, rf.getCause());

            assertEquals(Set.of("orders"), admin.listTopics().names().get());
            final TopicDescription d = admin.describeTopics(List.of("orders")).allTopicNames().get().get("orders");
            assertEquals(3, d.partitions().size());
            assertNotEquals(org.apache.kafka.common.Uuid.ZERO_UUID, d.topicId());
            assertEquals(1, admin.describeCluster().nodes().get().size());

            final Config config = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, "orders")))
                .all().get().values().iterator().next();
            assertEquals("3600000", config.get("retention.ms").value());
            assertEquals("DIRECT", config.get("directlog.durability").value());

            admin.createPartitions(Map.of("orders", org.apache.kafka.clients.admin.NewPartitions.increaseTo(4)))
                .all().get();
            assertEquals(4, admin.describeTopics(List.of("orders")).allTopicNames().get().get("orders")
                .partitions().size());
            // DescribeTopicPartitions pages: two partitions per response, the client follows the cursor
            assertEquals(4, admin.describeTopics(List.of("orders"),
                new org.apache.kafka.clients.admin.DescribeTopicsOptions().partitionSizeLimitPerResponse(2))
                .allTopicNames().get().get("orders").partitions().size());

            final org.apache.kafka.common.Uuid firstId = d.topicId();
            admin.deleteTopics(List.of("orders")).all().get();
            assertEquals(Set.of(), admin.listTopics().names().get());
            final ExecutionException gone = assertThrows(ExecutionException.class,
                () -> admin.describeTopics(List.of("orders")).allTopicNames().get());
            assertInstanceOf(UnknownTopicOrPartitionException.class, gone.getCause());
            try (java.util.stream.Stream<java.nio.file.Path> dirs = java.nio.file.Files.list(running.dir()))
            {
                final String logPrefix = "p." + firstId + ".";
                assertEquals(List.of(), dirs.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(logPrefix))
                    .toList(), "DeleteTopics removed the partition logs");
            }

            admin.createTopics(List.of(new NewTopic("orders", 1, (short)1))).all().get();
            assertNotEquals(firstId, admin.describeTopics(List.of("orders")).allTopicNames().get().get("orders")
                .topicId());
        }
    }

    @Test
    void topicsAndTheirIdsSurviveARestart() throws Exception
    {
        BrokerTestSupport.createTopic(running.broker(), "kept", 2, Map.of());
        final org.apache.kafka.common.Uuid id;
        try (Admin admin = BrokerTestSupport.admin(running.broker()))
        {
            id = admin.describeTopics(List.of("kept")).allTopicNames().get().get("kept").topicId();
        }
        running.restart();
        try (Admin admin = BrokerTestSupport.admin(running.broker()))
        {
            final TopicDescription d = admin.describeTopics(List.of("kept")).allTopicNames().get().get("kept");
            assertEquals(id, d.topicId());
            assertEquals(2, d.partitions().size());
        }
    }

    @Test
    void idempotentProducerWithEveryCompressionIsReadBackWithKeysHeadersAndTimestamps() throws Exception
    {
        BrokerTestSupport.createTopic(running.broker(), "compressed", 2, Map.of());
        final List<String> codecs = List.of("none", "gzip", "snappy", "lz4", "zstd");
        final long baseTs = 1_700_000_000_000L;
        final Map<TopicPartition, List<Long>> acked = new HashMap<>();
        int n = 0;
        for (final String codec : codecs)
        {
            try (KafkaProducer<String, String> producer = BrokerTestSupport.producer(running.broker(),
                Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec)))
            {
                final List<java.util.concurrent.Future<RecordMetadata>> sent = new ArrayList<>();
                for (int i = 0; i < 50; i++, n++)
                {
                    final ProducerRecord<String, String> r = new ProducerRecord<>("compressed", n % 2, baseTs + n,
                        "key-" + n, codec + "-value-" + n);
                    r.headers().add(new RecordHeader("codec", codec.getBytes(StandardCharsets.UTF_8)));
                    sent.add(producer.send(r));
                }
                producer.flush();
                for (final java.util.concurrent.Future<RecordMetadata> f : sent)
                {
                    final RecordMetadata md = f.get();
                    acked.computeIfAbsent(new TopicPartition(md.topic(), md.partition()), k -> new ArrayList<>())
                        .add(md.offset());
                }
            }
        }
        for (final List<Long> offsets : acked.values())
        {
            for (int i = 0; i < offsets.size(); i++)
            {
                assertEquals(i, offsets.get(i), "offsets of a partition are dense from 0");
            }
        }
        try (KafkaConsumer<String, String> consumer = BrokerTestSupport.consumer(running.broker(), Map.of()))
        {
            final TopicPartition p0 = new TopicPartition("compressed", 0);
            final TopicPartition p1 = new TopicPartition("compressed", 1);
            consumer.assign(List.of(p0, p1));
            consumer.seekToBeginning(List.of(p0, p1));
            final List<ConsumerRecord<String, String>> records = BrokerTestSupport.pollUntil(consumer, n);
            assertEquals(n, records.size());
            for (final ConsumerRecord<String, String> r : records)
            {
                final int i = Integer.parseInt(r.key().substring(4));
                assertEquals(baseTs + i, r.timestamp());
                final String codec = new String(r.headers().lastHeader("codec").value(), StandardCharsets.UTF_8);
                assertEquals(codec + "-value-" + i, r.value());
                assertEquals(i % 2, r.partition());
            }
            assertEquals(Map.of(p0, (long)n / 2, p1, (long)n / 2), consumer.endOffsets(List.of(p0, p1)));
            assertEquals(Map.of(p0, 0L, p1, 0L), consumer.beginningOffsets(List.of(p0, p1)));

            consumer.seek(p0, 7); // inside a batch: the broker serves the whole batch, the client drops the head
            consumer.pause(List.of(p1));
            final List<ConsumerRecord<String, String>> tail = BrokerTestSupport.pollUntil(consumer, n / 2 - 7);
            assertEquals(n / 2 - 7, tail.size());
            assertEquals(7, tail.get(0).offset());
        }
    }

    @Test
    void offsetsForTimesFindsTheFirstRecordAtOrAfterEachTimestamp() throws Exception
    {
        BrokerTestSupport.createTopic(running.broker(), "timed", 1, Map.of());
        try (KafkaProducer<String, String> producer = BrokerTestSupport.producer(running.broker(), Map.of()))
        {
            for (int i = 0; i < 20; i++)
            {
                producer.send(new ProducerRecord<>("timed", 0, 1000L * (i + 1), "k", "v" + i));
                if (i % 5 == 4)
                {
                    producer.flush(); // several batches
                }
            }
            producer.flush();
        }
        try (KafkaConsumer<String, String> consumer = BrokerTestSupport.consumer(running.broker(), Map.of()))
        {
            final TopicPartition tp = new TopicPartition("timed", 0);
            final Map<TopicPartition, OffsetAndTimestamp> before = consumer.offsetsForTimes(Map.of(tp, 0L));
            assertEquals(0, before.get(tp).offset());
            assertEquals(1000L, before.get(tp).timestamp());
            final Map<TopicPartition, OffsetAndTimestamp> between = consumer.offsetsForTimes(Map.of(tp, 7500L));
            assertEquals(7, between.get(tp).offset());
            assertEquals(8000L, between.get(tp).timestamp());
            final Map<TopicPartition, OffsetAndTimestamp> exact = consumer.offsetsForTimes(Map.of(tp, 12000L));
            assertEquals(11, exact.get(tp).offset());
            assertNull(consumer.offsetsForTimes(Map.of(tp, 20_001L)).get(tp));
        }
        try (Admin admin = BrokerTestSupport.admin(running.broker()))
        {
            // ListOffsets -3 (KIP-734): the record with the largest timestamp, the last one here
            final TopicPartition tp = new TopicPartition("timed", 0);
            final ListOffsetsResult.ListOffsetsResultInfo max = admin.listOffsets(Map.of(tp,
                OffsetSpec.maxTimestamp())).partitionResult(tp).get(30, TimeUnit.SECONDS);
            assertEquals(19, max.offset());
            assertEquals(20_000L, max.timestamp());
        }
    }

    @Test
    void aRecordNearOneMebibyteRoundTrips() throws Exception
    {
        BrokerTestSupport.createTopic(running.broker(), "large", 1, Map.of());
        final String big = "x".repeat(1_000_000);
        try (KafkaProducer<String, String> producer = BrokerTestSupport.producer(running.broker(), Map.of()))
        {
            assertEquals(0, producer.send(new ProducerRecord<>("large", "k", big)).get().offset());
            assertEquals(1, producer.send(new ProducerRecord<>("large", "k", "small")).get().offset());
        }
        try (KafkaConsumer<String, String> consumer = BrokerTestSupport.consumer(running.broker(), Map.of()))
        {
            final TopicPartition tp = new TopicPartition("large", 0);
            consumer.assign(List.of(tp));
            final List<ConsumerRecord<String, String>> records = BrokerTestSupport.pollUntil(consumer, 2);
            assertEquals(2, records.size());
            assertEquals(big, records.get(0).value());
            assertEquals("small", records.get(1).value());
        }
    }

    @Test
    void acksZeroAndOneProducersAreStoredToo() throws Exception
    {
        BrokerTestSupport.createTopic(running.broker(), "acks", 1, Map.of());
        for (final String acks : List.of("0", "1"))
        {
            try (KafkaProducer<String, String> producer = BrokerTestSupport.producer(running.broker(),
                Map.of(ProducerConfig.ACKS_CONFIG, acks, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false)))
            {
                for (int i = 0; i < 10; i++)
                {
                    producer.send(new ProducerRecord<>("acks", "k", "acks" + acks + "-" + i)).get();
                }
            }
        }
        try (KafkaConsumer<String, String> consumer = BrokerTestSupport.consumer(running.broker(), Map.of()))
        {
            consumer.assign(List.of(new TopicPartition("acks", 0)));
            final List<ConsumerRecord<String, String>> records = BrokerTestSupport.pollUntil(consumer, 20);
            assertEquals(20, records.size());
            assertEquals("acks0-0", records.get(0).value());
            assertEquals("acks1-9", records.get(19).value());
        }
    }

    @Test
    void producerToAMissingTopicAutoCreatesIt() throws Exception
    {
        try (KafkaProducer<String, String> producer = BrokerTestSupport.producer(running.broker(), Map.of()))
        {
            assertEquals(0, producer.send(new ProducerRecord<>("auto", "k", "v")).get().offset());
        }
        assertEquals(1, running.broker().topicCount());
    }

    @Test
    void groupOfTwoSharesPartitionsCommitsAndResumesAfterARestart() throws Exception
    {
        BrokerTestSupport.createTopic(running.broker(), "grouped", 4, Map.of());
        produce("grouped", 4, 40, 0);
        final Map<String, Object> group = Map.of(ConsumerConfig.GROUP_ID_CONFIG, "g1",
            ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000, ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500,
            ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 20_000);
        try (KafkaConsumer<String, String> a = BrokerTestSupport.consumer(running.broker(), group);
             KafkaConsumer<String, String> b = BrokerTestSupport.consumer(running.broker(), group))
        {
            a.subscribe(List.of("grouped"));
            b.subscribe(List.of("grouped"));
            final List<ConsumerRecord<String, String>> seen = Collections.synchronizedList(new ArrayList<>());
            final long deadline = System.nanoTime() + BrokerTestSupport.TIMEOUT.toNanos();
            for (int polls = 0; polls < 5_000 && System.nanoTime() < deadline &&
                !(atEnd(a, 2, 10) && atEnd(b, 2, 10)); polls++)
            {
                a.poll(java.time.Duration.ofMillis(50)).forEach(seen::add);
                b.poll(java.time.Duration.ofMillis(50)).forEach(seen::add);
            }
            assertEquals(2, a.assignment().size());
            assertEquals(2, b.assignment().size());
            assertTrue(seen.size() >= 40, "saw " + seen.size());
            a.commitSync();
            b.commitSync();
            assertEquals(10L, a.committed(a.assignment()).values().iterator().next().offset());
        }
        produce("grouped", 4, 8, 40);
        running.restart();
        try (KafkaConsumer<String, String> c = BrokerTestSupport.consumer(running.broker(), group))
        {
            c.subscribe(List.of("grouped"));
            final List<ConsumerRecord<String, String>> rest = BrokerTestSupport.pollUntil(c, 8);
            assertEquals(8, rest.size(), "resumes from the committed offsets, nothing twice");
            for (final ConsumerRecord<String, String> r : rest)
            {
                assertTrue(Integer.parseInt(r.value()) >= 40, r.value());
            }
            c.commitSync();
            final OffsetAndMetadata committed = c.committed(Set.of(new TopicPartition("grouped", 0)))
                .get(new TopicPartition("grouped", 0));
            assertNotNull(committed);
            assertEquals(12L, committed.offset());
        }
    }

    /** True once the consumer holds {@code partitions} partitions and has read each up to {@code end}. */
    private static boolean atEnd(final KafkaConsumer<String, String> c, final int partitions, final long end)
    {
        if (c.assignment().size() != partitions)
        {
            return false;
        }
        for (final TopicPartition tp : c.assignment())
        {
            if (c.position(tp) != end)
            {
                return false;
            }
        }
        return true;
    }

    @Test
    void adminListsDescribesAndDeletesConsumerGroups() throws Exception
    {
        BrokerTestSupport.createTopic(running.broker(), "admin-groups", 2, Map.of());
        produce("admin-groups", 2, 6, 0);
        final Map<String, Object> group = Map.of(ConsumerConfig.GROUP_ID_CONFIG, "g-admin");
        try (Admin admin = BrokerTestSupport.admin(running.broker()))
        {
            try (KafkaConsumer<String, String> c = BrokerTestSupport.consumer(running.broker(), group))
            {
                c.subscribe(List.of("admin-groups"));
                assertEquals(6, BrokerTestSupport.pollUntil(c, 6).size());
                c.commitSync();
                assertTrue(admin.listGroups().all().get().stream().anyMatch(g -> g.groupId().equals("g-admin")));
                final org.apache.kafka.clients.admin.ConsumerGroupDescription d =
                    admin.describeConsumerGroups(List.of("g-admin")).all().get().get("g-admin");
                assertEquals(1, d.members().size());
                assertEquals(2, d.members().iterator().next().assignment().topicPartitions().size());
                final Map<TopicPartition, OffsetAndMetadata> offsets =
                    admin.listConsumerGroupOffsets("g-admin").partitionsToOffsetAndMetadata().get();
                assertEquals(Map.of(new TopicPartition("admin-groups", 0), 3L,
                    new TopicPartition("admin-groups", 1), 3L), offsets.entrySet().stream().collect(
                    java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset())));
                final ExecutionException busy = assertThrows(ExecutionException.class,
                    () -> admin.deleteConsumerGroups(List.of("g-admin")).all().get());
                assertInstanceOf(org.apache.kafka.common.errors.GroupNotEmptyException.class, busy.getCause());
            }
            admin.deleteConsumerGroups(List.of("g-admin")).all().get();
            assertTrue(admin.listGroups().all().get().stream().noneMatch(g -> g.groupId().equals("g-admin")));
        }
    }

    private void produce(final String topic, final int partitions, final int count, final int first) throws Exception
    {
        try (KafkaProducer<String, String> producer = BrokerTestSupport.producer(running.broker(), Map.of()))
        {
            for (int i = first; i < first + count; i++)
            {
                producer.send(new ProducerRecord<>(topic, i % partitions, "k" + i, Integer.toString(i)));
            }
            producer.flush();
        }
    }
}
