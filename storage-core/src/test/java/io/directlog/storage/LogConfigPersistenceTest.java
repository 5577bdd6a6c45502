package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Each log's settings live beside its data ({@code <log>/log.config}) and come back after a restart. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LogConfigPersistenceTest
{
    private static final LogConfig DEFAULT = LogConfig.builder().segmentSize(1 << 20).build();
    private static final LogConfig MEMORY_1H = DEFAULT.toBuilder().durability(Durability.MEMORY)
        .retentionTime(Duration.ofHours(1)).build();

    private static StoreConfig config(final Path dir)
    {
        return TestStores.store(dir, DEFAULT).memoryBudget(16L << 20).build();
    }

    @Test
    void logConfigComesBackAfterRestart() throws Exception
    {
        final Path dir = TestDirs.create("config-restart");
        try (LogStore store = LogStore.open(config(dir)))
        {
            store.log("a", MEMORY_1H).append(new byte[1]).join();
        }
        try (LogStore store = LogStore.open(config(dir)))
        {
            assertEquals(MEMORY_1H, store.log("a").config());
        }
    }

    @Test
    void aLogWithoutAConfigOfItsOwnFollowsTheStoreDefault() throws Exception
    {
        final Path dir = TestDirs.create("config-default");
        try (LogStore store = LogStore.open(config(dir)))
        {
            store.log("a").append(new byte[1]).join();
        }
        final StoreConfig memoryDefault = StoreConfig.builder(dir).memoryBudget(16L << 20).writerThreads(1)
            .defaultLogConfig(MEMORY_1H).build();
        try (LogStore store = LogStore.open(memoryDefault))
        {
            assertEquals(MEMORY_1H, store.log("a").config());
        }
    }

    @Test
    void logOfAnExistingClosedLogWithAnotherConfigChangesItDurably() throws Exception
    {
        final Path dir = TestDirs.create("config-change");
        try (LogStore store = LogStore.open(config(dir)))
        {
            store.log("a", MEMORY_1H).append(new byte[1]).join();
        }
        final LogConfig direct = MEMORY_1H.toBuilder().durability(Durability.DIRECT).retentionTime(null).build();
        try (LogStore store = LogStore.open(config(dir)))
        {
            // the store opened it at start, but nobody holds it yet: the first opener sets its config
            assertEquals(direct, store.log("a", direct).config());
        }
        try (LogStore store = LogStore.open(config(dir)))
        {
            assertEquals(direct, store.log("a").config());
            assertNull(store.log("a").config().retentionTime());
        }
    }

    @Test
    void logOfAClosedLogWithAnotherConfigReopensItWithThatConfig() throws Exception
    {
        try (LogStore store = LogStore.open(config(TestDirs.create("config-after-close"))))
        {
            store.log("a").close();
            assertEquals(MEMORY_1H, store.log("a", MEMORY_1H).config());
        }
    }

    @Test
    void segmentSizeOfAnExistingLogCannotChange() throws Exception
    {
        final Path dir = TestDirs.create("config-segment-size");
        try (LogStore store = LogStore.open(config(dir)))
        {
            store.log("a").close();
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> store.log("a", DEFAULT.toBuilder().segmentSize(2 << 20).build()));
            assertTrue(e.getMessage().contains("segmentSize"), e.getMessage());
        }
    }

    @Test
    void anOpenLogRefusesADifferentConfigSoNoHolderLosesDurability() throws Exception
    {
        try (LogStore store = LogStore.open(config(TestDirs.create("config-open"))))
        {
            final Log first = store.log("a", DEFAULT);
            final IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> store.log("a", MEMORY_1H));
            assertTrue(e.getMessage().contains("durability"), e.getMessage());
            assertTrue(e.getMessage().contains("reconfigure"), e.getMessage());
            assertEquals(Durability.DSYNC, first.config().durability());
            assertSame(first, store.log("a", DEFAULT)); // the same config is fine
            for (int i = 0; i < 100; i++)
            {
                first.append(new byte[10]).join();
            }
            assertTrue(first.stats().flushes() >= 100, "every DSYNC append was written: " + first.stats());
        }
    }

    @Test
    void reconfigureChangesTheOpenLogForEveryHolderAndDurably() throws Exception
    {
        final Path dir = TestDirs.create("config-reconfigure");
        try (LogStore store = LogStore.open(config(dir)))
        {
            final Log first = store.log("a", DEFAULT);
            store.log("a").reconfigure(MEMORY_1H);
            assertEquals(MEMORY_1H, first.config());
            assertThrows(IllegalArgumentException.class,
                () -> first.reconfigure(MEMORY_1H.toBuilder().segmentSize(2 << 20).build()));
        }
        try (LogStore store = LogStore.open(config(dir)))
        {
            assertEquals(MEMORY_1H, store.log("a").config());
        }
    }

    @Test
    void damagedConfigFileIsRefusedByName() throws Exception
    {
        final Path dir = TestDirs.create("config-damaged");
        try (LogStore store = LogStore.open(config(dir)))
        {
            store.log("a", MEMORY_1H);
        }
        final Path file = dir.resolve("a").resolve("log.config");
        final byte[] bytes = Files.readAllBytes(file);
        bytes[20] ^= 1;
        Files.write(file, bytes);
        // opened from the store manifest, the log reads its files at its first use, and is refused then
        final CorruptLogException lazy = assertThrows(CorruptLogException.class, () ->
        {
            try (LogStore store = LogStore.open(config(dir)))
            {
                store.log("a").endOffset();
            }
        });
        assertTrue(lazy.getMessage().contains("log.config"), lazy.getMessage());
        // without a manifest (it was removed before the load), the store's open reads every log and refuses it
        final CorruptLogException e = assertThrows(CorruptLogException.class, () -> LogStore.open(config(dir)));
        assertTrue(e.getMessage().contains("log.config"), e.getMessage());
    }
}
