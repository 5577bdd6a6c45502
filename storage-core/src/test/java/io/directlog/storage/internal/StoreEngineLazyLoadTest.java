package io.directlog.storage.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.TestDirs;
import io.directlog.storage.TestStores;
import io.directlog.storage.io.DelegatingBlockIo;
import io.directlog.storage.io.IoHold;
import io.directlog.storage.io.NativeBlockIo;
import io.directlog.storage.log.DefaultLog;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;

/**
 * Loads of logs known from the store manifest (issue 18): each at its first use, outside the registry's lock (two
 * logs load at once), once per log however many threads use it first, from the manifest's facts (no
 * {@code log.meta}, segment header or checkpoint read), and on background threads when asked.
 */
class StoreEngineLazyLoadTest
{
    private static final int LOGS = 16;
    private static final int RECORDS = 3;

    @Test
    @Timeout(120)
    void firstUseLoadsFromTheManifestsFactsWithoutReadingMetaHeadersOrCheckpoint() throws Exception
    {
        final Path dir = TestDirs.create("lazy-facts");
        final RecordingBlockIo io = new RecordingBlockIo(new NativeBlockIo(4096));
        final StoreConfig config = TestStores.store(dir).blockIo(io).build();
        createLogs(config, 2);
        io.opens.clear();
        try (LogStore store = LogStore.open(config))
        {
            final Log log = store.log("log-1");
            assertEquals(RECORDS, log.endOffset()); // loads it; reads of its records open its segment later
            final List<String> opens = List.copyOf(io.opens);
            assertFalse(opens.stream().anyMatch(o -> o.contains("log.meta")), () -> "log.meta read: " + opens);
            // a load opens no write descriptor (the first append does), so the active segment's length is read
            // through one READ descriptor closed at once; no other segment file is opened, no header read
            assertTrue(opens.stream().filter(o -> o.startsWith("READ log-1/") && o.endsWith(".log")).count() <= 1,
                () -> "the active segment opened more than once, for its length: " + opens);
            assertFalse(opens.stream().anyMatch(o -> o.startsWith("READ ") && o.endsWith("log-1/checkpoint")),
                () -> "a checkpoint slot read: " + opens);
            assertEquals(1, opens.stream().filter(o -> o.equals("DIRECT_DSYNC log-1/checkpoint")).count(),
                () -> "the checkpoint written once: " + opens);
            assertTrue(log.recoveryReport().cleanShutdown());
            StoreEngineManifestTest.assertRecords(log, RECORDS);
            assertEquals(RECORDS, log.append(StoreEngineManifestTest.payload("log-1", RECORDS), Durability.DSYNC)
                .join());
        }
        try (LogStore store = LogStore.open(config))
        {
            StoreEngineManifestTest.assertRecords(store.log("log-1"), RECORDS + 1);
            StoreEngineManifestTest.assertRecords(store.log("log-0"), RECORDS);
        }
    }

