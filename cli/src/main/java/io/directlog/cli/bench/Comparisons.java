package io.directlog.cli.bench;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The "vs" column: ratios between rows of the same run, so a noisy machine affects both sides alike.
 * <ul>
 *   <li>engine-direct, 1 producer: p50 against raw-direct-4k's p50 ("1.1x raw": what the engine adds to the device).</li>
 *   <li>engine-dsync, 1 producer: p50 against raw-dsync-4k's p50.</li>
 *   <li>engine-dsync, 16 producers: ops/s against rocksdb-sync at 16 threads ("4.2x rocksdb").</li>
 *   <li>engine-cold-read: MB/s against raw-seq-read-1m ("85% of raw").</li>
 * </ul>
 * Stateless; thread-safe.
 */
final class Comparisons
{
    private Comparisons()
    {
    }

    /**
     * @param row  a row of the table.
     * @param rows every row of the same run.
     * @return the comparison for that row, or null when it has none or the other row was not measured.
     */
    static String vs(final BenchRow row, final List<BenchRow> rows)
    {
        if (!row.isMeasured())
        {
            return null;
        }
        return switch (row.scenario() + "/" + row.threads())
        {
            case "engine-direct/1" -> find(rows, "raw-direct-4k", 1)
                .map(raw -> times(row.p50Us() / raw.p50Us()) + " raw").orElse(null);
            case "engine-dsync/1" -> find(rows, "raw-dsync-4k", 1)
                .map(raw -> times(row.p50Us() / raw.p50Us()) + " raw").orElse(null);
            case "engine-dsync/16" -> find(rows, "rocksdb-sync", 16)
                .map(db -> times(row.opsPerSec() / db.opsPerSec()) + " rocksdb").orElse(null);
            case "engine-cold-read/1" -> find(rows, "raw-seq-read-1m", 1)
                .map(raw -> String.format(Locale.ROOT, "%.0f%% of raw", 100 * row.mbPerSec() / raw.mbPerSec()))
                .orElse(null);
            default -> null;
        };
    }

    private static Optional<BenchRow> find(final List<BenchRow> rows, final String scenario, final int threads)
    {
        return rows.stream()
            .filter(r -> r.isMeasured() && r.scenario().equals(scenario) && r.threads() == threads)
            .findFirst();
    }

    private static String times(final double ratio)
    {
        // Two significant digits below 1 too: a "0.0x" would hide that the engine beat the raw row.
        return String.format(Locale.ROOT, ratio < 0.1 ? "%.3fx" : ratio < 1 ? "%.2fx" : ratio < 10 ? "%.1fx" : "%.0fx",
            ratio);
    }
}
