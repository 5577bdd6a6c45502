package io.directlog.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;

import org.junit.jupiter.api.Test;

class ResultTableTest
{
    static BenchRow row(final String scenario, final int threads, final int bytes, final double ops, final double p50)
    {
        return new BenchRow(scenario, threads, bytes, BenchRow.Status.MEASURED, ops, ops * bytes / 1e6, p50, p50 * 2,
            p50 * 10, null);
    }

    @Test
    void measuredRowsAreAlignedAndRowsWithoutNumbersSayWhy()
    {
        final List<BenchRow> rows = List.of(
            row("raw-direct-4k", 1, 4096, 26_413.2, 26.26),
            new BenchRow("engine-memory", 16, 100, BenchRow.Status.MEASURED, 1_234_567, 123.4567, 3.456, 12.5,
                1234.5, "a note"),
            new BenchRow("engine-direct", 1, 100, BenchRow.Status.UNAVAILABLE, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, Double.NaN, "engine not built yet"),
            new BenchRow("rocksdb-sync", 16, 100, BenchRow.Status.FAILED, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, Double.NaN, "RocksDBException: no space\nsecond line"));

        assertEquals(String.join("\n",
            "scenario       threads  bytes      ops/s   MB/s  p50 us  p99 us  p99.9 us  vs  note",
            "raw-direct-4k        1   4096     26,413  108.2    26.3    52.5     262.6",
            "engine-memory       16    100  1,234,567  123.5    3.46    12.5     1,235      a note",
            "engine-direct        1    100  unavailable: engine not built yet",
            "rocksdb-sync        16    100  failed: RocksDBException: no space",
            ""), ResultTable.format(rows));
    }

    @Test
    void vsColumnComparesRowsOfTheSameRun()
    {
        final BenchRow rawDirect = row("raw-direct-4k", 1, 4096, 20_000, 40);
        final BenchRow engineDirect = row("engine-direct", 1, 100, 18_000, 44);
        final BenchRow rawDsync = row("raw-dsync-4k", 1, 4096, 5_000, 100);
        final BenchRow engineDsync1 = row("engine-dsync", 1, 100, 4_000, 125);
        final BenchRow engineDsync16 = row("engine-dsync", 16, 100, 42_000, 300);
        final BenchRow rocks16 = row("rocksdb-sync", 16, 100, 10_000, 900);
        final BenchRow rawRead = new BenchRow("raw-seq-read-1m", 1, 1 << 20, BenchRow.Status.MEASURED, 700, 700, 1, 1,
            1, null);
        final BenchRow coldRead = new BenchRow("engine-cold-read", 1, 1024, BenchRow.Status.MEASURED, 580_000, 595,
            1, 1, 1, null);
        final List<BenchRow> rows = List.of(rawDirect, rawDsync, rawRead, engineDirect, engineDsync1, engineDsync16,
            coldRead, rocks16);

        assertEquals("1.1x raw (target <=1.2x): met", Comparisons.vs(engineDirect, rows));
        assertEquals("1.3x raw (target <=1.2x): missed", Comparisons.vs(engineDsync1, rows));
        assertEquals("4.2x rocksdb (target >=3.0x): met", Comparisons.vs(engineDsync16, rows));
        assertEquals("85% of raw (target >=80%): met", Comparisons.vs(coldRead, rows));
        assertNull(Comparisons.vs(rawDirect, rows));
        assertEquals("0.041x raw (target <=1.2x): met", Comparisons.vs(row("engine-dsync", 1, 100, 1, 172.5),
            List.of(row("raw-dsync-4k", 1, 4096, 1, 4184))));
        assertEquals("0.85x raw (target <=1.2x): met", Comparisons.vs(row("engine-direct", 1, 100, 1, 34), List.of(row("raw-direct-4k", 1,
            4096, 1, 40))));
        assertNull(Comparisons.vs(engineDirect, List.of(engineDirect)), "no raw row, no ratio");
    }

    @Test
    void apiRowsCarryTheirTargets()
    {
        final List<BenchRow> rows = List.of(row("raw-direct-4k", 1, 4096, 20_000, 40),
            row("raw-dsync-4k", 1, 4096, 5_000, 100), row("rocksdb-sync", 16, 100, 10_000, 900),
            row("rocksdb-sync", 64, 100, 20_000, 3000));

        assertEquals("612,345 ops/s (target >=500,000): met", Comparisons.vs(row("api-memory", 1, 100, 612_345, 1.5),
            rows));
        assertEquals("17,000 ops/s (target >=500,000): missed", Comparisons.vs(row("api-memory", 1, 100, 17_000, 56),
            rows));
        assertNull(Comparisons.vs(row("api-memory", 16, 100, 17_000, 56), rows), "no target at 16 producers");
        assertEquals("1.1x raw (target <=1.2x): met", Comparisons.vs(row("api-direct-1k", 1, 1024, 1, 44), rows));
        assertEquals("2.1x raw (target <=1.2x): missed", Comparisons.vs(row("api-direct-4k", 1, 4096, 1, 84), rows));
        assertEquals("1.0x raw (target <=1.2x): met", Comparisons.vs(row("api-dsync", 1, 100, 1, 100), rows));
        assertEquals("2.5x rocksdb (target >=3.0x): missed", Comparisons.vs(row("api-dsync", 16, 100, 25_000, 1),
            rows));
        assertEquals("5.5x rocksdb (target >=5.0x): met", Comparisons.vs(row("api-dsync", 64, 100, 110_000, 1),
            rows));
    }

