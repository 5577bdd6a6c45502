package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.io.sim.IoCall;
import io.directlog.storage.io.sim.SimulatedBlockIo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link LogStore#logs}: many logs opened or created with one config, the new ones written together (a broker's
 * topic of many partitions). Each comes back after a restart with its config, a log already open or on disk is
 * opened as {@link LogStore#log(String, LogConfig)} opens it, and bad calls are refused before any file is written.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LogBatchCreateTest
{
    private static final LogConfig DEFAULT = LogConfig.builder().segmentSize(1 << 20).build();
    private static final LogConfig KEPT_1H = DEFAULT.toBuilder().durability(Durability.DSYNC)
        .retentionTime(Duration.ofHours(1)).build();
    private static final int LOGS = 200;

    private static StoreConfig config(final Path dir)
    {
        return TestStores.store(dir, DEFAULT).memoryBudget(16L << 20).build();
    }

    private static List<String> names(final String prefix, final int count)
    {
        final List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            names.add(prefix + i);
        }
        return names;
    }

    @Test
    void manyNewLogsTakeAppendsAndComeBackAfterARestartWithTheirConfig() throws Exception
    {
        final Path dir = TestDirs.create("batch-create");
        final List<String> names = names("p.", LOGS);
        try (LogStore store = LogStore.open(config(dir)))
        {
            final List<Log> logs = store.logs(names, KEPT_1H);
            assertEquals(LOGS, logs.size());
            for (int i = 0; i < LOGS; i++)
            {
                assertEquals(names.get(i), logs.get(i).name(), "in the order asked");
                assertEquals(KEPT_1H, logs.get(i).config());
                assertSame(logs.get(i), store.log(names.get(i)), "the store's one handle");
            }
            for (int i = 0; i < LOGS; i += 50)
            {
                assertEquals(0L, logs.get(i).append(("r" + i).getBytes()).get(30, TimeUnit.SECONDS));
            }
        }
        try (LogStore store = LogStore.open(config(dir)))
        {
            assertTrue(store.logNames().containsAll(names), "every log is in the store after the restart");
            for (int i = 0; i < LOGS; i++)
            {
                final Log log = store.log(names.get(i));
                assertEquals(KEPT_1H, log.config(), names.get(i));
                assertEquals(i % 50 == 0 ? 1 : 0, log.endOffset(), names.get(i));
            }
            try (RecordBatch batch = store.log("p.50").read(0, 1 << 16))
            {
                assertArrayEquals("r50".getBytes(), batch.iterator().next().payloadBytes());
            }
        }
    }

    @Test
    void openLogsLogsOnDiskAndNewLogsOpenTogether() throws Exception
    {
        final Path dir = TestDirs.create("batch-mixed");
        try (LogStore store = LogStore.open(config(dir)))
        {
            store.log("closed", KEPT_1H).append(new byte[] {7}).join();
        }
        try (LogStore store = LogStore.open(config(dir)))
        {
            final Log open = store.log("open", KEPT_1H);
            final List<Log> logs = store.logs(List.of("open", "closed", "new"), KEPT_1H);
            assertSame(open, logs.get(0), "an open log is returned as it is");
            assertEquals(1, logs.get(1).endOffset(), "a log on disk keeps its records");
            assertEquals(0, logs.get(2).endOffset());
            assertThrows(IllegalStateException.class, () -> store.logs(List.of("open", "other"),
                DEFAULT), "an open log is not reconfigured under its holders");
        }
    }

    @Test
    void badCallsAreRefusedBeforeAnyFileIsWritten() throws Exception
    {
        final Path dir = TestDirs.create("batch-bad");
        try (LogStore store = LogStore.open(config(dir)))
        {
            assertThrows(IllegalArgumentException.class, () -> store.logs(List.of("a", "b", "a"), DEFAULT));
            assertThrows(IllegalArgumentException.class, () -> store.logs(List.of("a", "../b"), DEFAULT));
            assertThrows(NullPointerException.class, () -> store.logs(Arrays.asList("a", null), DEFAULT));
            assertThrows(NullPointerException.class, () -> store.logs(List.of("a"), null));
            assertThrows(NullPointerException.class, () -> store.logs(null, DEFAULT));
            final LogConfig huge = LogConfig.builder().segmentSize(64 << 20).build();
            final MemoryBudgetExceededException e = assertThrows(MemoryBudgetExceededException.class,
                () -> store.logs(List.of("a", "b"), huge));
            assertTrue(e.getMessage().contains("memory budget"), e.getMessage());
            assertEquals(List.of(), store.logs(List.of(), DEFAULT));
            assertTrue(store.logNames().isEmpty(), "nothing created: " + store.logNames());
            try (var entries = Files.list(dir))
            {
                assertFalse(entries.anyMatch(p -> p.getFileName().toString().matches("[ab]")), "no directory");
            }
        }
    }

    @Test
    void theFirstOpenOfABatchCreatedLogFindsItsFilesAndRewritesNone() throws Exception
    {
        final SimulatedBlockIo io = new SimulatedBlockIo();
        final Path dir = TestDirs.create("batch-files");
        final List<String> names = names("q.", 20);
        try (LogStore store = LogStore.open(StoreConfig.builder(dir).blockIo(io).memoryBudget(16L << 20)
            .writerThreads(1).defaultLogConfig(DEFAULT).build()))
        {
            store.logs(names, KEPT_1H);
            final List<IoCall> trace = io.trace();
            for (final String name : names)
            {
                for (final String file : List.of("log.config", "log.meta", "checkpoint"))
                {
                    final Path target = dir.toAbsolutePath().normalize().resolve(name).resolve(file);
                    assertEquals(1, trace.stream().filter(c -> c.kind() == IoCall.Kind.RENAME &&
                        target.equals(c.target())).count(), target + " written once");
                }
            }
        }
    }
}
