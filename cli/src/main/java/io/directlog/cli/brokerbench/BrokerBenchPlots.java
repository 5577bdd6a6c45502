package io.directlog.cli.brokerbench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pictures of a run (issue 21's docs), from its rows or from its JSON: a bar chart of MB/s per system for each
 * throughput figure ({@code throughput-max-throughput.svg}, {@code throughput-replicated.svg},
 * {@code throughput-catch-up-read.svg}), and latency-by-percentile curves per system for each latency figure
 * measured under an open loop ({@code latency-fixed-rate-publish.svg}, {@code latency-fixed-rate-e2e.svg},
 * {@code latency-replicated-publish.svg}, ...). Closed-loop latencies (max-throughput, replicated throughput) are
 * queueing in the client, not the broker's latency, so they get no curve. Failed rows are "failed" bars and no curve.
 * <p>
 * Stateless; thread-safe.
 */
final class BrokerBenchPlots
{
    private BrokerBenchPlots()
    {
    }

    /**
     * Writes every picture the rows allow into {@code dir} (created if needed), replacing files of the same name.
     *
     * @param dir  the directory.
     * @param rows a run's rows.
     * @return the files written, in order.
     * @throws IOException when a file cannot be written.
     */
    static List<Path> write(final Path dir, final List<BrokerBenchRow> rows) throws IOException
    {
        Files.createDirectories(dir);
        final List<Path> written = new ArrayList<>();
        for (final Map.Entry<String, String> e : render(rows).entrySet())
        {
            final Path file = dir.resolve(e.getKey());
            Files.writeString(file, e.getValue(), StandardCharsets.UTF_8);
            written.add(file);
        }
        return written;
    }

    /**
     * @param rows a run's rows.
     * @return file name to SVG document, throughput pictures first, each group in the order of the rows.
     */
    static Map<String, String> render(final List<BrokerBenchRow> rows)
    {
        final Map<String, List<BrokerBenchRow>> byFigure = new LinkedHashMap<>();
        for (final BrokerBenchRow row : rows)
        {
            byFigure.computeIfAbsent(row.scenario() + "/" + row.measure(), k -> new ArrayList<>()).add(row);
        }
        final Map<String, String> out = new LinkedHashMap<>();
        byFigure.forEach((figure, group) ->
        {
            final BrokerBenchRow first = group.get(0);
            if (BrokerTargets.isThroughput(first))
            {
                out.put(throughputName(first), ThroughputChart.render(first.scenario() + ": " +
                    ("read".equals(first.measure()) ? "backlog read" : "throughput") + " per system",
                    describe(first), "MB/s", group.stream()
                        .map(r -> new ThroughputChart.Bar(r.system(), r.mbPerSec())).toList()));
            }
        });
        byFigure.forEach((figure, group) ->
        {
            final BrokerBenchRow first = group.get(0);
            final List<LatencyChart.Series> series = group.stream().filter(r -> !r.latency().isEmpty())
                .map(r -> new LatencyChart.Series(r.system(), r.latency().msByPercentile())).toList();
            if (!BrokerTargets.isThroughput(first) && !series.isEmpty())
            {
                out.put("latency-" + first.scenario() + "-" + first.measure() + ".svg", LatencyChart.render(
                    first.scenario() + ": " + what(first.measure()) + " latency by percentile", describe(first),
                    series));
            }
        });
        return out;
    }

    private static String throughputName(final BrokerBenchRow row)
    {
        final boolean headline = "publish".equals(row.measure()) || "throughput".equals(row.measure());
        return "throughput-" + row.scenario() + (headline ? "" : "-" + row.measure()) + ".svg";
    }

    private static String what(final String measure)
    {
        return switch (measure)
        {
            case "publish" -> "publish (send to ack)";
            case "e2e" -> "end-to-end (send to poll)";
            case "publish-during-read" -> "publish during the backlog read";
            default -> measure;
        };
    }

    /** @return the subtitle: the load shape, and the open-loop rate where the first row's note names one. */
    private static String describe(final BrokerBenchRow row)
    {
        final StringBuilder sb = new StringBuilder();
        sb.append(row.recordBytes() >= 1024 && row.recordBytes() % 1024 == 0 ? row.recordBytes() / 1024 + " KiB" :
            row.recordBytes() + " B").append(" records, ").append(row.partitions()).append(" partitions, ")
            .append(row.producers()).append(" producers, acks=all");
        final String note = row.note();
        if (note != null && note.startsWith("open loop"))
        {
            int end = note.length();
            for (final String stop : new String[] {" (", ";"})
            {
                final int at = note.indexOf(stop);
                end = at < 0 ? end : Math.min(end, at);
            }
            sb.append(", ").append(note, 0, end);
        }
        return sb.toString();
    }
}
