package io.directlog.kafka.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** The launcher's pure parts; starting and stopping a real node is exercised by {@link ClientCompatibilityTest}. */
class KafkaNodeTest
{
    @Test
    void serverPropertiesListenOnLoopbackOnlyAndLetBrokerPropertiesOverride()
    {
        final String props = KafkaNode.serverProperties(
            new KafkaNode.Config().brokerProperty("num.partitions", "3").brokerProperty("log.flush.interval.messages", "1"),
            Path.of("/data/log"), 40001, 40002);

        assertTrue(props.contains("listeners=PLAINTEXT://127.0.0.1:40001,CONTROLLER://127.0.0.1:40002\n"), props);
        assertTrue(props.contains("controller.quorum.bootstrap.servers=127.0.0.1:40002\n"), props);
        assertTrue(props.contains("log.dirs=/data/log\n"), props);
        assertTrue(props.contains("num.partitions=3\n"), props);
        assertFalse(props.contains("num.partitions=1\n"), props);
        assertTrue(props.contains("log.flush.interval.messages=1\n"), props);
    }

    @Test
    void clusterMembersNameTheStaticQuorumAndKeepKafkasReplicatedInternalTopics()
    {
        final String props = KafkaNode.clusterMemberProperties(
            new KafkaNode.Config().brokerProperty("min.insync.replicas", "2"), Path.of("/data/node-2/log"), 2, 40003,
            40004, "1@127.0.0.1:40002,2@127.0.0.1:40004,3@127.0.0.1:40006");

        assertTrue(props.contains("node.id=2\n"), props);
        assertTrue(props.contains("controller.quorum.voters=1@127.0.0.1:40002,2@127.0.0.1:40004,3@127.0.0.1:40006\n"),
            props);
        assertFalse(props.contains("controller.quorum.bootstrap.servers"), props);
        assertTrue(props.contains("listeners=PLAINTEXT://127.0.0.1:40003,CONTROLLER://127.0.0.1:40004\n"), props);
        assertFalse(props.contains("replication.factor"), "the internal topics keep three replicas: " + props);
        assertFalse(props.contains("min.isr"), props);
        assertTrue(props.contains("min.insync.replicas=2\n"), props);
    }

    @Test
    void clusterIdIsSixteenBytesOfUrlSafeBase64NotStartingWithDash()
    {
        for (int i = 0; i < 1_000; i++)
        {
            final String id = KafkaNode.randomClusterId();
            assertEquals(22, id.length(), id);
            assertFalse(id.startsWith("-"), id);
            assertEquals(16, Base64.getUrlDecoder().decode(id).length, id);
        }
    }

    @Test
    void versionIsReadFromTheStartupLog()
    {
        assertEquals("4.4.0", KafkaNode.versionIn("[2026-11-26 06:00:00,000] INFO Kafka version: 4.4.0 (org.apache...)"));
        assertEquals("unknown", KafkaNode.versionIn("no version here"));
    }
}
