package io.directlog.benchmarks.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class PlotMainTest
{
    @TempDir
    Path dir;

    private static String result(final String benchmark, final String mode, final int threads, final String params,
        final String primary)
    {
        return "{\"benchmark\":\"io.directlog.benchmarks." + benchmark + "\",\"mode\":\"" + mode +
            "\",\"threads\":" + threads + ",\"params\":{" + params + "},\"primaryMetric\":{" + primary +
            "},\"secondaryMetrics\":{}}";
    }

    private static final String PERCENTILES = "\"score\":1.0E-4,\"scoreError\":\"NaN\",\"scoreUnit\":\"s/op\"," +
        "\"scorePercentiles\":{\"50.0\":5.0E-5,\"90.0\":6.0E-5,\"99.0\":1.0E-4,\"99.9\":2.0E-4,\"99.99\":9.0E-4}";

    private static List<JmhResult> sample()
    {
        final List<String> items = new ArrayList<>();
        for (final int t : new int[] { 1, 16 })
        {
            final String m = String.format("producers%02d", t);
            items.add(result("peers.RocksDbWalBenchmark." + m, "thrpt", t, "\"sync\":\"true\",\"recordSize\":\"00100\"",
                "\"score\":" + (6000 * t) + ",\"scoreError\":10,\"scoreUnit\":\"ops/s\""));
            items.add(result("peers.RocksDbWalBenchmark." + m, "thrpt", t, "\"sync\":\"false\",\"recordSize\":\"00100\"",
                "\"score\":" + (400000 * t) + ",\"scoreError\":10,\"scoreUnit\":\"ops/s\""));
            items.add(result("peers.FileChannelAppendBenchmark." + m, "thrpt", t, "\"recordSize\":\"00100\"",
                "\"score\":800,\"scoreError\":10,\"scoreUnit\":\"ops/s\""));
            items.add(result("raw.RawOverwriteBenchmark." + m, "thrpt", t, "\"impl\":\"nativeio\",\"sync\":\"DSYNC\"",
                "\"score\":10000,\"scoreError\":10,\"scoreUnit\":\"ops/s\""));
            items.add(result("raw.RawOverwriteBenchmark." + m, "thrpt", t, "\"impl\":\"nativeio\",\"sync\":\"DIRECT\"",
                "\"score\":20000,\"scoreError\":10,\"scoreUnit\":\"ops/s\""));
            // another record size: in the table, not on the plots
            items.add(result("peers.FileChannelAppendBenchmark." + m, "thrpt", t, "\"recordSize\":\"16384\"",
                "\"score\":300,\"scoreError\":10,\"scoreUnit\":\"ops/s\""));
        }
        items.add(result("raw.RawOverwriteBenchmark.producers01", "sample", 1,
            "\"impl\":\"nativeio\",\"sync\":\"DSYNC\"", PERCENTILES));
        items.add(result("peers.RocksDbWalBenchmark.producers01", "sample", 1,
            "\"sync\":\"true\",\"recordSize\":\"00100\"", PERCENTILES));
        items.add(result("peers.RocksDbReadBenchmark.pointRead", "sample", 1, "", PERCENTILES));
        items.add(result("log.EngineRandomReadBenchmark.pointRead", "sample", 1, "\"residency\":\"cold\"",
            PERCENTILES));
        return JmhResult.parse("[" + String.join(",", items) + "]");
    }

    private static Document xml(final Path file) throws Exception
    {
        final DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        return f.newDocumentBuilder().parse(file.toFile());
    }

    private static List<String> series(final Document svg)
    {
        final List<String> labels = new ArrayList<>();
        final NodeList groups = svg.getElementsByTagNameNS("http://www.w3.org/2000/svg", "g");
        for (int i = 0; i < groups.getLength(); i++)
        {
            final Element g = (Element)groups.item(i);
            if ("series".equals(g.getAttribute("class")))
            {
                labels.add(g.getAttribute("data-series"));
                assertEquals(1, g.getElementsByTagNameNS("http://www.w3.org/2000/svg", "polyline").getLength());
            }
        }
        return labels;
    }

    @Test
    void throughputPlotsAreWellFormedSvgWithOneSeriesPerPeer() throws Exception
    {
        PlotMain.write(dir, sample());
        final Document dsync = xml(dir.resolve("throughput-dsync.svg"));
        assertEquals("svg", dsync.getDocumentElement().getLocalName());
        assertEquals(List.of("RocksDB WAL sync=true", "FileChannel + force(false)", "raw O_DIRECT|O_DSYNC 4 KiB"),
            series(dsync));
        assertEquals(List.of("RocksDB WAL sync=false"), series(xml(dir.resolve("throughput-memory.svg"))));
        assertEquals(List.of("raw O_DIRECT 4 KiB"), series(xml(dir.resolve("throughput-direct.svg"))));
    }

    @Test
    void latencyPlotShowsPercentilesOfOneProducer() throws Exception
    {
        PlotMain.write(dir, sample());
        final Document latency = xml(dir.resolve("latency.svg"));
        assertEquals(List.of("RocksDB WAL sync=true", "raw O_DIRECT|O_DSYNC 4 KiB"), series(latency));
        final String text = Files.readString(dir.resolve("latency.svg"));
        for (final String p : new String[] { "p50", "p90", "p99", "p99.9", "p99.99" })
        {
            assertTrue(text.contains(">" + p + "<"), p);
        }
    }

    @Test
    void readLatencyPlotShowsTheEngineBesideThePeers() throws Exception
    {
        PlotMain.write(dir, sample());
        assertEquals(List.of("DirectLog read(offset), cold", "RocksDB get, cached"),
            series(xml(dir.resolve("read-latency.svg"))));
    }

    @Test
    void tableHasARowPerConfigurationWithDerivedBandwidthAndPercentiles() throws IOException
    {
        PlotMain.write(dir, sample());
        final List<String> rows = Files.readAllLines(dir.resolve("results.md"));
        assertEquals(2 + 14, rows.size(), String.join("\n", rows));
        assertTrue(rows.stream().anyMatch(r -> r.startsWith("| RawOverwriteBenchmark.producers01 | impl=nativeio, " +
            "sync=DSYNC | 1 | 10.0k ± 0% | 39 | 50.0 | 100 | 200 |")), String.join("\n", rows));
    }

    @Test
    void laterResultsReplaceEarlierOnesWithTheSameKey()
    {
        final List<JmhResult> twice = new ArrayList<>(sample());
        twice.addAll(sample());
        assertEquals(sample().size(), PlotMain.dedupe(twice).size());
    }
}
