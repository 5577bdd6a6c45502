package io.directlog.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes the benchmark report from JMH JSON result files:
 * <ul>
 *   <li>{@code throughput-memory.svg}, {@code throughput-direct.svg}, {@code throughput-dsync.svg}: appends per
 *   second against producers, 100 B records, the engine at that durability with the peers that promise the same
 *   (see {@link #classify(JmhResult)}) as lines and the raw device as a dashed reference;</li>
 *   <li>{@code latency.svg}: p50 to p99.99 of one producer (SampleTime) for the engine, the raw device and
 *   RocksDB;</li>
 *   <li>{@code read-latency.svg}: p50 to p99.99 of random point reads, the engine beside RocksDB and Chronicle
 *   Queue;</li>
 *   <li>{@code results.md}: every result as a Markdown table (ops/s, MiB/s, percentiles, allocation).</li>
 * </ul>
 * Usage: {@code PlotMain <output dir> <results.json>...}; later files win where results repeat.
 * <p>
 * Not thread-safe; a command-line tool.
 */
public final class PlotMain
{
    /** The record size the plots show. */
    public static final String PLOT_RECORD_SIZE = "00100";
    /** Producer counts on the throughput plots' x axis. */
    public static final List<Integer> PRODUCERS = List.of(1, 4, 16, 64);
    /** Percentiles on the latency plot's x axis. */
    public static final double[] PERCENTILES = { 50, 90, 99, 99.9, 99.99 };
    /** The durability classes, one throughput plot each. */
    public static final List<String> DURABILITIES = List.of("MEMORY", "DIRECT", "DSYNC");

    private PlotMain()
    {
    }

    /**
     * @param args the output directory, then one or more JMH JSON files.
     * @throws IOException when a file cannot be read or written.
     */
    public static void main(final String[] args) throws IOException
    {
        if (args.length < 2)
        {
            System.err.println("usage: PlotMain <output dir> <results.json>...");
            System.exit(2);
        }
        final List<JmhResult> results = new ArrayList<>();
        for (int i = 1; i < args.length; i++)
        {
            results.addAll(JmhResult.read(Paths.get(args[i])));
        }
        for (final Path written : write(Paths.get(args[0]), results))
        {
            System.out.println("wrote " + written);
        }
    }

    /**
     * Writes the plots and the table.
     *
     * @param dir     the output directory.
     * @param results the results, later ones replacing earlier ones with the same key.
     * @return the files written.
     * @throws IOException when a file cannot be written.
     */
    public static List<Path> write(final Path dir, final List<JmhResult> results) throws IOException
    {
        Files.createDirectories(dir);
        final List<JmhResult> unique = dedupe(results);
        final List<Path> written = new ArrayList<>();
        for (final String durability : DURABILITIES)
        {
            final LineChart chart = throughputChart(unique, durability);
            if (!chart.isEmpty())
            {
                written.add(writeFile(dir.resolve("throughput-" + durability.toLowerCase(Locale.ROOT) + ".svg"),
                    chart.toSvg()));
            }
        }
        final LineChart latency = latencyChart(unique);
        if (!latency.isEmpty())
        {
            written.add(writeFile(dir.resolve("latency.svg"), latency.toSvg()));
        }
        final LineChart reads = readLatencyChart(unique);
        if (!reads.isEmpty())
        {
            written.add(writeFile(dir.resolve("read-latency.svg"), reads.toSvg()));
        }
        written.add(writeFile(dir.resolve("results.md"), ResultsTable.markdown(unique)));
        return written;
    }

    /**
     * Where a throughput result belongs: the durability class of its promise and its line's label.
     * MEMORY: acknowledged before any write to the device (engine MEMORY, RocksDB sync=false, Chronicle without
     * msync). DIRECT: written to the device, its volatile cache not flushed (engine DIRECT, raw O_DIRECT).
     * DSYNC: written and flushed (engine DSYNC, RocksDB sync=true, FileChannel and mmap with force, Chronicle
     * with msync, raw O_DIRECT|O_DSYNC).
     *
     * @param r a result.
     * @return {durability, label, "ref" or ""}, or null when it is on no throughput plot.
     */
    static String[] classify(final JmhResult r)
    {
        switch (r.suite())
        {
            case "EngineAppendBenchmark":
                return new String[] { r.param("durability"), "DirectLog (callback API)", "" };
            case "EngineAppendFutureBenchmark":
                return new String[] { r.param("durability"), "DirectLog (CompletableFuture API)", "" };
            case "RocksDbWalBenchmark":
                return "true".equals(r.param("sync")) ?
                    new String[] { "DSYNC", "RocksDB WAL sync=true", "" } :
                    new String[] { "MEMORY", "RocksDB WAL sync=false", "" };
            case "ChronicleQueueBenchmark":
                return "true".equals(r.param("sync")) ?
                    new String[] { "DSYNC", "Chronicle Queue + msync", "" } :
                    new String[] { "MEMORY", "Chronicle Queue (no sync)", "" };
            case "FileChannelAppendBenchmark":
                return new String[] { "DSYNC", "FileChannel + force(false)", "" };
            case "MappedBufferAppendBenchmark":
                return new String[] { "DSYNC", "MappedByteBuffer + force", "" };
            case "RawOverwriteBenchmark":
                final String via = "jdk".equals(r.param("impl")) ? " (JDK)" : "";
                return "DSYNC".equals(r.param("sync")) ?
                    new String[] { "DSYNC", "raw O_DIRECT|O_DSYNC 4 KiB" + via, "ref" } :
                    new String[] { "DIRECT", "raw O_DIRECT 4 KiB" + via, "ref" };
            default:
                return null;
        }
    }

    static LineChart throughputChart(final List<JmhResult> results, final String durability)
    {
        final Map<String, double[]> lines = new LinkedHashMap<>();
        final Map<String, Boolean> reference = new LinkedHashMap<>();
        for (final JmhResult r : results)
        {
            final String[] c = classify(r);
            final String size = r.param("recordSize");
            if (c == null || !"thrpt".equals(r.mode()) || !durability.equals(c[0]) ||
                (size != null && !PLOT_RECORD_SIZE.equals(size)) || !PRODUCERS.contains(r.threads()))
            {
                continue;
            }
            final double[] values = lines.computeIfAbsent(c[1], k -> nans(PRODUCERS.size()));
            values[PRODUCERS.indexOf(r.threads())] = r.opsPerSecond();
            reference.put(c[1], !c[2].isEmpty());
        }
        final List<String> categories = new ArrayList<>();
        PRODUCERS.forEach(p -> categories.add(String.valueOf(p)));
        final LineChart chart = new LineChart("Durable appends, " + durability + " class, 100 B records " +
            "(raw device: 4 KiB)", "producers (threads)", "appends per second (log scale)", categories);
        lines.forEach((label, values) -> chart.series(label, reference.get(label), values));
        return chart;
    }

    static LineChart latencyChart(final List<JmhResult> results)
    {
        final Map<String, double[]> lines = new TreeMap<>();
        final Map<String, Boolean> reference = new TreeMap<>();
        for (final JmhResult r : results)
        {
            final String size = r.param("recordSize");
            if (!"sample".equals(r.mode()) || r.threads() != 1 || (size != null && !PLOT_RECORD_SIZE.equals(size)))
            {
                continue;
            }
            final String label = latencyLabel(r);
            if (label == null)
            {
                continue;
            }
            final double[] values = new double[PERCENTILES.length];
            for (int i = 0; i < PERCENTILES.length; i++)
            {
                values[i] = r.percentileMicros(PERCENTILES[i]);
            }
            lines.put(label, values);
            reference.put(label, "RawOverwriteBenchmark".equals(r.suite()));
        }
        final List<String> categories = percentileCategories();
        final LineChart chart = new LineChart("Append latency, one producer, 100 B records (raw device: 4 KiB)",
            "percentile", "microseconds (log scale)", categories);
        lines.forEach((label, values) -> chart.series(label, reference.get(label), values));
        return chart;
    }

    static LineChart readLatencyChart(final List<JmhResult> results)
    {
        final Map<String, double[]> lines = new TreeMap<>();
        for (final JmhResult r : results)
        {
            if (!"sample".equals(r.mode()) || r.threads() != 1)
            {
                continue;
            }
            final String label;
            switch (r.suite())
            {
                case "EngineRandomReadBenchmark":
                    label = "DirectLog read(offset), " + r.param("residency");
                    break;
                case "RocksDbReadBenchmark":
                    label = "RocksDB get, cached";
                    break;
                case "ChronicleReadBenchmark":
                    label = "Chronicle moveToIndex + read, cached";
                    break;
                default:
                    continue;
            }
            final double[] values = new double[PERCENTILES.length];
            for (int i = 0; i < PERCENTILES.length; i++)
            {
                values[i] = r.percentileMicros(PERCENTILES[i]);
            }
            lines.put(label, values);
        }
        final LineChart chart = new LineChart("Random point reads of 1 KiB records, one thread", "percentile",
            "microseconds (log scale)", percentileCategories());
        lines.forEach((label, values) -> chart.series(label, false, values));
        return chart;
    }

    private static List<String> percentileCategories()
    {
        final List<String> categories = new ArrayList<>();
        for (final double p : PERCENTILES)
        {
            categories.add("p" + (p == Math.rint(p) ? String.valueOf((long)p) : String.valueOf(p)));
        }
        return categories;
    }

    private static String latencyLabel(final JmhResult r)
    {
        switch (r.suite())
        {
            case "EngineAppendBenchmark":
                return "DirectLog " + r.param("durability");
            case "RocksDbWalBenchmark":
                return "RocksDB WAL sync=" + r.param("sync");
            case "RawOverwriteBenchmark":
                final String via = "jdk".equals(r.param("impl")) ? " (JDK)" : "";
                return ("DSYNC".equals(r.param("sync")) ? "raw O_DIRECT|O_DSYNC 4 KiB" : "raw O_DIRECT 4 KiB") + via;
            default:
                return null;
        }
    }

    static List<JmhResult> dedupe(final List<JmhResult> results)
    {
        final Map<String, JmhResult> byKey = new LinkedHashMap<>();
        for (final JmhResult r : results)
        {
            final String key = r.benchmark() + ' ' + r.mode() + ' ' + r.threads() + ' ' + r.params();
            byKey.remove(key);
            byKey.put(key, r);
        }
        return new ArrayList<>(byKey.values());
    }

    private static double[] nans(final int n)
    {
        final double[] values = new double[n];
        Arrays.fill(values, Double.NaN);
        return values;
    }

    private static Path writeFile(final Path file, final String content) throws IOException
    {
        return Files.writeString(file, content);
    }
}
