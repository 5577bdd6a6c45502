package io.directlog.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One JMH result (one benchmark, mode, thread count and parameter combination) as read from {@code -rf json}.
 * Immutable, so thread-safe.
 *
 * @param benchmark   the fully qualified method, e.g. {@code io.directlog.benchmarks.peers.RocksDbWalBenchmark.producers01}.
 * @param mode        JMH's short mode name: {@code thrpt}, {@code sample}, {@code avgt}, {@code ss}.
 * @param threads     the thread count (producers).
 * @param params      the {@code @Param} values, empty when none.
 * @param score       the primary score.
 * @param scoreError  its 99.9% half-interval, NaN when JMH had too few samples.
 * @param scoreUnit   e.g. {@code ops/s} or {@code s/op}.
 * @param percentiles for sample mode: percentile (0-100) to value, in {@code scoreUnit}.
 * @param secondary   secondary metrics by name ({@code gc.alloc.rate.norm}, aux counters).
 * @param jdkVersion  the JDK the fork ran on.
 */
public record JmhResult(String benchmark, String mode, int threads, Map<String, String> params, double score,
    double scoreError, String scoreUnit, Map<Double, Double> percentiles, Map<String, Metric> secondary,
    String jdkVersion)
{
    /**
     * A secondary metric.
     *
     * @param score the score.
     * @param unit  its unit.
     */
    public record Metric(double score, String unit)
    {
    }

    /**
     * Reads a JMH JSON result file.
     *
     * @param file the file.
     * @return its results in file order.
     * @throws IOException when it cannot be read.
     */
    public static List<JmhResult> read(final Path file) throws IOException
    {
        return parse(Files.readString(file));
    }

    /**
     * @param json the text of a JMH JSON result file (an array of results).
     * @return its results in order.
     * @throws IllegalArgumentException when it is not JMH JSON.
     */
    public static List<JmhResult> parse(final String json)
    {
        final Object root = Json.parse(json);
        if (!(root instanceof List))
        {
            throw new IllegalArgumentException("JMH JSON is an array of results, found " + describe(root));
        }
        final List<JmhResult> results = new ArrayList<>();
        for (final Object item : (List<?>)root)
        {
            results.add(of(asMap(item, "result")));
        }
        return results;
    }

    private static JmhResult of(final Map<String, Object> r)
    {
        final Map<String, String> params = new TreeMap<>();
        if (r.get("params") != null)
        {
            asMap(r.get("params"), "params").forEach((k, v) -> params.put(k, String.valueOf(v)));
        }
        final Map<String, Object> primary = asMap(r.get("primaryMetric"), "primaryMetric");
        final Map<Double, Double> percentiles = new TreeMap<>();
        if (primary.get("scorePercentiles") != null)
        {
            asMap(primary.get("scorePercentiles"), "scorePercentiles")
                .forEach((k, v) -> percentiles.put(Double.parseDouble(k), Json.number(v)));
        }
        final Map<String, Metric> secondary = new LinkedHashMap<>();
        if (r.get("secondaryMetrics") != null)
        {
            asMap(r.get("secondaryMetrics"), "secondaryMetrics").forEach((k, v) ->
            {
                final Map<String, Object> m = asMap(v, k);
                secondary.put(k, new Metric(Json.number(m.get("score")), String.valueOf(m.get("scoreUnit"))));
            });
        }
        return new JmhResult(String.valueOf(r.get("benchmark")), String.valueOf(r.get("mode")),
            (int)Json.number(r.get("threads")), Collections.unmodifiableMap(params), Json.number(primary.get("score")),
            Json.number(primary.get("scoreError")), String.valueOf(primary.get("scoreUnit")),
            Collections.unmodifiableMap(percentiles), Collections.unmodifiableMap(secondary),
            r.get("jdkVersion") == null ? "" : String.valueOf(r.get("jdkVersion")));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(final Object value, final String what)
    {
        if (!(value instanceof Map))
        {
            throw new IllegalArgumentException("JMH JSON: " + what + " should be an object, found " + describe(value));
        }
        return (Map<String, Object>)value;
    }

    private static String describe(final Object value)
    {
        return value == null ? "null" : value.getClass().getSimpleName();
    }

    /** @return the benchmark class's simple name, e.g. {@code RocksDbWalBenchmark}. */
    public String suite()
    {
        final int method = benchmark.lastIndexOf('.');
        final String type = benchmark.substring(0, method);
        return type.substring(type.lastIndexOf('.') + 1);
    }

    /** @return the method name, e.g. {@code producers01}. */
    public String method()
    {
        return benchmark.substring(benchmark.lastIndexOf('.') + 1);
    }

    /**
     * @param name a parameter.
     * @return its value, or null.
     */
    public String param(final String name)
    {
        return params.get(name);
    }

    /** @return the score as operations per second (thrpt mode), NaN for other modes. */
    public double opsPerSecond()
    {
        if (!scoreUnit.startsWith("ops/"))
        {
            return Double.NaN;
        }
        return score / secondsPer(scoreUnit.substring(4));
    }

    /**
     * @param percentile 0 to 100, e.g. 99.9.
     * @return that percentile in microseconds (sample mode), NaN when absent.
     */
    public double percentileMicros(final double percentile)
    {
        final Double value = percentiles.get(percentile);
        if (value == null || !scoreUnit.endsWith("/op"))
        {
            return Double.NaN;
        }
        return value * secondsPer(scoreUnit.substring(0, scoreUnit.length() - 3)) * 1e6;
    }

    /**
     * @param metric a secondary metric whose unit is per second (an aux counter such as {@code records}).
     * @return its rate per second, NaN when absent.
     */
    public double secondaryPerSecond(final String metric)
    {
        final Metric m = secondary.get(metric);
        if (m == null || !m.unit().startsWith("ops/"))
        {
            return Double.NaN;
        }
        return m.score() / secondsPer(m.unit().substring(4));
    }

    /** @return {@code gc.alloc.rate.norm} in bytes per operation, NaN without {@code -prof gc}. */
    public double allocBytesPerOp()
    {
        final Metric m = secondary.get("gc.alloc.rate.norm");
        return m == null ? Double.NaN : m.score();
    }

    private static double secondsPer(final String unit)
    {
        switch (unit)
        {
            case "s":
                return 1;
            case "ms":
                return 1e-3;
            case "us":
                return 1e-6;
            case "ns":
                return 1e-9;
            case "min":
                return 60;
            default:
                throw new IllegalArgumentException("unknown time unit " + unit);
        }
    }
}
