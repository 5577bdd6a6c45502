package io.directlog.replication.ratis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.directlog.replication.BatchStamper;
import io.directlog.storage.LogStore;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;

/**
 * What a node's settings make of Ratis's: the ones whose Ratis default would hurt a broker (issue 22: after a
 * 60-second pause, Ratis's default closes the whole server and the node never rejoins).
 */
class RatisPropertiesTest
{
    private static final Path ROOT = Path.of(System.getProperty("directlog.test.dir", "target/test-data"),
        "ratis-properties");
    private static final RatisReplicationNode.Peer SELF = new RatisReplicationNode.Peer("1", "127.0.0.1", 1);

    @Test
    void noRealisticPauseOfTheJvmClosesTheRaftServer() throws IOException
    {
        final RaftProperties p = properties(null);
        final long closeMillis = RaftServerConfigKeys.closeThreshold(p).toLong(TimeUnit.MILLISECONDS);
        assertEquals(RatisReplicationNode.PAUSE_CLOSE_THRESHOLD_DEFAULT.toMillis(), closeMillis);
        assertTrue(closeMillis >= Duration.ofDays(30).toMillis(), "a GC, a VM suspend or a SIGSTOP of hours must " +
            "leave the server running; raft.server.close.threshold is " + closeMillis + " ms (Ratis's default: " +
            RaftServerConfigKeys.CLOSE_THRESHOLD_DEFAULT + ")");
    }

    /** ReturningLeaderCommitTest shows what the default does to a returning leader. */
    @Test
    void aFollowerMovesItsCommitIndexOnlyOverEntriesItsRaftLogHolds() throws IOException
    {
        assertFalse(RaftServerConfigKeys.Log.appendEntriesComposeEnabled(properties(null)),
            "raft.server.log.append-entries.compose.enabled lets a heartbeat commit indexes a queued append has " +
                "not replaced yet");
    }

    @Test
    void aLoweredThresholdForATestReachesRatis() throws IOException
    {
        assertEquals(1500, RaftServerConfigKeys.closeThreshold(properties(Duration.ofMillis(1500)))
            .toLong(TimeUnit.MILLISECONDS));
    }

    /** @param closeThreshold null for the node's default. */
    private static RaftProperties properties(final Duration closeThreshold) throws IOException
    {
        final Path dir = Files.createTempDirectory(Files.createDirectories(ROOT), "p-");
        try (LogStore store = TestCluster.openStore(dir))
        {
            final RatisReplicationNode.Config c = closeThreshold == null ?
                new RatisReplicationNode.Config(SELF, dir.resolve("raft"), store, BatchStamper.KAFKA_V2,
                    Duration.ofMillis(500), Duration.ofMillis(1000), true) :
                new RatisReplicationNode.Config(SELF, dir.resolve("raft"), store, BatchStamper.KAFKA_V2,
                    Duration.ofMillis(500), Duration.ofMillis(1000), true, RaftTransport.configured(), closeThreshold);
            return RatisReplicationNode.properties(c);
        }
        finally
        {
            try (var paths = Files.walk(dir))
            {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }
}
