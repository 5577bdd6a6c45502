package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.directlog.replication.ratis.RaftTransport;
import io.micrometer.core.instrument.FunctionCounter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 22: a three-node cluster with the broker's own election timeouts keeps its leaders while idle. Once every
 * group (topic and offsets partitions) has a leader every node knows, each node's
 * {@code directlog.cluster.leader.changes} must stand still for a bounded number of heartbeat intervals.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ClusterLeaderChurnTest
{
    private static final String TOPIC = "idle";
    private static final int PARTITIONS = 4;
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Ratis's leader sends a heartbeat every half of the least election timeout. */
    private static final long HEARTBEAT_MILLIS = ClusterConfig.ELECTION_TIMEOUT_MIN_DEFAULT.toMillis() / 2;
    private static final int IDLE_HEARTBEATS = 30;

    @Test
    void anIdleClusterCountsNoLeaderChanges() throws Exception
    {
        try (BrokerCluster c = new BrokerCluster("leader-churn", 3, Map.of(TOPIC, PARTITIONS)))
        {
            c.startAll();
            c.awaitLeaders(TOPIC, PARTITIONS, WAIT);
            final int groups = PARTITIONS + ClusterConfig.OFFSETS_PARTITIONS_DEFAULT;
            // Each node counts each group's first leader once it hears of it: wait (bounded) for all of them.
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (Arrays.stream(changes(c)).anyMatch(n -> n < groups))
            {
                if (System.nanoTime() > deadline)
                {
                    throw new AssertionError("not every node heard of every group's leader: " +
                        Arrays.toString(changes(c)));
                }
                Thread.sleep(20); // polling a meter: there is no event to wait on from here
            }
            final long[] before = changes(c);
            final long start = System.nanoTime();
            final long idleNanos = TimeUnit.MILLISECONDS.toNanos(IDLE_HEARTBEATS * HEARTBEAT_MILLIS);
            // Watching time pass is the test: stop early once a change shows.
            while (System.nanoTime() - start < idleNanos && Arrays.equals(before, changes(c)))
            {
                Thread.sleep(HEARTBEAT_MILLIS / 5);
            }
            final long[] after = changes(c);
            final long idleMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.printf("CLUSTER-LEADER-CHURN rpc=%s groups=%d idle_ms=%d leader_changes_before=%s after=%s%n",
                RaftTransport.configured().propertyValue(), groups, idleMillis, Arrays.toString(before),
                Arrays.toString(after));
            assertEquals(Arrays.toString(before), Arrays.toString(after),
                "directlog.cluster.leader.changes per node moved on an idle cluster within " + idleMillis + " ms");
        }
    }

    private static long[] changes(final BrokerCluster c)
    {
        final long[] out = new long[c.size()];
        for (int i = 0; i < out.length; i++)
        {
            final FunctionCounter counter = c.broker(i).meterRegistry().find("directlog.cluster.leader.changes")
                .functionCounter();
            out[i] = counter == null ? -1 : (long)counter.count();
        }
        return out;
    }
}
