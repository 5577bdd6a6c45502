package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A cluster node whose Raft server Ratis closes under it must not stay up as a zombie (issue 22): it still held its
 * Kafka port and answered Metadata, but could never vote, follow or catch up again. Ratis closes the server after a
 * JVM pause past {@code raft.server.close.threshold}; the broker sets that out of reach, so the test lowers it for
 * one node to make Ratis close the server, and checks the node stops itself with {@link FailStop#EXIT_STATUS} and
 * an ERROR line saying why, and that it rejoins once restarted.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class PausedNodeFailStopTest
{
    private static final String TOPIC = "pause";
    private static final Duration WAIT = Duration.ofSeconds(60);
    /**
     * Lowered from Ratis's 60 s (and the broker's year) so that a short SIGSTOP is past it; above the stalls a JVM
     * start sees on two loaded cores (1 s was passed during a start).
     */
    private static final Duration CLOSE_THRESHOLD = Duration.ofSeconds(8);
    /** The SIGSTOP: well past the threshold, as Ratis's pause monitor measures it after the resume. */
    private static final Duration PAUSE = Duration.ofSeconds(15);

    @Test
    void aNodeWhoseRaftServerRatisClosedAfterAPauseExitsWithTheFailStopStatusAndRejoinsWhenRestarted()
        throws Exception
    {
        try (ProcessCluster c = new ProcessCluster("pause-close", 3, Map.of(TOPIC, 1)))
        {
            c.raftPauseCloseThreshold(CLOSE_THRESHOLD);
            c.startAll();
            final int leader = c.awaitLeader(TOPIC, 0, WAIT);
            c.node(leader).pause();
            Thread.sleep(PAUSE.toMillis()); // the fault itself: how long the process stays stopped
            c.node(leader).resume();
            final int status = c.node(leader).awaitExit(WAIT);
            final String out = Files.readString(c.outFile(leader));
            assertEquals(FailStop.EXIT_STATUS, status, "the node's exit status; its output: " + c.outFile(leader));
            assertTrue(out.contains("FATAL: Ratis closed the Raft group"), "no FATAL line saying why in " +
                c.outFile(leader));
            final int next = c.awaitLeader(TOPIC, 0, WAIT);
            assertTrue(next != leader, "the two others elect a leader");
            c.startAll(); // the supervisor's restart: the node rejoins its group
            final String nextId = Integer.toString(c.address(next).id());
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (!c.state(leader).get(TOPIC + "/0").leaderId().equals(nextId))
            {
                assertTrue(System.nanoTime() < deadline, "the restarted node did not follow node " + nextId +
                    " within " + WAIT + ": " + c.state(leader) + " (node logs: " + c.logs() + ")");
                Thread.sleep(25); // polling a Raft role in another process: there is no event to wait on
            }
            c.awaitConverged(TOPIC, 1, WAIT);
        }
    }
}