    @Test
    void dsyncAtSixtyFourProducersAndTheTailLagRowsCarryTheirTargets()
    {
        final List<BenchRow> rows = List.of(row("rocksdb-sync", 64, 100, 20_000, 3000));

        assertEquals("5.5x rocksdb (target >=5.0x): met", Comparisons.vs(row("engine-dsync", 64, 100, 110_000, 1),
            rows));
        // row() makes p99 twice p50
        assertEquals("61,000 us p99 (target <=100,000): met",
            Comparisons.vs(row("tail-lag-dsync-100k", 1, 100, 100_000, 30_500), rows));
        assertEquals("150,000 us p99 (target <=100,000): missed",
            Comparisons.vs(row("tail-lag-dsync-1m", 1, 100, 1_000_000, 75_000), rows));
        assertNull(Comparisons.vs(row("tail-lag-memory-1m", 1, 100, 1_000_000, 75_000), rows), "no MEMORY lag target");
    }

    /** Issue 23 (b): a vs cell says what it compares with, the target, and whether this run met it. */
    @Test
    void everyVsCellNamesItsTargetAndSaysMetOrMissed()
    {
        final List<BenchRow> rows = new java.util.ArrayList<>();
        for (final String name : Scenarios.NAMES)
        {
            for (final int threads : List.of(1, 16, 64))
            {
                rows.add(row(name, threads, 100, 10_000, 100));
            }
        }
        final java.util.regex.Pattern verdict =
            java.util.regex.Pattern.compile("\\S+ [^()]+ \\(target (<=|>=)[0-9.,%x]+\\): (met|missed)");
        for (final String target : Comparisons.rowsWithTargets())
        {
            final String scenario = target.substring(0, target.indexOf('/'));
            final int threads = Integer.parseInt(target.substring(target.indexOf('/') + 1));
            final BenchRow row = rows.stream().filter(r -> r.scenario().equals(scenario) && r.threads() == threads)
                .findFirst().orElseThrow(() -> new AssertionError(target + " is no scenario of the table"));
            final String vs = Comparisons.vs(row, rows);
            org.junit.jupiter.api.Assertions.assertTrue(vs != null && verdict.matcher(vs).matches(),
                target + ": '" + vs + "'");
        }
    }

    @Test
    void tailReadNoteGivesTheFixedRateLagRowsBesideIt()
    {
        final BenchRow tail = new BenchRow("engine-tail-read", 1, 100, BenchRow.Status.MEASURED, 4e6, 400, 900, 3000,
            5000, "behind a writer running flat out");
        final List<BenchRow> rows = TailLagNote.apply(List.of(tail, row("tail-lag-memory-10k", 1, 100, 10_000, 4.5),
            row("tail-lag-dsync-1m", 1, 100, 1e6, 30_000), row("engine-cold-read", 1, 65536, 1, 1)));

        assertEquals("behind a writer running flat out; at fixed rates (tail-lag rows), p50/p99 us: "
            + "memory-10k 4.50/9.00, dsync-1m 30,000/60,000", rows.get(0).note());
        assertNull(rows.get(3).note());
        assertEquals(List.of(tail), TailLagNote.apply(List.of(tail)), "no lag rows measured, the note stays");
    }

    @Test
    void manyLogsRowIsComparedWithOneLogAtSixteenProducers()
    {
        final BenchRow oneLog = row("engine-dsync", 16, 100, 40_000, 400);
        final BenchRow manyLogs = row("engine-many-logs", 16, 100, 30_000, 530);

        assertEquals("75% of engine-dsync (target >=80%): missed", Comparisons.vs(manyLogs, List.of(oneLog, manyLogs)));
        assertEquals("80% of engine-dsync (target >=80%): met",
            Comparisons.vs(row("engine-many-logs", 16, 100, 32_000, 500), List.of(oneLog)));
        assertNull(Comparisons.vs(manyLogs, List.of(row("engine-dsync", 1, 100, 40_000, 400))),
            "only the 16-producer engine-dsync row is its reference");
    }

    @Test
    void microsKeepsThreeSignificantDigits()
    {
        assertEquals("3.46", ResultTable.micros(3.456));
        assertEquals("78.1", ResultTable.micros(78.14));
        assertEquals("999.5", ResultTable.micros(999.5));
        assertEquals("1,234", ResultTable.micros(1234.4));
        assertEquals("-", ResultTable.micros(Double.NaN));
    }
}
