package io.directlog.cli.brokerbench;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import javax.xml.parsers.DocumentBuilderFactory;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pictures from a known JSON: one line per system, kafka's in the format before p99.99 and the percentile series
 * existed (a line of the 2026-11-26 smoke run), the others as this version writes them.
 */
class BrokerBenchPlotsTest
{
    /** kafka's fixed-rate publish row as the smoke run of 2026-11-26 wrote it: p50, p99, p99.9 only. */
    static final String OLD_KAFKA_FIXED_RATE = "{\"system\":\"kafka\",\"scenario\":\"fixed-rate\",\"measure\":" +
        "\"publish\",\"partitions\":16,\"producers\":4,\"recordBytes\":1024,\"msgsPerSec\":2238.2,\"mbPerSec\":2.292," +
        "\"p50Ms\":70.655,\"p99Ms\":1028.607,\"p999Ms\":1134.591,\"brokerCpuSecPerGb\":194.5," +
        "\"loadGenCpuSecPerGb\":80.1,\"note\":\"open loop 2,361 msgs/s (50% of kafka's max-throughput)\"}";
    static final String OLD_KAFKA_MAX = "{\"system\":\"kafka\",\"scenario\":\"max-throughput\",\"measure\":" +
        "\"publish\",\"partitions\":16,\"producers\":4,\"recordBytes\":1024,\"msgsPerSec\":4721,\"mbPerSec\":4.834," +
        "\"p50Ms\":11903,\"p99Ms\":17498.11,\"p999Ms\":18235,\"brokerCpuSecPerGb\":69.9,\"loadGenCpuSecPerGb\":20}";

    @Test
    void latencyCurvesHaveOneSeriesPerSystemOnSaneAxesAndAnOldRowEndsAtP999(@TempDir final Path dir)
        throws Exception
    {
        final List<BrokerBenchRow> rows = BrokerBenchJson.read(knownJson(dir));
        final Map<String, String> svgs = BrokerBenchPlots.render(rows);
        assertEquals(List.of("throughput-max-throughput.svg", "latency-fixed-rate-publish.svg",
            "latency-fixed-rate-e2e.svg"), List.copyOf(svgs.keySet()));

        final Document doc = parse(svgs.get("latency-fixed-rate-publish.svg"));
        final List<Element> series = elements(doc, "polyline", "series");
        assertEquals(List.of("kafka", "kafka-fsync", "directlog"),
            series.stream().map(e -> e.getAttribute("data-system")).toList());
        assertEquals(List.of("p50", "p90", "p99", "p99.9", "p99.99"), texts(doc, "x-tick"));
        final Map<String, Double> xTick = Map.of("p99.9", tickX(doc, "p99.9"), "p99.99", tickX(doc, "p99.99"));

        final double[][] kafka = points(series.get(0));
        assertEquals(3, kafka.length, "p50, p99, p99.9 of the old format");
        assertEquals(xTick.get("p99.9"), kafka[2][0], 0.05);
        final double[][] directlog = points(series.get(2));
        assertEquals(LatencyCurve.PERCENTILES.size(), directlog.length);
        assertEquals(xTick.get("p99.99"), directlog[directlog.length - 1][0], 0.05);
        assertEquals(Svg.RIGHT, directlog[directlog.length - 1][0], 0.05, "the last percentile is the right edge");

        // y: log ticks ascending upwards, spanning every point; curves never fall as the percentile rises
        final List<Element> yTicks = elements(doc, "text", "y-tick");
        final List<Double> values = yTicks.stream().map(e -> Double.parseDouble(e.getTextContent()
            .replace(",", ""))).toList();
        for (int i = 1; i < values.size(); i++)
        {
            assertTrue(values.get(i) > values.get(i - 1), values::toString);
            assertTrue(y(yTicks.get(i)) < y(yTicks.get(i - 1)), "larger values higher up");
        }
        assertTrue(values.get(0) <= 0.5 && values.get(values.size() - 1) >= 1134.591, values::toString);
        assertEquals(List.of("0.1", "1", "10", "100", "1,000", "10,000"), texts(doc, "y-tick"));
        assertEquals("0.05", LatencyChart.tick(0.05));
        for (final Element s : series)
        {
            final double[][] pts = points(s);
            for (int i = 0; i < pts.length; i++)
            {
                assertTrue(pts[i][0] >= Svg.LEFT - 0.05 && pts[i][0] <= Svg.RIGHT + 0.05, "x inside the plot area");
                assertTrue(pts[i][1] >= Svg.TOP - 0.05 && pts[i][1] <= Svg.BOTTOM + 0.05, "y inside the plot area");
                assertTrue(i == 0 || pts[i][0] > pts[i - 1][0], "percentiles rise left to right");
                assertTrue(i == 0 || pts[i][1] <= pts[i - 1][1], "latency never falls with the percentile");
            }
        }
        assertEquals(3, elements(doc, "g", "legend").size());
    }

