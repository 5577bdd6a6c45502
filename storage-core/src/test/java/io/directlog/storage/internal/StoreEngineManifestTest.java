package io.directlog.storage.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogStore;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.TestDirs;
import io.directlog.storage.TestStores;
import io.directlog.storage.TestWarnings;
import io.directlog.storage.io.DelegatingBlockIo;
import io.directlog.storage.io.NativeBlockIo;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;

/**
 * The store manifest (issue 18): a clean close writes it last, an open from it reads no log file, each log loads at
 * its first use, and a manifest that is corrupt or does not match the directories is not trusted.
 */
class StoreEngineManifestTest
{
    private static final int LOGS = 5;
    private static final int RECORDS = 3;

    @Test
    @Timeout(120)
    void reopenFromManifestReadsNoLogFileAndLogsLoadAtFirstUse() throws Exception
    {
        final Path dir = TestDirs.create("manifest-reopen");
        final CountingBlockIo io = new CountingBlockIo(new NativeBlockIo(4096), dir);
        final StoreConfig config = TestStores.store(dir).blockIo(io).build();
        createLogs(config);
        assertTrue(Files.exists(dir.resolve(StoreManifest.FILE)), "a clean close writes the manifest");

        io.logFileCalls.clear();
        try (LogStore store = LogStore.open(config))
        {
            final List<Log> logs = new ArrayList<>();
            for (final String name : store.logNames())
            {
                logs.add(store.log(name));
            }
            assertEquals(LOGS, logs.size());
            assertEquals(List.of(), List.copyOf(io.logFileCalls), "the open and log(name) touched log files");
            assertEquals(0, ((StoreEngine)store).openLogs().size(), "no log is loaded before its first use");

            final Log first = logs.get(0);
            assertRecords(first, RECORDS);
            assertFalse(Files.exists(dir.resolve(StoreManifest.FILE)), "a log's load removes the manifest first");
            assertEquals(RECORDS, first.append(payload(first.name(), RECORDS), Durability.DSYNC).join());
            assertEquals(1, ((StoreEngine)store).openLogs().size(), "only the used log is loaded");
        }
        assertTrue(Files.exists(dir.resolve(StoreManifest.FILE)), "the close after a change writes a new manifest");
        try (LogStore store = LogStore.open(config))
        {
            final Set<String> names = store.logNames();
            assertEquals(LOGS, names.size());
            int i = 0;
            for (final String name : names)
            {
                assertRecords(store.log(name), i++ == 0 ? RECORDS + 1 : RECORDS);
            }
        }
    }

