package io.directlog.benchmarks.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Every result as one Markdown table: a row per benchmark, parameters and thread count, with the Throughput and
 * SampleTime results of that configuration side by side.
 * <p>
 * MiB/s is derived: ops/s times the record size ({@code recordSize}, 4 KiB for the raw overwrite, 1 MiB for the
 * raw sequential suite), or the {@code bytes} aux counter of the cold replay.
 * <p>
 * Thread-safe (stateless).
 */
final class ResultsTable
{
    private ResultsTable()
    {
    }

    static String markdown(final List<JmhResult> results)
    {
        final Map<String, JmhResult[]> rows = new LinkedHashMap<>();
        final List<JmhResult> sorted = new ArrayList<>(results);
        sorted.sort(Comparator.comparing(JmhResult::suite).thenComparing(r -> r.params().toString())
            .thenComparing(JmhResult::method).thenComparingInt(JmhResult::threads));
        for (final JmhResult r : sorted)
        {
            final JmhResult[] row = rows.computeIfAbsent(r.benchmark() + ' ' + r.threads() + ' ' + r.params(),
                k -> new JmhResult[2]);
            row["sample".equals(r.mode()) ? 1 : 0] = r;
        }
        final StringBuilder md = new StringBuilder();
        md.append("| Benchmark | Parameters | Threads | ops/s | MiB/s | p50 us | p99 us | p99.9 us | alloc B/op |\n")
            .append("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (final JmhResult[] row : rows.values())
        {
            final JmhResult any = row[0] != null ? row[0] : row[1];
            final JmhResult thrpt = row[0];
            final JmhResult sample = row[1];
            md.append("| ").append(any.suite()).append('.').append(any.method())
                .append(" | ").append(params(any))
                .append(" | ").append(any.threads())
                .append(" | ").append(thrpt == null ? "" : ops(thrpt))
                .append(" | ").append(thrpt == null ? "" : mibPerSecond(thrpt))
                .append(" | ").append(sample == null ? "" : micros(sample.percentileMicros(50)))
                .append(" | ").append(sample == null ? "" : micros(sample.percentileMicros(99)))
                .append(" | ").append(sample == null ? "" : micros(sample.percentileMicros(99.9)))
                .append(" | ").append(alloc(thrpt != null ? thrpt : sample))
                .append(" |\n");
        }
        return md.toString();
    }

    private static String params(final JmhResult r)
    {
        final StringJoiner j = new StringJoiner(", ");
        r.params().forEach((k, v) -> j.add(k + "=" + v));
        return j.toString();
    }

    private static String ops(final JmhResult r)
    {
        final double ops = r.opsPerSecond();
        final StringBuilder s = new StringBuilder(Double.isNaN(ops) ? "" : LineChart.human(ops));
        if (!Double.isNaN(r.scoreError()) && !Double.isNaN(ops) && ops > 0)
        {
            s.append(String.format(Locale.ROOT, " ± %.0f%%", 100 * r.scoreError() / r.score()));
        }
        for (final String aux : new String[] { "records", "emptyPolls" })
        {
            final double v = r.secondaryPerSecond(aux);
            if (!Double.isNaN(v))
            {
                s.append(" (").append(aux).append(' ').append(LineChart.human(v)).append("/s)");
            }
        }
        return s.toString();
    }

    static double mib(final JmhResult r)
    {
        final double bytesAux = r.secondaryPerSecond("bytes");
        if (!Double.isNaN(bytesAux))
        {
            return bytesAux / (1 << 20);
        }
        final double ops = r.opsPerSecond();
        final String size = r.param("recordSize");
        if (size != null)
        {
            return ops * Integer.parseInt(size) / (1 << 20);
        }
        switch (r.suite())
        {
            case "RawOverwriteBenchmark":
                return ops * 4096 / (1 << 20);
            case "RawSequentialBenchmark":
                return ops;
            default:
                return Double.NaN;
        }
    }

    private static String mibPerSecond(final JmhResult r)
    {
        final double mib = mib(r);
        return Double.isNaN(mib) ? "" : String.format(Locale.ROOT, mib >= 10 ? "%.0f" : "%.2f", mib);
    }

    private static String micros(final double us)
    {
        return Double.isNaN(us) ? "" : String.format(Locale.ROOT, us >= 100 ? "%.0f" : "%.1f", us);
    }

    private static String alloc(final JmhResult r)
    {
        final double b = r.allocBytesPerOp();
        return Double.isNaN(b) ? "" : String.format(Locale.ROOT, "%.0f", b);
    }
}