    @Test
    void throughputBarsAreProportionalAndAFailedSystemHasNoBar(@TempDir final Path dir) throws Exception
    {
        final List<BrokerBenchRow> rows = new ArrayList<>(BrokerBenchJson.read(knownJson(dir)));
        rows.add(BrokerBenchRow.failed("kafka-fsync", "max-throughput", "publish", 16, 4, 1024,
            "broker did not start"));
        final Document doc = parse(BrokerBenchPlots.render(rows).get("throughput-max-throughput.svg"));
        final List<Element> bars = elements(doc, "rect", "bar");
        assertEquals(List.of("kafka", "directlog"), bars.stream().map(e -> e.getAttribute("data-system")).toList());
        final double kafka = Double.parseDouble(bars.get(0).getAttribute("height"));
        final double directlog = Double.parseDouble(bars.get(1).getAttribute("height"));
        assertEquals(53.6 / 4.834, directlog / kafka, 0.02);
        final List<String> ticks = texts(doc, "y-tick");
        assertEquals("0", ticks.get(0));
        assertTrue(Double.parseDouble(ticks.get(ticks.size() - 1)) >= 53.6, ticks::toString);
        assertTrue(texts(doc, "bar-value").contains("failed"));
        assertEquals(List.of("kafka", "directlog", "kafka-fsync"), texts(doc, "x-tick"));
    }

    @Test
    void writeAndReadKeepTheSeriesAndTheHistogram(@TempDir final Path dir) throws Exception
    {
        final Histogram h = histogram(7, 2.0);
        final BrokerBenchRow row = new BrokerBenchRow("directlog", "fixed-rate", "publish", 16, 4, 1024, 2000, 2.05,
            BrokerPhase.percentileMs(h, 50), BrokerPhase.percentileMs(h, 99), BrokerPhase.percentileMs(h, 99.9), 3, 1,
            "open loop 2,000 msgs/s (rate from --rate)", LatencyCurve.of(h));
        final Path file = dir.resolve("one.json");
        BrokerBenchJson.write(file, List.of(row));
        final String line = Files.readString(file).trim();
        assertTrue(line.contains("\"p9999Ms\":" + JsonTextOf(h.getValueAtPercentile(99.99) / 1000.0)), line);
        assertTrue(line.contains("\"percentilesMs\":{\"50\":"), line);
        final BrokerBenchRow back = BrokerBenchJson.read(file).get(0);
        assertEquals(row.latency().msByPercentile(), back.latency().msByPercentile());
        final Histogram decoded = back.latency().decodeHistogram();
        assertEquals(h.getTotalCount(), decoded.getTotalCount());
        assertEquals(h.getValueAtPercentile(99.99), decoded.getValueAtPercentile(99.99));
        assertEquals(row.p9999Ms(), back.p9999Ms(), 1e-3);

        final BrokerBenchRow old = BrokerBenchJson.row(OLD_KAFKA_FIXED_RATE);
        assertEquals(List.of(50.0, 99.0, 99.9), List.copyOf(old.latency().msByPercentile().keySet()));
        assertTrue(Double.isNaN(old.p9999Ms()));
        assertNull(old.latency().histogram());
        assertEquals("open loop 2,361 msgs/s (50% of kafka's max-throughput)", old.note());
    }