    @Test
    @Timeout(120)
    void openWithNothingUsedKeepsTheManifestAndTheLogsUntouched() throws Exception
    {
        final Path dir = TestDirs.create("manifest-untouched");
        final CountingBlockIo io = new CountingBlockIo(new NativeBlockIo(4096), dir);
        final StoreConfig config = TestStores.store(dir).blockIo(io).build();
        createLogs(config);
        final byte[] before = Files.readAllBytes(dir.resolve(StoreManifest.FILE));
        io.logFileCalls.clear();
        try (LogStore store = LogStore.open(config))
        {
            store.log("log-1").close(); // closing a log never loaded: nothing to close, nothing changes
        }
        assertEquals(List.of(), List.copyOf(io.logFileCalls));
        assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(dir.resolve(StoreManifest.FILE))));
    }

    @Test
    @Timeout(120)
    void corruptManifestFallsBackToOpeningEveryLogWithAWarning() throws Exception
    {
        final Path dir = TestDirs.create("manifest-corrupt");
        final StoreConfig config = TestStores.store(dir).build();
        createLogs(config);
        final Path manifest = dir.resolve(StoreManifest.FILE);
        final byte[] bytes = Files.readAllBytes(manifest);
        bytes[40] ^= 0x10; // inside the first entry: only the CRC can tell
        Files.write(manifest, bytes, StandardOpenOption.TRUNCATE_EXISTING);
        final List<String> warnings = TestWarnings.during(() ->
        {
            try (LogStore store = LogStore.open(config))
            {
                assertEquals(LOGS, ((StoreEngine)store).openLogs().size(), "every log opened from its files");
                assertFalse(Files.exists(manifest), "the manifest not used is removed");
                for (final String name : store.logNames())
                {
                    assertRecords(store.log(name), RECORDS);
                }
            }
        });
        assertTrue(warnings.stream().anyMatch(w -> w.contains("manifest is not used (CRC32C mismatch)")),
            () -> "warnings: " + warnings);
    }

    @Test
    @Timeout(120)
    void manifestThatMissesALogDirectoryIsNotTrusted() throws Exception
    {
        final Path dir = TestDirs.create("manifest-stale-list");
        final StoreConfig config = TestStores.store(dir).build();
        createLogs(config);
        final Path manifest = dir.resolve(StoreManifest.FILE);
        final byte[] written = Files.readAllBytes(manifest);
        try (LogStore store = LogStore.open(config))
        {
            store.log("extra").append("x".getBytes(StandardCharsets.UTF_8), Durability.DSYNC).join();
        }
        Files.write(manifest, written); // as a copy from before, or a version of the code that knew no manifest
        final List<String> warnings = TestWarnings.during(() ->
        {
            try (LogStore store = LogStore.open(config))
            {
                assertEquals(LOGS + 1, store.logNames().size());
                assertEquals(1, store.log("extra").endOffset());
            }
        });
        assertTrue(warnings.stream().anyMatch(w -> w.contains("log directory 'extra' is not in it")),
            () -> "warnings: " + warnings);
    }

    @Test
    @Timeout(120)
    void deletingAnUnloadedLogRemovesItAndItsHandleIsClosed() throws Exception
    {
        final Path dir = TestDirs.create("manifest-delete");
        final StoreConfig config = TestStores.store(dir).build();
        createLogs(config);
        try (LogStore store = LogStore.open(config))
        {
            final Log handle = store.log("log-2");
            assertTrue(store.deleteLog("log-2"));
            assertFalse(store.logNames().contains("log-2"));
            assertThrowsClosed(handle);
        }
        try (LogStore store = LogStore.open(config))
        {
            assertEquals(LOGS - 1, store.logNames().size());
            assertFalse(store.logNames().contains("log-2"));
        }
    }

    private static void assertThrowsClosed(final Log handle)
    {
        try
        {
            handle.append("x".getBytes(StandardCharsets.UTF_8)).join();
            throw new AssertionError("a deleted log's handle took an append");
        }
        catch (final io.directlog.storage.LogClosedException e)
        {
            assertTrue(e.getMessage().contains("log-2"), e.getMessage());
        }
    }

    static void createLogs(final StoreConfig config)
    {
        try (LogStore store = LogStore.open(config))
        {
            for (int i = 0; i < LOGS; i++)
            {
                final Log log = store.log("log-" + i);
                for (int r = 0; r < RECORDS; r++)
                {
                    log.append(payload(log.name(), r), Durability.DSYNC).join();
                }
            }
        }
    }

    static byte[] payload(final String log, final long offset)
    {
        return (log + ":" + offset).getBytes(StandardCharsets.UTF_8);
    }

    static void assertRecords(final Log log, final int count)
    {
        assertEquals(count, log.endOffset(), log.name());
        try (RecordBatch batch = log.read(0, 1 << 16))
        {
            final List<String> read = new ArrayList<>();
            batch.forEach(r -> read.add(new String(r.payloadBytes(), StandardCharsets.UTF_8)));
            final List<String> expected = new ArrayList<>();
            for (int i = 0; i < count; i++)
            {
                expected.add(new String(payload(log.name(), i), StandardCharsets.UTF_8));
            }
            assertEquals(expected, read, log.name());
        }
    }

    /** Records every call that names a path inside a log's directory (below the store's). */
    static final class CountingBlockIo extends DelegatingBlockIo
    {
        final ConcurrentLinkedQueue<String> logFileCalls = new ConcurrentLinkedQueue<>();
        private final Path store;

        CountingBlockIo(final BlockIo delegate, final Path store)
        {
            super(delegate);
            this.store = store.toAbsolutePath().normalize();
        }

        private void check(final String call, final Path path)
        {
            final Path p = path.toAbsolutePath().normalize();
            if (p.startsWith(store) && p.getNameCount() > store.getNameCount() + 1)
            {
                logFileCalls.add(call + " " + store.relativize(p));
            }
        }

        @Override
        public BlockFile open(final Path path, final FileMode mode, final boolean create) throws IOException
        {
            check("open", path);
            return super.open(path, mode, create);
        }

        @Override
        public List<Path> list(final Path dir) throws IOException
        {
            check("list", dir.resolve("x"));
            return super.list(dir);
        }

        @Override
        public void delete(final Path path) throws IOException
        {
            check("delete", path);
            super.delete(path);
        }

        @Override
        public void rename(final Path from, final Path to) throws IOException
        {
            check("rename", from);
            super.rename(from, to);
        }

        @Override
        public void createDirectories(final Path dir) throws IOException
        {
            check("mkdir", dir.resolve("x"));
            super.createDirectories(dir);
        }

        @Override
        public List<Path> listDirectories(final Path dir) throws IOException
        {
            return delegate().listDirectories(dir);
        }

        @Override
        public String describe()
        {
            return "counting " + delegate().describe();
        }
    }
}
