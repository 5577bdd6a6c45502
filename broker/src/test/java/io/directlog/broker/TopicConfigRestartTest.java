package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

import io.directlog.broker.topic.Topic;
import io.directlog.broker.topic.TopicRegistry;
import io.directlog.storage.Durability;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;

/** Per-topic configs set at creation are the partition logs' configs again after a broker restart. */
class TopicConfigRestartTest
{
    @Test
    void topicConfigsApplyToPartitionLogsAfterARestart() throws Exception
    {
        final Path dir = BrokerTestSupport.newDirectory("topic-config-restart");
        final BrokerConfig config = BrokerTestSupport.config(dir);
        final Uuid id;
        try (KafkaBroker broker = KafkaBroker.start(config))
        {
            BrokerTestSupport.createTopic(broker, "configured", 2, Map.of(
                "directlog.durability", "MEMORY",
                "retention.bytes", "3145728",
                "retention.ms", "3600000",
                "max.message.bytes", "20000"));
            BrokerTestSupport.createTopic(broker, "plain", 1, Map.of());
            assertConfigured(broker);
            id = broker.topics().topic("configured").id();
        }
        // the logs carry the topic's settings themselves, from the moment the store opens them (recovery,
        // retention), before the broker's topic registry replays its metadata
        try (LogStore store = LogStore.open(StoreConfig.builder(dir).memoryBudget(config.memoryBudget())
            .defaultLogConfig(LogConfig.builder().segmentSize(config.segmentBytes()).durability(config.durability())
                .build())
            .build()))
        {
            for (int p = 0; p < 2; p++)
            {
                final LogConfig c = store.log("p." + id + "." + p).config();
                assertEquals(Durability.MEMORY, c.durability(), "durability persisted with partition " + p);
                assertEquals(3145728L, c.retentionBytes(), "retention.bytes persisted with partition " + p);
                assertEquals(Duration.ofHours(1), c.retentionTime(), "retention.ms persisted with partition " + p);
            }
        }
        try (KafkaBroker broker = KafkaBroker.start(config))
        {
            assertConfigured(broker);
        }
    }

    private static void assertConfigured(final KafkaBroker broker)
    {
        final Topic topic = broker.topics().topic("configured");
        assertEquals(20000, topic.config().maxMessageBytes());
        for (int p = 0; p < 2; p++)
        {
            final LogConfig c = TopicRegistry.localLog(topic.partition(p)).config();
            assertEquals(Durability.MEMORY, c.durability(), "durability of partition " + p);
            assertEquals(3145728L, c.retentionBytes(), "retention.bytes of partition " + p);
            assertEquals(Duration.ofHours(1), c.retentionTime(), "retention.ms of partition " + p);
        }
        final LogConfig plain = TopicRegistry.localLog(broker.topics().topic("plain").partition(0)).config();
        assertEquals(Durability.DSYNC, plain.durability());
        assertEquals(LogConfig.RETENTION_BYTES_NONE, plain.retentionBytes());
        assertEquals(Duration.ofDays(7), plain.retentionTime());
    }
}
