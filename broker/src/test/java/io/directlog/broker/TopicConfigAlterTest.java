package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterConfigsResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.broker.topic.Partition;
import io.directlog.broker.topic.TopicRegistry;
import io.directlog.storage.Durability;
import io.directlog.storage.LogConfig;

/**
 * IncrementalAlterConfigs (through the 4.4.0 Admin client) and AlterConfigs (raw: Admin dropped it in 4.0) change a
 * topic's configs: DescribeConfigs shows them, the partition logs apply them, and both survive a restart.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TopicConfigAlterTest
{
    private static final ConfigResource TOPIC = new ConfigResource(ConfigResource.Type.TOPIC, "alter");

    private static void alter(final Admin admin, final AlterConfigOp... ops) throws Exception
    {
        admin.incrementalAlterConfigs(Map.of(TOPIC, List.of(ops))).all().get();
    }

    private static AlterConfigOp set(final String key, final String value)
    {
        return new AlterConfigOp(new ConfigEntry(key, value), AlterConfigOp.OpType.SET);
    }

    private static Config describe(final Admin admin) throws Exception
    {
        return admin.describeConfigs(List.of(TOPIC)).all().get().get(TOPIC);
    }

    private static void assertRefused(final Admin admin, final AlterConfigOp op, final String why)
    {
        final ExecutionException e = assertThrows(ExecutionException.class, () -> alter(admin, op), why);
        assertInstanceOf(InvalidConfigurationException.class, e.getCause(), why);
    }

    private static void assertLogs(final KafkaBroker broker, final Duration retention, final long retentionBytes,
        final Durability durability)
    {
        for (final Partition p : broker.topics().topic("alter").partitions())
        {
            final LogConfig c = TopicRegistry.localLog(p).config();
            assertEquals(retention, c.retentionTime(), p.toString());
            assertEquals(retentionBytes, c.retentionBytes(), p.toString());
            assertEquals(durability, c.durability(), p.toString());
        }
    }

    @Test
    void topicConfigsChangeTheLogsAndDescribeConfigsAndSurviveARestart() throws Exception
    {
        final Path dir = BrokerTestSupport.newDirectory("alter-configs");
        try (KafkaBroker broker = KafkaBroker.start(BrokerTestSupport.config(dir)))
        {
            BrokerTestSupport.createTopic(broker, "alter", 2, Map.of("retention.ms", "3600000"));
            try (Admin admin = BrokerTestSupport.admin(broker))
            {
                alter(admin, set("retention.ms", "7200000"), set("retention.bytes", "1048576"),
                    set("max.message.bytes", "2000"), set("directlog.durability", "DIRECT"));
                final Config described = describe(admin);
                assertEquals("7200000", described.get("retention.ms").value());
                assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, described.get("retention.ms").source());
                assertEquals("1048576", described.get("retention.bytes").value());
                assertEquals(false, described.get("retention.ms").isReadOnly());
                assertLogs(broker, Duration.ofHours(2), 1 << 20, Durability.DIRECT);

                try (KafkaProducer<String, String> p = BrokerTestSupport.producer(broker, Map.of()))
                {
                    final ExecutionException e = assertThrows(ExecutionException.class,
                        () -> p.send(new ProducerRecord<>("alter", "x".repeat(3000))).get());
                    assertInstanceOf(RecordTooLargeException.class, e.getCause(), "max.message.bytes is applied");
                }

                alter(admin, new AlterConfigOp(new ConfigEntry("retention.bytes", null), AlterConfigOp.OpType.DELETE));
                assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, describe(admin).get("retention.bytes").source());
                assertLogs(broker, Duration.ofHours(2), LogConfig.RETENTION_BYTES_NONE, Durability.DIRECT);

                admin.incrementalAlterConfigs(Map.of(TOPIC, List.of(set("retention.ms", "60000"))),
                    new AlterConfigsOptions().validateOnly(true)).all().get();
                assertEquals("7200000", describe(admin).get("retention.ms").value(), "validateOnly changes nothing");

                assertRefused(admin, set("segment.bytes", Integer.toString(4 << 20)), "segment size is fixed");
                assertRefused(admin, set("no.such.config", "1"), "unknown key");
                assertRefused(admin, set("retention.ms", "soon"), "not a number");
                assertRefused(admin, new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"),
                    AlterConfigOp.OpType.APPEND), "compaction is not served");
                assertRefused(admin, new AlterConfigOp(new ConfigEntry("retention.ms", "1"),
                    AlterConfigOp.OpType.APPEND), "APPEND is for list configs");
                assertEquals("7200000", describe(admin).get("retention.ms").value(), "a refused change changes nothing");
            }
        }
        try (KafkaBroker broker = KafkaBroker.start(BrokerTestSupport.config(dir)))
        {
            assertLogs(broker, Duration.ofHours(2), LogConfig.RETENTION_BYTES_NONE, Durability.DIRECT);
            try (Admin admin = BrokerTestSupport.admin(broker))
            {
                assertEquals("7200000", describe(admin).get("retention.ms").value());
                assertEquals("2000", describe(admin).get("max.message.bytes").value());
            }
            // legacy AlterConfigs replaces the whole set: what is not given reverts to its default
            try (RawClient c = new RawClient(broker))
            {
                final AlterConfigsRequestData req = new AlterConfigsRequestData();
                req.resources().add(new AlterConfigsRequestData.AlterConfigsResource().setResourceType((byte)2)
                    .setResourceName("alter").setConfigs(new AlterConfigsRequestData.AlterableConfigCollection(
                        List.of(new AlterConfigsRequestData.AlterableConfig().setName("retention.ms")
                            .setValue("600000")).iterator())));
                req.resources().add(new AlterConfigsRequestData.AlterConfigsResource().setResourceType((byte)2)
                    .setResourceName("missing"));
                final Collection<AlterConfigsResponseData.AlterConfigsResourceResponse> r =
                    ((AlterConfigsResponse)c.call(req, (short)2)).data().responses();
                assertEquals(List.of(Errors.NONE.code(), Errors.UNKNOWN_TOPIC_OR_PARTITION.code()),
                    r.stream().map(AlterConfigsResponseData.AlterConfigsResourceResponse::errorCode).toList());
            }
            assertLogs(broker, Duration.ofMinutes(10), LogConfig.RETENTION_BYTES_NONE,
                broker.config().durability());
            try (Admin admin = BrokerTestSupport.admin(broker))
            {
                assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, describe(admin).get("max.message.bytes").source());
            }
        }
    }
}
