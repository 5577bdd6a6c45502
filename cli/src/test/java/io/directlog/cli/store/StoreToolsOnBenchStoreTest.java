package io.directlog.cli.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.directlog.cli.UsageException;
import io.directlog.cli.bench.BenchStoreFixture;
import io.directlog.storage.Durability;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * dump and verify on a store written the way {@code ./directlog bench} writes one: the engine-direct scenario's
 * store under the run's directory ({@code directlog-bench-XXXX/engine-direct}), its 64 MiB segments, its log
 * "bench", 16 producers appending 100 B records.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StoreToolsOnBenchStoreTest
{
    private static final int PRODUCERS = 16;
    private static final int PER_PRODUCER = 500;

    @TempDir
    Path parent;

    private final StoreTools tools = new StoreTools();

    @Test
    void dumpAndVerifyReadTheStoreOfTheEngineDirectScenario() throws Exception
    {
        final Path run = Files.createTempDirectory(parent, BenchStoreFixture.RUN_PREFIX);
        final Path store = BenchStoreFixture.write(run, Durability.DIRECT, PRODUCERS, PER_PRODUCER);
        assertEquals(0, tools.verify(store.toString()), tools.out() + tools.err());
        assertTrue(tools.out().contains("no damage"), tools.out());
        tools.clearOut();
        assertEquals(0, tools.dump(store.toString(), "--json"), tools.err());
        assertTrue(tools.out().contains("\"name\":\"" + BenchStoreFixture.LOG_NAME + "\""), tools.out());
        assertTrue(tools.out().contains("\"watermarkOffset\":" + PRODUCERS * PER_PRODUCER), tools.out());
        tools.clearOut();
        assertEquals(0, tools.dump(store.toString(), "--log", BenchStoreFixture.LOG_NAME, "--records", "--from",
            String.valueOf(PRODUCERS * PER_PRODUCER - 3)), tools.err());
        assertTrue(tools.out().contains("record offset " + (PRODUCERS * PER_PRODUCER - 1) + "  "), tools.out());
    }

    @Test
    void pointedAtTheBenchRunDirectoryTheToolsNameTheStoresInIt() throws Exception
    {
        final Path run = Files.createTempDirectory(parent, BenchStoreFixture.RUN_PREFIX);
        BenchStoreFixture.write(run, Durability.DIRECT, PRODUCERS, PER_PRODUCER);
        BenchStoreFixture.write(run, Durability.DSYNC, PRODUCERS, PER_PRODUCER);
        Files.createDirectories(run.resolve("shared"));
        for (final boolean isDump : new boolean[] {false, true})
        {
            final UsageException e = assertThrows(UsageException.class,
                () -> { if (isDump) { tools.dump(run.toString()); } else { tools.verify(run.toString()); } },
                "the run directory is not a store: " + tools.out() + tools.err());
            assertTrue(e.getMessage().contains("holds stores: engine-direct, engine-dsync"), e.getMessage());
            assertTrue(e.getMessage().contains(run.resolve("engine-direct").toString()), e.getMessage());
        }
        // an empty store (the engine's lock file, no log yet) is still a store with nothing to report
        final Path empty = Files.createDirectories(parent.resolve("empty-store"));
        Files.createFile(empty.resolve("store.lock"));
        assertEquals(0, tools.verify(empty.toString()), tools.out() + tools.err());
    }
}