    @Test
    @Timeout(120)
    void concurrentFirstUsesOfManyLogsLoadEachOnceAndCorrectly() throws Exception
    {
        final Path dir = TestDirs.create("lazy-concurrent");
        final RecordingBlockIo io = new RecordingBlockIo(new NativeBlockIo(4096));
        final StoreConfig config = TestStores.store(dir).blockIo(io).build();
        createLogs(config, LOGS);
        io.opens.clear();
        final int threads = 8;
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (LogStore store = LogStore.open(config))
        {
            final List<String> names = new ArrayList<>(store.logNames());
            final CountDownLatch start = new CountDownLatch(1);
            final Map<String, Log> seen = new ConcurrentHashMap<>();
            final List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                final int first = t;
                done.add(pool.submit(() ->
                {
                    start.await();
                    for (int i = 0; i < names.size(); i++)
                    {
                        final String name = names.get((first + i) % names.size()); // each thread starts elsewhere
                        final Log log = store.log(name);
                        assertEquals(RECORDS, log.endOffset(), name);
                        StoreEngineManifestTest.assertRecords(log, RECORDS);
                        seen.putIfAbsent(name, log);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (final Future<?> f : done)
            {
                f.get(60, TimeUnit.SECONDS);
            }
            final Map<String, DefaultLog> open = ((StoreEngine)store).openLogs();
            assertEquals(LOGS, open.size(), "every log loaded");
            for (final String name : names)
            {
                final long loads = io.opens.stream().filter(o -> isIndexRead(o, name)).count();
                assertEquals(1, loads, name + " loaded " + loads + " times: " + io.opens);
                assertEquals(RECORDS, store.log(name).append(StoreEngineManifestTest.payload(name, RECORDS),
                    Durability.DSYNC).join(), name);
            }
        }
        finally
        {
            pool.shutdownNow();
        }
        try (LogStore store = LogStore.open(config))
        {
            for (final String name : store.logNames())
            {
                StoreEngineManifestTest.assertRecords(store.log(name), RECORDS + 1);
            }
        }
    }

    @Test
    @Timeout(120)
    void aSlowLoadDoesNotHoldUpAnotherLogsLoadAndASecondUserWaitsForItOnce() throws Exception
    {
        final Path dir = TestDirs.create("lazy-parallel");
        final RecordingBlockIo io = new RecordingBlockIo(new NativeBlockIo(4096));
        final StoreConfig config = TestStores.store(dir).blockIo(io).build();
        createLogs(config, 2);
        io.opens.clear();
        final ExecutorService pool = Executors.newFixedThreadPool(2);
        try (LogStore store = LogStore.open(config))
        {
            io.gate("log-0/checkpoint"); // log-0's load stops when it opens its checkpoint
            final Future<Long> slow = pool.submit(() -> store.log("log-0").endOffset());
            assertTrue(io.gate.awaitHeld(60), "log-0's load reached its checkpoint");
            final Future<Long> second = pool.submit(() -> store.log("log-0").endOffset());
            // log-1 loads while log-0's load is stopped: no lock of the registry is held across a load
            assertEquals(RECORDS, store.log("log-1").endOffset());
            assertFalse(slow.isDone(), "log-0's load is still stopped");
            io.gate.release();
            assertEquals(RECORDS, slow.get(60, TimeUnit.SECONDS));
            assertEquals(RECORDS, second.get(60, TimeUnit.SECONDS));
            assertEquals(1, io.opens.stream().filter(o -> isIndexRead(o, "log-0")).count(),
                () -> "log-0 loaded once: " + io.opens);
        }
        finally
        {
            io.gate.release();
            pool.shutdownNow();
        }
    }

    @Test
    @Timeout(120)
    void backgroundLoadsLoadEveryLogAndFirstUsesShareThem() throws Exception
    {
        final Path dir = TestDirs.create("lazy-background");
        final RecordingBlockIo io = new RecordingBlockIo(new NativeBlockIo(4096));
        final StoreConfig config = TestStores.store(dir).blockIo(io).build();
        createLogs(config, LOGS);
        io.opens.clear();
        System.setProperty(LazyLoads.BACKGROUND_PROPERTY, "3");
        try (LogStore store = LogStore.open(config))
        {
            for (final String name : store.logNames())
            {
                StoreEngineManifestTest.assertRecords(store.log(name), RECORDS);
            }
            for (final String name : store.logNames())
            {
                assertEquals(1, io.opens.stream().filter(o -> isIndexRead(o, name)).count(),
                    () -> name + " loaded once: " + io.opens);
            }
        }
        finally
        {
            System.clearProperty(LazyLoads.BACKGROUND_PROPERTY);
        }
        try (LogStore store = LogStore.open(config))
        {
            assertEquals(LOGS, store.logNames().size());
            StoreEngineManifestTest.assertRecords(store.log("log-3"), RECORDS);
        }
    }

    @Test
    @Timeout(120)
    void closingTheStoreWhileBackgroundLoadsRunLeavesEveryLogClosedAndReopenable() throws Exception
    {
        final Path dir = TestDirs.create("lazy-background-close");
        final StoreConfig config = TestStores.store(dir).build();
        createLogs(config, LOGS);
        System.setProperty(LazyLoads.BACKGROUND_PROPERTY, "2");
        try (LogStore store = LogStore.open(config))
        {
            StoreEngineManifestTest.assertRecords(store.log("log-0"), RECORDS); // some load, others may not yet
        }
        finally
        {
            System.clearProperty(LazyLoads.BACKGROUND_PROPERTY);
        }
        try (LogStore store = LogStore.open(config))
        {
            for (final String name : store.logNames())
            {
                StoreEngineManifestTest.assertRecords(store.log(name), RECORDS);
                assertTrue(store.log(name).recoveryReport().cleanShutdown(), name + " closed cleanly");
            }
        }
    }

    private static void createLogs(final StoreConfig config, final int count)
    {
        try (LogStore store = LogStore.open(config))
        {
            for (int i = 0; i < count; i++)
            {
                final Log log = store.log("log-" + i);
                for (int r = 0; r < RECORDS; r++)
                {
                    log.append(StoreEngineManifestTest.payload(log.name(), r), Durability.DSYNC).join();
                }
            }
        }
    }

    /** Records every open as "MODE log/file", and can stop the open of one file until released. */
    private static final class RecordingBlockIo extends DelegatingBlockIo
    {
        final ConcurrentLinkedQueue<String> opens = new ConcurrentLinkedQueue<>();
        final IoHold gate = new IoHold();
        private volatile String gated;
        private final AtomicInteger gatedOpens = new AtomicInteger();

        RecordingBlockIo(final BlockIo delegate)
        {
            super(delegate);
        }

        void gate(final String suffix)
        {
            gated = suffix;
        }

        @Override
        public BlockFile open(final Path path, final FileMode mode, final boolean create) throws IOException
        {
            final int n = path.getNameCount();
            final String name = n >= 2 ? path.getName(n - 2) + "/" + path.getFileName() : path.toString();
            opens.add(mode + " " + name);
            final String g = gated;
            if (g != null && name.equals(g) && gatedOpens.getAndIncrement() == 0)
            {
                gate.hold("the open of " + name);
            }
            return super.open(path, mode, create);
        }

        @Override
        public List<Path> listDirectories(final Path dir) throws IOException
        {
            return delegate().listDirectories(dir);
        }

        @Override
        public String describe()
        {
            return "recording " + delegate().describe();
        }
    }

    /** A load reads the active segment's index once (checkpoint files are opened for each write, reads open segments). */
    private static boolean isIndexRead(final String open, final String log)
    {
        return open.startsWith("READ " + log + "/") && open.endsWith(".idx");
    }
}
