package io.directlog.cli.brokerbench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Issue 21's targets, as ratios of DirectLog's rows to Kafka's rows of the same run:
 * <ul>
 *   <li>max-throughput: MB/s at least 1.0x kafka and 2.5x kafka-fsync; broker CPU per GB at most 0.7x kafka's;</li>
 *   <li>fixed-rate (publish and e2e): p99 at most 0.5x kafka's and kafka-fsync's; p99.9 at most their p99;</li>
 *   <li>many-partitions (publish and e2e): p99 at most theirs;</li>
 *   <li>catch-up: read MB/s at least theirs; publish p99 during the read at most 1.5x DirectLog's own without it;</li>
 *   <li>replicated (issue 22; directlog-rf3 against kafka-rf3): MB/s unthrottled at least kafka-rf3's; publish p99
 *   at the fixed rate at most 0.5x kafka-rf3's.</li>
 * </ul>
 * Stateless; thread-safe.
 */
final class BrokerTargets
{
    static final String DIRECTLOG = "directlog";
    static final String KAFKA = "kafka";
    static final String KAFKA_FSYNC = "kafka-fsync";
    /** DirectLog's three-node cluster: every partition a Raft group over the three nodes. */
    static final String DIRECTLOG_RF3 = "directlog-rf3";
    /** Apache Kafka with three brokers, replication factor 3, min.insync.replicas=2. */
    static final String KAFKA_RF3 = "kafka-rf3";

    private BrokerTargets()
    {
    }

    /**
     * @param row  a row.
     * @param rows all rows of the run.
     * @param against {@code kafka}, {@code kafka-fsync} or {@code kafka-rf3}.
     * @return DirectLog's figure over Kafka's for the row's headline number (MB/s for throughput rows, p99 for latency
     *         rows), or empty when the row is not DirectLog's or there is nothing to compare with.
     */
    static Optional<Double> ratio(final BrokerBenchRow row, final List<BrokerBenchRow> rows, final String against)
    {
        if (!isDirectLog(row) || !row.isMeasured())
        {
            return Optional.empty();
        }
        return find(rows, against, row.scenario(), row.measure())
            .map(other -> isThroughput(row) ? row.mbPerSec() / other.mbPerSec() : row.p99Ms() / other.p99Ms())
            .filter(r -> !r.isNaN() && !r.isInfinite());
    }

    /**
     * @param row  a row.
     * @param rows all rows of the run.
     * @return the verdicts for a DirectLog row ("met"/"MISSED" per target, "n/a" where a figure is missing), or ""
     *         for rows without targets.
     */
    static String verdict(final BrokerBenchRow row, final List<BrokerBenchRow> rows)
    {
        if (!isDirectLog(row) || !row.isMeasured())
        {
            return "";
        }
        final List<String> parts = new ArrayList<>();
        final String key = row.scenario() + "/" + row.measure();
        switch (key)
        {
            case "max-throughput/publish" ->
            {
                parts.add(atLeast("MB/s vs kafka", ratio(row, rows, KAFKA), 1.0));
                parts.add(atLeast("MB/s vs kafka-fsync", ratio(row, rows, KAFKA_FSYNC), 2.5));
                parts.add(atMost("cpu/GB vs kafka", find(rows, KAFKA, row.scenario(), row.measure())
                    .map(k -> row.brokerCpuSecPerGb() / k.brokerCpuSecPerGb()), 0.7));
            }
            case "fixed-rate/publish", "fixed-rate/e2e" ->
            {
                for (final String k : List.of(KAFKA, KAFKA_FSYNC))
                {
                    parts.add(atMost("p99 vs " + k, ratio(row, rows, k), 0.5));
                    parts.add(atMost("p99.9 vs " + k + " p99", find(rows, k, row.scenario(), row.measure())
                        .map(o -> row.p999Ms() / o.p99Ms()), 1.0));
                }
            }
            case "many-partitions/publish", "many-partitions/e2e" ->
            {
                parts.add(atMost("p99 vs kafka", ratio(row, rows, KAFKA), 1.0));
                parts.add(atMost("p99 vs kafka-fsync", ratio(row, rows, KAFKA_FSYNC), 1.0));
            }
            case "catch-up/read" ->
            {
                parts.add(atLeast("read vs kafka", ratio(row, rows, KAFKA), 1.0));
                parts.add(atLeast("read vs kafka-fsync", ratio(row, rows, KAFKA_FSYNC), 1.0));
            }
            case "catch-up/publish-during-read" -> parts.add(atMost("p99 vs own without read",
                find(rows, DIRECTLOG, row.scenario(), "publish").map(o -> row.p99Ms() / o.p99Ms()), 1.5));
            case "replicated/throughput" -> parts.add(atLeast("MB/s vs kafka-rf3", ratio(row, rows, KAFKA_RF3), 1.0));
            case "replicated/publish" -> parts.add(atMost("p99 vs kafka-rf3", ratio(row, rows, KAFKA_RF3), 0.5));
            default ->
            {
                return "";
            }
        }
        return String.join("; ", parts);
    }

    static boolean isThroughput(final BrokerBenchRow row)
    {
        return "read".equals(row.measure()) || "throughput".equals(row.measure()) ||
            "max-throughput".equals(row.scenario());
    }

    /** @return whether the row is DirectLog's, single node or cluster: the rows that get ratios and verdicts. */
    static boolean isDirectLog(final BrokerBenchRow row)
    {
        return DIRECTLOG.equals(row.system()) || DIRECTLOG_RF3.equals(row.system());
    }

    /** @return the Kafka a DirectLog system is compared with in the table's "vs kafka" column. */
    static String kafkaFor(final String system)
    {
        return DIRECTLOG_RF3.equals(system) ? KAFKA_RF3 : KAFKA;
    }

    private static String atLeast(final String what, final Optional<Double> ratio, final double target)
    {
        return ratio.filter(r -> !r.isNaN() && !r.isInfinite())
            .map(r -> String.format(Locale.ROOT, "%s %s (>=%s) %s", what, times(r), times(target),
                r >= target ? "met" : "MISSED"))
            .orElse(what + " n/a");
    }

    private static String atMost(final String what, final Optional<Double> ratio, final double target)
    {
        return ratio.filter(r -> !r.isNaN() && !r.isInfinite())
            .map(r -> String.format(Locale.ROOT, "%s %s (<=%s) %s", what, times(r), times(target),
                r <= target ? "met" : "MISSED"))
            .orElse(what + " n/a");
    }

    static String times(final double ratio)
    {
        return String.format(Locale.ROOT, ratio >= 10 ? "%.0fx" : "%.2fx", ratio);
    }

    static Optional<BrokerBenchRow> find(final List<BrokerBenchRow> rows, final String system, final String scenario,
        final String measure)
    {
        return rows.stream().filter(r -> r.system().equals(system) && r.scenario().equals(scenario) &&
            r.measure().equals(measure) && r.isMeasured()).findFirst();
    }
}
