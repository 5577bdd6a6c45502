package io.directlog.cli.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import io.directlog.benchmarks.Payloads;
import io.directlog.benchmarks.log.EngineAppendBenchmark;
import io.directlog.benchmarks.log.EngineColdReplayBenchmark;
import io.directlog.benchmarks.peers.RocksDbWalBenchmark;
import io.directlog.storage.Durability;

/**
 * Issue 23: {@code ./directlog bench} and the JMH suites disagreed because they measured different stores. The rows
 * that stand for a JMH target take that suite's settings; this holds them equal, so a change to one side fails here
 * instead of making the two tell different stories again.
 */
class BenchMatchesJmhTest
{
    @Test
    void engineAppendRowsUseEngineAppendBenchmarksStoreAndLog()
    {
        assertEquals(EngineAppendBenchmark.MEMORY_BUDGET, EngineAppendScenario.APPEND_MEMORY_BUDGET, "memory budget");
        for (final Durability d : Durability.values())
        {
            assertEquals(EngineAppendBenchmark.logConfig(d), EngineAppendScenario.logConfig(d), "log config, " + d);
        }
    }

    @Test
    void coldReadRowUsesEngineColdReplayBenchmarksRecordsReadsAndBudgets()
    {
        assertEquals(EngineColdReplayBenchmark.RECORD_SIZE, EngineColdReadScenario.RECORD_BYTES, "record bytes");
        assertEquals(EngineColdReplayBenchmark.READ_BYTES, EngineColdReadScenario.READ_BYTES, "read bytes");
        assertEquals(EngineColdReplayBenchmark.WRITE_MEMORY_BUDGET, EngineColdReadScenario.WRITE_MEMORY_BUDGET,
            "budget while writing");
        assertEquals(EngineColdReplayBenchmark.READ_MEMORY_BUDGET, EngineColdReadScenario.READ_MEMORY_BUDGET,
            "budget while reading");
    }

    @Test
    void rocksDbRowPutsRocksDbWalBenchmarksKeysAndValues()
    {
        assertEquals(RocksDbWalBenchmark.KEY_BYTES, RocksDbSyncScenario.KEY_BYTES, "key bytes");
        assertEquals(Payloads.SEED, RocksDbSyncScenario.VALUE_SEED, "value seed");
        assertArrayEquals(Payloads.random(RocksDbSyncScenario.VALUE_BYTES), RocksDbSyncScenario.value(), "value");
    }
}
