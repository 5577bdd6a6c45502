package io.directlog.cli.bench;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * The "vs" column: ratios between rows of the same run, so a noisy machine affects both sides alike, each with the
 * target docs/benchmarks.md sets for it and whether this run met it, so the table reads as a verdict:
 * <ul>
 *   <li>engine-direct, 1 producer: p50 against raw-direct-4k's p50, target at most 1.2x
 *   ("1.1x raw (target 1.2x): met").</li>
 *   <li>engine-dsync, 1 producer: p50 against raw-dsync-4k's p50, target at most 1.2x.</li>
 *   <li>engine-dsync, 16 and 64 producers: ops/s against rocksdb-sync at as many threads, targets at least 3x
 *   and 5x (issue 18).</li>
 *   <li>engine-cold-read: MB/s against raw-seq-read-1m, target at least 80%.</li>
 *   <li>api-memory, 1 producer: ops/s, target at least 500,000 (an absolute target: no other row).</li>
 *   <li>api-direct and api-dsync at 100 B, 1 KiB and 4 KiB, 1 producer: p50 against raw-direct-4k's or
 *   raw-dsync-4k's p50, target at most 1.2x.</li>
 *   <li>api-dsync, 16 and 64 producers: ops/s against rocksdb-sync at as many threads, targets at least 3x and
 *   5x.</li>
 *   <li>tail-lag-dsync-10k, -100k, -1m: the reader's p99 lag, target at most 100 ms (two flush intervals of the
 *   default 50 ms): an absolute target.</li>
 *   <li>engine-many-logs, 16 producers over 1,000 logs: ops/s against engine-dsync at 16 producers on one log,
 *   target at least 80% (issue 18).</li>
 * </ul>
 * Stateless; thread-safe.
 */
final class Comparisons
{
    /**
     * One comparison: the row it applies to, the row it divides by (none when otherScenario is null: the bound
     * applies to the row's own value, and otherName is its unit), and the bound the ratio must keep.
     */
    private record Target(String scenario, int threads, String otherScenario, int otherThreads,
        ToDoubleFunction<BenchRow> metric, String otherName, boolean asPercent, boolean atMost, double bound)
    {
        String describe(final double ratio)
        {
            if (otherScenario == null)
            {
                // an absolute target: the "ratio" is the row's own value
                final boolean met = atMost ? ratio <= bound : ratio >= bound;
                return String.format(Locale.ROOT, "%,.0f %s (target %s%,.0f): %s", ratio, otherName,
                    atMost ? "<=" : ">=", bound, met ? "met" : "missed");
            }
            final boolean met = atMost ? ratio <= bound : ratio >= bound;
            final String value = asPercent ? Comparisons.percent(ratio) + " of " + otherName : times(ratio) + " " + otherName;
            final String target = asPercent ? Comparisons.percent(bound) : times(bound);
            return value + " (target " + (atMost ? "<=" : ">=") + target + "): " + (met ? "met" : "missed");
        }
    }

    /** A DSYNC log's visibility lag: p99 at most two flush intervals (2 x 50 ms by default). */
    static final double TAIL_LAG_P99_US = 100_000;

    private static final List<Target> TARGETS = List.of(
        new Target("engine-direct", 1, "raw-direct-4k", 1, BenchRow::p50Us, "raw", false, true, 1.2),
        new Target("engine-dsync", 1, "raw-dsync-4k", 1, BenchRow::p50Us, "raw", false, true, 1.2),
        new Target("engine-dsync", 16, "rocksdb-sync", 16, BenchRow::opsPerSec, "rocksdb", false, false, 3.0),
        new Target("engine-dsync", 64, "rocksdb-sync", 64, BenchRow::opsPerSec, "rocksdb", false, false, 5.0),
        new Target("engine-cold-read", 1, "raw-seq-read-1m", 1, BenchRow::mbPerSec, "raw", true, false, 0.8),
        new Target("api-memory", 1, null, 0, BenchRow::opsPerSec, "ops/s", false, false, 500_000),
        new Target("api-direct", 1, "raw-direct-4k", 1, BenchRow::p50Us, "raw", false, true, 1.2),
        new Target("api-direct-1k", 1, "raw-direct-4k", 1, BenchRow::p50Us, "raw", false, true, 1.2),
        new Target("api-direct-4k", 1, "raw-direct-4k", 1, BenchRow::p50Us, "raw", false, true, 1.2),
        new Target("api-dsync", 1, "raw-dsync-4k", 1, BenchRow::p50Us, "raw", false, true, 1.2),
        new Target("api-dsync-1k", 1, "raw-dsync-4k", 1, BenchRow::p50Us, "raw", false, true, 1.2),
        new Target("api-dsync-4k", 1, "raw-dsync-4k", 1, BenchRow::p50Us, "raw", false, true, 1.2),
        new Target("api-dsync", 16, "rocksdb-sync", 16, BenchRow::opsPerSec, "rocksdb", false, false, 3.0),
        new Target("api-dsync", 64, "rocksdb-sync", 64, BenchRow::opsPerSec, "rocksdb", false, false, 5.0),
        new Target("tail-lag-dsync-10k", 1, null, 0, BenchRow::p99Us, "us p99", false, true, TAIL_LAG_P99_US),
        new Target("tail-lag-dsync-100k", 1, null, 0, BenchRow::p99Us, "us p99", false, true, TAIL_LAG_P99_US),
        new Target("tail-lag-dsync-1m", 1, null, 0, BenchRow::p99Us, "us p99", false, true, TAIL_LAG_P99_US),
        new Target("engine-many-logs", 16, "engine-dsync", 16, BenchRow::opsPerSec, "engine-dsync", true, false, 0.8));

    private Comparisons()
    {
    }

    /**
     * @param row  a row of the table.
     * @param rows every row of the same run.
     * @return the comparison for that row with its target and verdict, or null when it has none or the other row
     * was not measured.
     */
    static String vs(final BenchRow row, final List<BenchRow> rows)
    {
        if (!row.isMeasured())
        {
            return null;
        }
        for (final Target target : TARGETS)
        {
            if (target.scenario().equals(row.scenario()) && target.threads() == row.threads())
            {
                if (target.otherScenario() == null)
                {
                    return target.describe(target.metric().applyAsDouble(row));
                }
                return find(rows, target.otherScenario(), target.otherThreads())
                    .map(other -> target.describe(target.metric().applyAsDouble(row) /
                        target.metric().applyAsDouble(other)))
                    .orElse(null);
            }
        }
        return null;
    }

    /** @return "scenario/threads" of every row that has a target, for the test that checks each names it. */
    static List<String> rowsWithTargets()
    {
        return TARGETS.stream().map(t -> t.scenario() + "/" + t.threads()).toList();
    }

    private static Optional<BenchRow> find(final List<BenchRow> rows, final String scenario, final int threads)
    {
        return rows.stream()
            .filter(r -> r.isMeasured() && r.scenario().equals(scenario) && r.threads() == threads)
            .findFirst();
    }

    private static String percent(final double ratio)
    {
        return String.format(Locale.ROOT, "%.0f%%", 100 * ratio);
    }

    private static String times(final double ratio)
    {
        // Two significant digits below 1 too: a "0.0x" would hide that the engine beat the raw row.
        return String.format(Locale.ROOT, ratio < 0.1 ? "%.3fx" : ratio < 1 ? "%.2fx" : ratio < 10 ? "%.1fx" : "%.0fx",
            ratio);
    }
}
