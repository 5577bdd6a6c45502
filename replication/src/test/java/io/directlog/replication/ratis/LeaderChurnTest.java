package io.directlog.replication.ratis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 22: leaders of an RF3 cluster changed with no node stopped. Three nodes in this JVM host as many groups as
 * the broker bench's cluster (16 partitions and 3 offsets partitions); once every group has one leader that all
 * three nodes know, nothing may change for a bounded number of heartbeat intervals: no leader change on any node
 * ({@link RatisReplicationNode#leaderChanges()}) and no group's term moving (a term moves with every election
 * that gets past pre-vote, also one the old leader wins again).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeaderChurnTest
{
    /** As bench-broker's directlog-rf3: 16 partitions plus the broker's 3 offsets partitions, one group each. */
    private static final int GROUPS = 19;
    /** Ratis's leader sends a heartbeat every half of the least election timeout. */
    private static final long HEARTBEAT_MILLIS = TestCluster.ELECTION_TIMEOUT_MIN.toMillis() / 2;
    /** How long the cluster stays idle, in heartbeat intervals (each group's followers each get this many). */
    private static final int IDLE_HEARTBEATS = 30;

    private static final Path ROOT = Path.of(System.getProperty("directlog.test.dir", "target/test-data"),
        "leader-churn");

    @Test
    void anIdleClusterKeepsItsLeadersForThirtyHeartbeats() throws IOException, InterruptedException
    {
        try (TestCluster cluster = new TestCluster(ROOT.resolve(Long.toString(System.nanoTime())), true))
        {
            final List<List<RatisPartition>> groups = startSettled(cluster);
            final long changesBefore = leaderChanges(cluster);
            final List<Long> termsBefore = terms(groups);
            cluster.step("idle for " + IDLE_HEARTBEATS + " heartbeats of " + HEARTBEAT_MILLIS + " ms; leader " +
                "changes so far " + changesBefore + " (each node counts each group's first leader)");
            final long idleNanos = TimeUnit.MILLISECONDS.toNanos(IDLE_HEARTBEATS * HEARTBEAT_MILLIS);
            final long start = System.nanoTime();
            // Watching time pass is the test (nothing to wait for): stop early once a change shows.
            while (System.nanoTime() - start < idleNanos && leaderChanges(cluster) == changesBefore &&
                terms(groups).equals(termsBefore))
            {
                Thread.sleep(HEARTBEAT_MILLIS / 5);
            }
            final long idleMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            final long changes = leaderChanges(cluster) - changesBefore;
            final List<Long> termsAfter = terms(groups);
            System.out.printf("LEADER-CHURN rpc=%s groups=%d idle_ms=%d leader_changes=%d per_min=%.1f " +
                "terms_before=%s terms_after=%s%n", RaftTransport.configured().propertyValue(), GROUPS, idleMillis,
                changes, changes * 60_000.0 / Math.max(1, idleMillis), termsBefore, termsAfter);
            assertEquals(0, changes, "leader changes on an idle cluster within " + idleMillis + " ms");
            assertEquals(termsBefore, termsAfter, "terms of an idle cluster's groups");
        }
    }

    /** Rounds of one append per group, all groups in flight at once (what made one fsync block others). */
    private static final int LOAD_ROUNDS = 60;

    /**
     * Every group appends at once, 60 rounds: no leader changes, no failed append. Passed 3 of 3 with gRPC and 2 of
     * 2 with Netty at load average 10-29 on two shared cores (docs/replication.md, "Transport"); it failed once
     * with gRPC at load 48 with another cluster test beside it (94 changes in 37 s): a machine starved that badly
     * still fails it.
     */
    @Test
    @Disabled("kept off with Netty the default (issue 22, docs/replication.md \"Transport\"): it passed 3 of 3 with "
        + "gRPC and 2 of 2 with Netty at load average 10-29 (0 leader changes, 1,140 of 1,140 acked each), so it "
        + "does not separate the transports here; it failed with gRPC at load 48 beside another cluster test (94 "
        + "changes in 37 s). Run it with -Djunit.jupiter.conditions.deactivate=org.junit.*DisabledCondition")
    void leadersStayWhileEveryGroupAppendsAtOnce() throws IOException
    {
        try (TestCluster cluster = new TestCluster(ROOT.resolve(Long.toString(System.nanoTime())), true))
        {
            final List<List<RatisPartition>> groups = startSettled(cluster);
            final long changesBefore = leaderChanges(cluster);
            final List<Long> termsBefore = terms(groups);
            cluster.step("load: " + LOAD_ROUNDS + " rounds of one append per group, " + GROUPS + " in flight");
            final long start = System.nanoTime();
            int acked = 0;
            int failed = 0;
            for (int round = 0; round < LOAD_ROUNDS; round++)
            {
                final List<java.util.concurrent.CompletableFuture<Long>> inFlight = new ArrayList<>();
                for (int g = 0; g < GROUPS; g++)
                {
                    final long id = (long)g * 1_000_000 + round;
                    final Optional<RatisPartition> leader = groups.get(g).stream().filter(RatisPartition::isLeader)
                        .findFirst();
                    if (leader.isPresent())
                    {
                        inFlight.add(leader.get().append(TestBatches.batch(id), TestBatches.recordCount(id)));
                    }
                    else
                    {
                        failed++; // no ready leader for this group right now: an election is going on
                    }
                }
                for (final java.util.concurrent.CompletableFuture<Long> append : inFlight)
                {
                    if (TestCluster.outcome(append).isPresent())
                    {
                        acked++;
                    }
                    else
                    {
                        failed++;
                    }
                }
            }
            final long loadMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            final long changes = leaderChanges(cluster) - changesBefore;
            System.out.printf("LEADER-CHURN-LOAD rpc=%s groups=%d load_ms=%d appends_acked=%d failed=%d " +
                "leader_changes=%d per_min=%.1f terms_before=%s terms_after=%s%n",
                RaftTransport.configured().propertyValue(), GROUPS, loadMillis, acked, failed, changes,
                changes * 60_000.0 / Math.max(1, loadMillis), termsBefore, terms(groups));
            assertEquals(0, changes, "leader changes while every group appended, within " + loadMillis + " ms");
            assertEquals(0, failed, "appends refused or failed without a fault");
        }
    }

    /** Starts the three nodes and {@link #GROUPS} groups; returns each group's replicas once every group is settled. */
    private static List<List<RatisPartition>> startSettled(final TestCluster cluster) throws IOException
    {
        cluster.startAll();
        final List<List<RatisPartition>> groups = new ArrayList<>();
        groups.add(List.of(cluster.nodes[0].partition, cluster.nodes[1].partition, cluster.nodes[2].partition));
        for (int g = 1; g < GROUPS; g++)
        {
            groups.add(cluster.openPartition("orders-" + g));
        }
        cluster.step("awaiting one leader per group known to all three nodes");
        TestCluster.await("every group led, its leader known to every replica", () ->
            groups.stream().allMatch(LeaderChurnTest::settled));
        return groups;
    }

    /** A group has a ready leader, and every replica names it. */
    private static boolean settled(final List<RatisPartition> replicas)
    {
        final Optional<String> leader = replicas.get(0).leaderId();
        return leader.isPresent() && replicas.stream().allMatch(r -> r.leaderId().equals(leader)) &&
            replicas.stream().anyMatch(RatisPartition::isLeader);
    }

    private static long leaderChanges(final TestCluster cluster)
    {
        long sum = 0;
        for (final TestCluster.Node n : cluster.nodes)
        {
            sum += n.node.leaderChanges();
        }
        return sum;
    }

    private static List<Long> terms(final List<List<RatisPartition>> groups)
    {
        final List<Long> terms = new ArrayList<>();
        groups.forEach(replicas -> terms.add(replicas.stream().mapToLong(RatisPartition::leaderEpoch).max()
            .orElse(-1)));
        return terms;
    }
}
