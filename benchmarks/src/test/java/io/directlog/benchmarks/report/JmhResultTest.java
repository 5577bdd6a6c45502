package io.directlog.benchmarks.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JmhResultTest
{
    /** Shaped like JMH 1.37's -rf json output, trimmed. */
    static final String SAMPLE = "[\n" +
        "  {\n" +
        "    \"jmhVersion\" : \"1.37\",\n" +
        "    \"benchmark\" : \"io.directlog.benchmarks.peers.RocksDbWalBenchmark.producers16\",\n" +
        "    \"mode\" : \"thrpt\",\n" +
        "    \"threads\" : 16,\n" +
        "    \"forks\" : 1,\n" +
        "    \"jdkVersion\" : \"17.0.15\",\n" +
        "    \"jvmArgs\" : [ \"-Xmx2g\", \"--add-opens\" ],\n" +
        "    \"params\" : { \"recordSize\" : \"00100\", \"sync\" : \"true\" },\n" +
        "    \"primaryMetric\" : {\n" +
        "      \"score\" : 12345.5, \"scoreError\" : 123.4,\n" +
        "      \"scoreConfidence\" : [ 12222.1, 12468.9 ],\n" +
        "      \"scorePercentiles\" : { \"0.0\" : 12000.0, \"50.0\" : 12345.0, \"100.0\" : 12500.0 },\n" +
        "      \"scoreUnit\" : \"ops/s\",\n" +
        "      \"rawData\" : [ [ 12000.0, 12345.0, 12500.0 ] ]\n" +
        "    },\n" +
        "    \"secondaryMetrics\" : {\n" +
        "      \"gc.alloc.rate.norm\" : { \"score\" : 48.01, \"scoreError\" : \"NaN\", \"scoreUnit\" : \"B/op\" }\n" +
        "    }\n" +
        "  },\n" +
        "  {\n" +
        "    \"benchmark\" : \"io.directlog.benchmarks.raw.RawOverwriteBenchmark.producers01\",\n" +
        "    \"mode\" : \"sample\", \"threads\" : 1, \"jdkVersion\" : \"17.0.15\",\n" +
        "    \"params\" : { \"impl\" : \"nativeio\", \"sync\" : \"DSYNC\" },\n" +
        "    \"primaryMetric\" : {\n" +
        "      \"score\" : 9.7E-5, \"scoreError\" : \"NaN\",\n" +
        "      \"scorePercentiles\" : { \"50.0\" : 9.6E-5, \"90.0\" : 1.1E-4, \"99.0\" : 2.0E-4, \"99.9\" : 4.0E-4,\n" +
        "        \"99.99\" : 1.0E-3, \"100.0\" : 2.0E-3 },\n" +
        "      \"scoreUnit\" : \"s/op\"\n" +
        "    },\n" +
        "    \"secondaryMetrics\" : { }\n" +
        "  },\n" +
        "  {\n" +
        "    \"benchmark\" : \"io.directlog.benchmarks.log.EngineColdReplayBenchmark.replay\",\n" +
        "    \"mode\" : \"thrpt\", \"threads\" : 1,\n" +
        "    \"primaryMetric\" : { \"score\" : 0.5, \"scoreError\" : \"NaN\", \"scoreUnit\" : \"ops/ms\" },\n" +
        "    \"secondaryMetrics\" : { \"bytes\" : { \"score\" : 524288.0, \"scoreUnit\" : \"ops/ms\" } }\n" +
        "  }\n" +
        "]\n";

    @Test
    void parsesBenchmarkModeThreadsParamsAndScores()
    {
        final JmhResult r = JmhResult.parse(SAMPLE).get(0);
        assertEquals("RocksDbWalBenchmark", r.suite());
        assertEquals("producers16", r.method());
        assertEquals("thrpt", r.mode());
        assertEquals(16, r.threads());
        assertEquals(Map.of("recordSize", "00100", "sync", "true"), r.params());
        assertEquals(12345.5, r.score());
        assertEquals(123.4, r.scoreError());
        assertEquals(12345.5, r.opsPerSecond());
        assertEquals(48.01, r.allocBytesPerOp());
        assertEquals("17.0.15", r.jdkVersion());
    }

    @Test
    void convertsSamplePercentilesToMicroseconds()
    {
        final JmhResult r = JmhResult.parse(SAMPLE).get(1);
        assertEquals(96.0, r.percentileMicros(50), 1e-9);
        assertEquals(400.0, r.percentileMicros(99.9), 1e-9);
        assertEquals(1000.0, r.percentileMicros(99.99), 1e-9);
        assertTrue(Double.isNaN(r.scoreError()));
        assertTrue(Double.isNaN(r.opsPerSecond()));
    }

    @Test
    void readsResultsWithoutParamsAndAuxCountersPerSecond()
    {
        final JmhResult r = JmhResult.parse(SAMPLE).get(2);
        assertEquals(Map.of(), r.params());
        assertEquals(500.0, r.opsPerSecond(), 1e-9);
        assertEquals(524_288_000.0, r.secondaryPerSecond("bytes"), 1e-3);
        assertEquals(500.0, ResultsTable.mib(r), 1e-9);
    }

    @Test
    void jsonReadsEscapesNestingAndLiterals()
    {
        final Object v = Json.parse("{\"a\\\"b\" : [1, -2.5e3, true, false, null, \"\\u00e9\\n\"], \"c\": {}}");
        assertEquals(Map.of("a\"b", java.util.Arrays.asList(1.0, -2500.0, true, false, null, "\u00e9\n"),
            "c", Map.of()), v);
    }

    @Test
    void rejectsMalformedJsonNamingThePosition()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> Json.parse("[1, 2"));
        assertTrue(ex.getMessage().contains("at character"), ex.getMessage());
        assertThrows(IllegalArgumentException.class, () -> JmhResult.parse("{\"not\": \"an array\"}"));
        assertEquals(List.of(), JmhResult.parse("[]"));
    }
}