    @Test
    void badJsonIsRefusedNamingTheLineAndThePlace(@TempDir final Path dir) throws Exception
    {
        final Path file = dir.resolve("bad.json");
        Files.writeString(file, OLD_KAFKA_MAX + "\n{\"system\":\"kafka\",\"scenario\":1}\n");
        final IllegalArgumentException notAString = assertThrows(IllegalArgumentException.class,
            () -> BrokerBenchJson.read(file));
        assertTrue(notAString.getMessage().contains("line 2") && notAString.getMessage().contains("\"scenario\""),
            notAString.getMessage());
        final IllegalArgumentException broken = assertThrows(IllegalArgumentException.class,
            () -> JsonLineParser.parse("{\"a\":[1,2}"));
        assertTrue(broken.getMessage().contains("character 10"), broken.getMessage());
        assertEquals(Map.of("a", List.of(1.0, "x\n\u00e9"), "b", false),
            JsonLineParser.parse(" {\"a\":[1e0,\"x\\n\\u00e9\"],\"b\":false} "));
    }

    /** kafka in the old format; kafka-fsync and directlog written by this version, from histograms. */
    private static Path knownJson(final Path dir) throws Exception
    {
        final List<BrokerBenchRow> rows = new ArrayList<>();
        rows.add(row("kafka-fsync", "fixed-rate", "publish", histogram(1, 30)));
        rows.add(row("directlog", "fixed-rate", "publish", histogram(2, 0.5)));
        rows.add(row("kafka-fsync", "fixed-rate", "e2e", histogram(3, 40)));
        rows.add(row("directlog", "fixed-rate", "e2e", histogram(4, 0.7)));
        rows.add(new BrokerBenchRow("directlog", "max-throughput", "publish", 16, 4, 1024, 52_379, 53.6, 2165, 2753,
            2894, 10.8, 2, null, LatencyCurve.of(histogram(5, 2000))));
        final StringBuilder text = new StringBuilder(OLD_KAFKA_MAX).append('\n').append(OLD_KAFKA_FIXED_RATE)
            .append('\n');
        for (final BrokerBenchRow r : rows)
        {
            text.append(BrokerBenchJson.line(r, rows)).append('\n');
        }
        final Path file = dir.resolve("broker.json");
        Files.writeString(file, text.toString());
        return file;
    }

    private static BrokerBenchRow row(final String system, final String scenario, final String measure,
        final Histogram h)
    {
        return new BrokerBenchRow(system, scenario, measure, 16, 4, 1024, 2300, 2.4, BrokerPhase.percentileMs(h, 50),
            BrokerPhase.percentileMs(h, 99), BrokerPhase.percentileMs(h, 99.9), 300, 80,
            "open loop 2,361 msgs/s (50% of kafka's max-throughput)", LatencyCurve.of(h));
    }

    /** 20,000 latencies in microseconds: log-normal around {@code medianMs}, so the tail is long. */
    static Histogram histogram(final long seed, final double medianMs)
    {
        final Random random = new Random(seed);
        final Histogram h = new Histogram(600_000_000L, 3);
        for (int i = 0; i < 20_000; i++)
        {
            h.recordValue(Math.max(1, (long)(medianMs * 1000 * Math.exp(random.nextGaussian() * 0.8))));
        }
        return h;
    }

    private static String JsonTextOf(final double v)
    {
        return io.directlog.cli.JsonText.number(v, 3);
    }

    private static Document parse(final String svg) throws Exception
    {
        final DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<Element> elements(final Document doc, final String tag, final String cls)
    {
        final NodeList all = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", tag);
        final List<Element> out = new ArrayList<>();
        for (int i = 0; i < all.getLength(); i++)
        {
            final Element e = (Element)all.item(i);
            if (cls.equals(e.getAttribute("class")))
            {
                out.add(e);
            }
        }
        return out;
    }

    private static List<String> texts(final Document doc, final String cls)
    {
        return elements(doc, "text", cls).stream().map(Element::getTextContent).toList();
    }

    private static double tickX(final Document doc, final String label)
    {
        return elements(doc, "text", "x-tick").stream().filter(e -> e.getTextContent().equals(label))
            .mapToDouble(e -> Double.parseDouble(e.getAttribute("x"))).findFirst().orElseThrow();
    }

    private static double y(final Element e)
    {
        return Double.parseDouble(e.getAttribute("y"));
    }

    private static double[][] points(final Element polyline)
    {
        final String[] pairs = polyline.getAttribute("points").trim().split(" ");
        final double[][] out = new double[pairs.length][];
        for (int i = 0; i < pairs.length; i++)
        {
            final String[] xy = pairs[i].split(",");
            out[i] = new double[] {Double.parseDouble(xy[0]), Double.parseDouble(xy[1])};
        }
        assertFalse(pairs.length == 0);
        return out;
    }
}
