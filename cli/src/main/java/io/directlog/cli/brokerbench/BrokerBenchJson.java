package io.directlog.cli.brokerbench;

import static io.directlog.cli.JsonText.number;
import static io.directlog.cli.JsonText.string;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The --json output: one JSON object per row and line with {@code system, scenario, measure, partitions, producers,
 * recordBytes, msgsPerSec, mbPerSec, p50Ms, p99Ms, p999Ms, p9999Ms, brokerCpuSecPerGb, loadGenCpuSecPerGb}, and
 * {@code verdict} and {@code note} when the row has them. Numbers that do not apply are null. A row with latencies
 * also has {@code percentilesMs} (milliseconds by percentile, {@code {"50":..,"75":..,...,"99.99":..}}) and
 * {@code histogramUs} (the whole HdrHistogram of microseconds, compressed, Base64: decode with
 * {@code Histogram.decodeFromCompressedByteBuffer}).
 * <p>
 * {@link #read} takes it back, and also the older format without {@code p9999Ms}, {@code percentilesMs} and
 * {@code histogramUs}: its curve is p50, p99 and p99.9.
 * <p>
 * Stateless; thread-safe.
 */
final class BrokerBenchJson
{
    private BrokerBenchJson()
    {
    }

    static void write(final Path file, final List<BrokerBenchRow> rows) throws IOException
    {
        final StringBuilder sb = new StringBuilder();
        for (final BrokerBenchRow row : rows)
        {
            sb.append(line(row, rows)).append('\n');
        }
        final Path parent = file.toAbsolutePath().getParent();
        if (parent != null)
        {
            Files.createDirectories(parent);
        }
        Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
    }

    static String line(final BrokerBenchRow row, final List<BrokerBenchRow> rows)
    {
        final StringBuilder sb = new StringBuilder(320).append('{');
        sb.append("\"system\":").append(string(row.system()));
        sb.append(",\"scenario\":").append(string(row.scenario()));
        sb.append(",\"measure\":").append(string(row.measure()));
        sb.append(",\"partitions\":").append(row.partitions());
        sb.append(",\"producers\":").append(row.producers());
        sb.append(",\"recordBytes\":").append(row.recordBytes());
        sb.append(",\"msgsPerSec\":").append(number(row.msgsPerSec(), 1));
        sb.append(",\"mbPerSec\":").append(number(row.mbPerSec(), 3));
        sb.append(",\"p50Ms\":").append(number(row.p50Ms(), 3));
        sb.append(",\"p99Ms\":").append(number(row.p99Ms(), 3));
        sb.append(",\"p999Ms\":").append(number(row.p999Ms(), 3));
        sb.append(",\"p9999Ms\":").append(number(row.p9999Ms(), 3));
        sb.append(",\"brokerCpuSecPerGb\":").append(number(row.brokerCpuSecPerGb(), 3));
        sb.append(",\"loadGenCpuSecPerGb\":").append(number(row.loadGenCpuSecPerGb(), 3));
        final String verdict = BrokerTargets.verdict(row, rows);
        if (!verdict.isEmpty())
        {
            sb.append(",\"verdict\":").append(string(verdict));
        }
        if (row.note() != null)
        {
            sb.append(",\"note\":").append(string(row.note()));
        }
        if (!row.latency().isEmpty())
        {
            sb.append(",\"percentilesMs\":{");
            final String[] sep = {""};
            row.latency().msByPercentile().forEach((p, ms) ->
            {
                sb.append(sep[0]).append(string(number(p, 3))).append(':').append(number(ms, 3));
                sep[0] = ",";
            });
            sb.append('}');
        }
        if (row.latency().histogram() != null)
        {
            sb.append(",\"histogramUs\":").append(string(row.latency().histogram()));
        }
        return sb.append('}').toString();
    }

    /**
     * @param file JSON lines written by {@link #write}, of this format or the older one.
     * @return the rows, in file order (verdicts are not read: they follow from the rows).
     * @throws IOException              when the file cannot be read.
     * @throws IllegalArgumentException when a line is not a row, naming the line.
     */
    static List<BrokerBenchRow> read(final Path file) throws IOException
    {
        final List<BrokerBenchRow> rows = new ArrayList<>();
        final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++)
        {
            if (lines.get(i).isBlank())
            {
                continue;
            }
            try
            {
                rows.add(row(lines.get(i)));
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException(file + " line " + (i + 1) + ": " + ex.getMessage(), ex);
            }
        }
        return rows;
    }

    static BrokerBenchRow row(final String line)
    {
        if (!(JsonLineParser.parse(line) instanceof Map<?, ?> o))
        {
            throw new IllegalArgumentException("not a JSON object");
        }
        final Map<Double, Double> points = new TreeMap<>();
        if (o.get("percentilesMs") instanceof Map<?, ?> curve)
        {
            curve.forEach((p, ms) -> points.put(Double.valueOf((String)p), ms instanceof Double d ? d : Double.NaN));
        }
        else
        {
            points.put(50.0, num(o, "p50Ms"));
            points.put(99.0, num(o, "p99Ms"));
            points.put(99.9, num(o, "p999Ms"));
            points.put(99.99, num(o, "p9999Ms"));
        }
        final LatencyCurve latency = LatencyCurve.ofPoints(points);
        final String histogram = o.get("histogramUs") instanceof String h ? h : null;
        return new BrokerBenchRow(text(o, "system"), text(o, "scenario"), text(o, "measure"),
            (int)num(o, "partitions"), (int)num(o, "producers"), (int)num(o, "recordBytes"), num(o, "msgsPerSec"),
            num(o, "mbPerSec"), num(o, "p50Ms"), num(o, "p99Ms"), num(o, "p999Ms"), num(o, "brokerCpuSecPerGb"),
            num(o, "loadGenCpuSecPerGb"), o.get("note") instanceof String n ? n : null,
            histogram == null ? latency : new LatencyCurve(latency.msByPercentile(), histogram));
    }

    private static String text(final Map<?, ?> o, final String name)
    {
        if (!(o.get(name) instanceof String s))
        {
            throw new IllegalArgumentException("\"" + name + "\" is missing or not a string");
        }
        return s;
    }

    /** @return the number, or NaN when it is null or absent (integers absent read as 0 through the cast). */
    private static double num(final Map<?, ?> o, final String name)
    {
        final Object v = o.get(name);
        if (v == null)
        {
            return Double.NaN;
        }
        if (!(v instanceof Double d))
        {
            throw new IllegalArgumentException("\"" + name + "\" is not a number: " + v);
        }
        return d;
    }
}
