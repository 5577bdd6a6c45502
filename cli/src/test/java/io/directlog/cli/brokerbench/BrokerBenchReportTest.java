package io.directlog.cli.brokerbench;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BrokerBenchReportTest
{
    private static BrokerBenchRow row(final String system, final String scenario, final String measure,
        final double mb, final double p99, final double p999, final double cpu)
    {
        return new BrokerBenchRow(system, scenario, measure, 16, 4, 1024, mb * 1e6 / 1024, mb, p99 / 2, p99, p999, cpu,
            1.5, null);
    }

    private static final List<BrokerBenchRow> ROWS = List.of(
        row("kafka", "max-throughput", "publish", 40, 20, 30, 10),
        row("kafka-fsync", "max-throughput", "publish", 16, 40, 60, 12),
        row("directlog", "max-throughput", "publish", 44, 10, 12, 6),
        row("kafka", "fixed-rate", "e2e", 20, 10, 20, Double.NaN),
        row("kafka-fsync", "fixed-rate", "e2e", 8, 30, 50, Double.NaN),
        row("directlog", "fixed-rate", "e2e", 20, 6, 8, Double.NaN),
        row("directlog", "catch-up", "publish", 20, 4, 8, 1),
        row("directlog", "catch-up", "publish-during-read", 20, 8, 9, 1));

    @Test
    void throughputRatioIsMegabytesAndLatencyRatioIsP99()
    {
        assertEquals(1.1, BrokerTargets.ratio(ROWS.get(2), ROWS, "kafka").orElseThrow(), 1e-9);
        assertEquals(2.75, BrokerTargets.ratio(ROWS.get(2), ROWS, "kafka-fsync").orElseThrow(), 1e-9);
        assertEquals(0.6, BrokerTargets.ratio(ROWS.get(5), ROWS, "kafka").orElseThrow(), 1e-9);
        assertTrue(BrokerTargets.ratio(ROWS.get(0), ROWS, "kafka").isEmpty(), "only DirectLog rows get ratios");
    }

    @Test
    void verdictsNameEveryTargetAndWhetherItWasMet()
    {
        assertEquals("MB/s vs kafka 1.10x (>=1.00x) met; MB/s vs kafka-fsync 2.75x (>=2.50x) met; " +
            "cpu/GB vs kafka 0.60x (<=0.70x) met", BrokerTargets.verdict(ROWS.get(2), ROWS));
        assertEquals("p99 vs kafka 0.60x (<=0.50x) MISSED; p99.9 vs kafka p99 0.80x (<=1.00x) met; " +
            "p99 vs kafka-fsync 0.20x (<=0.50x) met; p99.9 vs kafka-fsync p99 0.27x (<=1.00x) met",
            BrokerTargets.verdict(ROWS.get(5), ROWS));
        assertEquals("p99 vs own without read 2.00x (<=1.50x) MISSED", BrokerTargets.verdict(ROWS.get(7), ROWS));
        assertEquals("", BrokerTargets.verdict(ROWS.get(0), ROWS));
    }

    @Test
    void verdictSaysNotApplicableWithoutKafkaRows()
    {
        final List<BrokerBenchRow> only = List.of(ROWS.get(2));
        assertEquals("MB/s vs kafka n/a; MB/s vs kafka-fsync n/a; cpu/GB vs kafka n/a",
            BrokerTargets.verdict(only.get(0), only));
    }

    @Test
    void tableAlignsColumnsAndShowsFailuresInPlaceOfNumbers()
    {
        final List<BrokerBenchRow> rows = List.of(ROWS.get(0), ROWS.get(2),
            BrokerBenchRow.failed("kafka-fsync", "catch-up", "publish", 16, 4, 1024, "broker did not start"));
        final String[] lines = BrokerBenchTable.format(rows).split("\n");
        assertEquals(4, lines.length);
        assertTrue(lines[0].startsWith("system       scenario        measure  parts  prod  msgs/s  MB/s"), lines[0]);
        assertTrue(lines[2].contains("  44.0  ") && lines[2].contains("1.10x") &&
            lines[2].contains("MB/s vs kafka 1.10x (>=1.00x) met"), lines[2]);
        assertTrue(lines[3].endsWith("failed: broker did not start"), lines[3]);
        assertEquals("0.412", BrokerBenchTable.millis(0.4123));
        assertEquals("1,234", BrokerBenchTable.millis(1234.4));
        assertEquals("-", BrokerBenchTable.millis(Double.NaN));
    }

    @Test
    void jsonLineHasTheIssuesFieldsAndNullForMissingNumbers()
    {
        assertEquals("{\"system\":\"kafka\",\"scenario\":\"fixed-rate\",\"measure\":\"e2e\",\"partitions\":16," +
            "\"producers\":4,\"recordBytes\":1024,\"msgsPerSec\":19531.3,\"mbPerSec\":20,\"p50Ms\":5,\"p99Ms\":10," +
            "\"p999Ms\":20,\"p9999Ms\":null,\"brokerCpuSecPerGb\":null,\"loadGenCpuSecPerGb\":1.5}",
            BrokerBenchJson.line(ROWS.get(3), ROWS));
        assertTrue(BrokerBenchJson.line(ROWS.get(2), ROWS).contains(",\"verdict\":\"MB/s vs kafka 1.10x"));
        assertEquals("\"a\\\"b\\n\"", io.directlog.cli.JsonText.string("a\"b\n"));
    }

    @Test
    void replicatedRowsAreComparedWithKafkaRf3()
    {
        final List<BrokerBenchRow> rows = List.of(
            row("kafka-rf3", "replicated", "throughput", 30, 900, 1000, 40),
            row("kafka-rf3", "replicated", "publish", 15, 40, 60, 40),
            row("directlog-rf3", "replicated", "throughput", 36, 700, 800, 20),
            row("directlog-rf3", "replicated", "publish", 15, 24, 30, 20));
        assertEquals("MB/s vs kafka-rf3 1.20x (>=1.00x) met", BrokerTargets.verdict(rows.get(2), rows));
        assertEquals("p99 vs kafka-rf3 0.60x (<=0.50x) MISSED", BrokerTargets.verdict(rows.get(3), rows));
        assertEquals("", BrokerTargets.verdict(rows.get(0), rows), "Kafka's rows have no targets");
        final String[] lines = BrokerBenchTable.format(rows).split("\n");
        assertTrue(lines[3].contains("  1.20x  ") && lines[3].contains("MB/s vs kafka-rf3 1.20x"), lines[3]);
        assertTrue(lines[4].contains("  0.60x  "), lines[4]);
    }

    @Test
    void replicatedRunsOnTheThreeNodeSystemsOnlyAndTheOthersOnTheSingleBrokers() throws Exception
    {
        final BrokerBenchOptions replicated = BrokerBenchOptions.parse(new String[] {"--quick", "--only",
            "replicated"});
        assertEquals(List.of("kafka", "kafka-fsync", "directlog", "kafka-rf3", "directlog-rf3"),
            replicated.systems());
        assertEquals(List.of(), replicated.scenariosFor("kafka"));
        assertEquals(List.of("replicated"), replicated.scenariosFor("directlog-rf3"));
        final BrokerBenchOptions all = BrokerBenchOptions.parse(new String[] {"--only", "fixed-rate,replicated"});
        assertEquals(List.of("max-throughput", "fixed-rate"), all.scenariosFor("kafka"), "rate from kafka's max");
        assertEquals(List.of("fixed-rate"), all.scenariosFor("directlog"));
        assertEquals(List.of("replicated"), all.scenariosFor("kafka-rf3"));
        final io.directlog.cli.UsageException nothing = assertThrows(io.directlog.cli.UsageException.class,
            () -> BrokerBenchOptions.parse(new String[] {"--systems", "directlog", "--only", "replicated"}));
        assertTrue(nothing.getMessage().startsWith("nothing to run"), nothing.getMessage());
        final BrokerBenchOptions from = BrokerBenchOptions.parse(new String[] {"--from", "x.json", "--plot", "d"});
        assertEquals(java.nio.file.Path.of("x.json"), from.from());
        assertEquals(java.nio.file.Path.of("d"), from.plotDir());
    }

    @Test
    void optionsKeepCanonicalOrderAndRejectUnknownNames() throws Exception
    {
        final BrokerBenchOptions o = BrokerBenchOptions.parse(new String[] {"--quick", "--only",
            "catch-up,max-throughput", "--systems=directlog,kafka", "--json", "x.json"});
        assertEquals(List.of("max-throughput", "catch-up"), o.scenarios());
        assertEquals(List.of("kafka", "directlog"), o.systems());
        assertEquals(64L << 20, o.backlogBytes());
        final BrokerBenchOptions big = BrokerBenchOptions.parse(new String[] {"--quick", "--backlog", "1024"});
        assertEquals(1L << 30, big.backlogBytes());
        assertEquals(java.time.Duration.ofSeconds(107), big.readLimit());
        assertThrows(io.directlog.cli.UsageException.class,
            () -> BrokerBenchOptions.parse(new String[] {"--backlog", "0"}));
        assertThrows(io.directlog.cli.UsageException.class,
            () -> BrokerBenchOptions.parse(new String[] {"--only", "nope"}));
        assertThrows(io.directlog.cli.UsageException.class,
            () -> BrokerBenchOptions.parse(new String[] {"--rate", "-3"}));
    }
}
