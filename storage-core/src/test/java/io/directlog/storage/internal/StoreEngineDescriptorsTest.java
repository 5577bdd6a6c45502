package io.directlog.storage.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.nativeio.DsyncWrites;
import io.directlog.nativeio.NativeIo;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogStore;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.TestDirs;
import io.directlog.storage.TestStores;

/**
 * Descriptors per log (issue 18: 10,000 logs within {@code ulimit -n}), counted in {@code /proc/self/fd}. A log that
 * takes appends holds one: its active segment's, O_DIRECT, whose O_DSYNC writes go through pwritev2(RWF_DSYNC) (two
 * where the kernel lacks it). Its prepared segments wait without one, its checkpoint is opened for each slot write
 * only; a log loaded and not used holds none; a log idle for {@code pageIdleRelease} closes its active segment's
 * descriptor once the syncer's fdatasync covered its writes, and a read descriptor no read used for as long closes
 * too. The next append, or the next read that misses the cache, opens one again.
 * <p>
 * Background threads open files for a moment (the syncer's checkpoint write, the preparer's zeroing): counts are
 * polled until they settle, within a bound that fails the test.
 */
class StoreEngineDescriptorsTest
{
    private static final int LOGS = 3;
    private static final Duration NEVER_IDLE = Duration.ofHours(1);
    private static final Duration SHORT_IDLE = Duration.ofMillis(100);
    private static final long SETTLE_NANOS = 30_000_000_000L;

    /** Descriptors of a log that takes appends: one, or two where writes cannot carry RWF_DSYNC. */
    private static int perActiveLog()
    {
        return DsyncWrites.isSupported() ? 1 : 2;
    }

    @Test
    @Timeout(120)
    void aLogTakingAppendsHoldsOneDescriptorAndALoadedUnusedOneNone() throws Exception
    {
        final Path dir = nativeStore("descriptors");
        final StoreConfig config = config(dir, NEVER_IDLE);
        try (LogStore store = LogStore.open(config))
        {
            final Map<String, Integer> expected = new TreeMap<>();
            for (int i = 0; i < LOGS; i++)
            {
                store.log("log-" + i).append(new byte[100], Durability.DSYNC).join();
                expected.put("log-" + i, perActiveLog());
            }
            awaitDescriptors(dir, expected::equals, "one descriptor per log taking appends (pwritev2 RWF_DSYNC " +
                (DsyncWrites.isSupported() ? "" : "not ") + "supported)");
        }
        try (LogStore store = LogStore.open(config))
        {
            for (final String name : store.logNames())
            {
                store.log(name);
            }
            awaitDescriptors(dir, Map.of()::equals, "logs loaded, none used");
            final Log used = store.log("log-0");
            used.append(new byte[100], Durability.DSYNC).join();
            awaitDescriptors(dir, Map.of("log-0", perActiveLog())::equals, "one log used again");
        }
    }

    @Test
    @Timeout(120)
    void anIdleLogClosesItsDescriptorAndTheNextAppendOpensItAgain() throws Exception
    {
        final Path dir = nativeStore("descriptors-idle");
        try (LogStore store = LogStore.open(config(dir, SHORT_IDLE)))
        {
            final Log log = store.log("idle");
            final byte[] first = payload(1);
            log.append(first, Durability.DIRECT).join(); // not durable by itself: the syncer's fdatasync comes first
            awaitDescriptors(dir, Map.of()::equals, "the log idle");
            final byte[] second = payload(2);
            assertEquals(1L, log.append(second, Durability.DSYNC).join(), "the append after the idle close");
            assertArrayEquals(first, readAt(log, 0));
            assertArrayEquals(second, readAt(log, 1));
            awaitDescriptors(dir, Map.of()::equals, "the log idle again");
        }
        try (LogStore store = LogStore.open(config(dir, NEVER_IDLE)))
        {
            final Log log = store.log("idle");
            assertEquals(2L, log.endOffset(), "both records survive the close and reopen");
            assertArrayEquals(payload(2), readAt(log, 1));
        }
    }

    @Test
    @Timeout(120)
    void aColdReadOpensADescriptorThatClosesOnceNoReadUsesIt() throws Exception
    {
        final Path dir = nativeStore("descriptors-read");
        try (LogStore store = LogStore.open(config(dir, NEVER_IDLE)))
        {
            final Log log = store.log("read");
            for (int i = 0; i < 3; i++)
            {
                log.append(payload(i), Durability.DSYNC).join();
            }
        }
        try (LogStore store = LogStore.open(config(dir, SHORT_IDLE)))
        {
            final Log log = store.log("read");
            assertArrayEquals(payload(0), readAt(log, 0), "a cold read after the reopen: from disk");
            awaitDescriptors(dir, Map.of()::equals, "the read descriptor idle");
            assertArrayEquals(payload(2), readAt(log, 2), "a read after the idle close");
            assertEquals(3L, log.append(payload(3), Durability.DSYNC).join());
            assertArrayEquals(payload(3), readAt(log, 3));
        }
    }

    @Test
    @Timeout(180)
    void descriptorsFollowTheLogsInUseNotTheLogsInTheStore() throws Exception
    {
        final Path dir = nativeStore("descriptors-many");
        final int logs = 200;
        final int active = 5;
        try (LogStore store = LogStore.open(config(dir, SHORT_IDLE)))
        {
            final List<Log> all = new ArrayList<>();
            for (int i = 0; i < logs; i++)
            {
                final Log log = store.log("many-" + i);
                log.append(payload(i), Durability.DIRECT).join();
                all.add(log);
            }
            awaitDescriptors(dir, Map::isEmpty, logs + " logs idle");
            // a few logs in use again: their descriptors come back, the idle ones stay closed
            for (int round = 0; round < 3; round++)
            {
                for (int i = 0; i < active; i++)
                {
                    all.get(i).append(payload(i), Durability.DSYNC).join();
                }
                final Map<String, Integer> held = descriptorsByLog(dir);
                final int total = held.values().stream().mapToInt(Integer::intValue).sum();
                // each busy log's own, and what background threads may hold for a moment (checkpoint, preparer)
                assertTrue(total <= active * (perActiveLog() + 2), () -> "descriptors with " + active +
                    " of " + logs + " logs in use: " + held);
            }
            awaitDescriptors(dir, Map::isEmpty, "all idle again");
            for (int i = 0; i < logs; i += 37)
            {
                assertArrayEquals(payload(i), readAt(all.get(i), 0), "log many-" + i);
            }
        }
    }

    private static Path nativeStore(final String name) throws Exception
    {
        assumeTrue(Files.isDirectory(Paths.get("/proc/self/fd")), "no /proc/self/fd");
        assumeTrue(NativeIo.isAvailable(), "native I/O unavailable: " + NativeIo.unavailabilityCause());
        final Path dir = TestDirs.create(name);
        try (LogStore probe = LogStore.open(config(dir, NEVER_IDLE)))
        {
            assumeTrue(probe.deviceInfo().io().startsWith("native"), "the store does not use native I/O");
        }
        return dir;
    }

    /** The test store, its logs synced every 20 ms (an idle close waits for the syncer's fdatasync). */
    private static StoreConfig config(final Path dir, final Duration idle)
    {
        return TestStores.store(dir, TestStores.log().syncInterval(Duration.ofMillis(20)).build())
            .pageIdleRelease(idle).build();
    }

    private static byte[] payload(final int i)
    {
        final byte[] b = new byte[100];
        java.util.Arrays.fill(b, (byte)(i + 1));
        return b;
    }

    private static byte[] readAt(final Log log, final long offset)
    {
        try (RecordBatch batch = log.read(offset, 1 << 16))
        {
            for (final Record r : batch)
            {
                if (r.offset() == offset)
                {
                    return r.payloadBytes();
                }
            }
        }
        throw new AssertionError("no record at offset " + offset + " in log " + log.name());
    }

    /** Polls the descriptors by log until {@code settled} holds; fails after {@link #SETTLE_NANOS}. */
    private static void awaitDescriptors(final Path store, final Predicate<Map<String, Integer>> settled,
        final String what) throws IOException, InterruptedException
    {
        final long deadline = System.nanoTime() + SETTLE_NANOS;
        Map<String, Integer> held = descriptorsByLog(store);
        while (!settled.test(held))
        {
            final Map<String, Integer> last = held;
            assertTrue(System.nanoTime() - deadline < 0, () -> what + ": descriptors by log " + last);
            Thread.sleep(10); // polling background threads' progress (idle clock, syncer) with a bounded deadline
            held = descriptorsByLog(store);
        }
    }

    /** @return descriptors of this process open on files inside each log directory of the store. */
    static Map<String, Integer> descriptorsByLog(final Path store) throws IOException
    {
        final Path root = store.toAbsolutePath().normalize();
        final Map<String, Integer> byLog = new TreeMap<>();
        try (Stream<Path> fds = Files.list(Paths.get("/proc/self/fd")))
        {
            for (final Path fd : (Iterable<Path>)fds::iterator)
            {
                final Path target;
                try
                {
                    target = Files.readSymbolicLink(fd);
                }
                catch (final IOException e)
                {
                    continue; // closed since the listing (the listing's own descriptor, among others)
                }
                if (target.startsWith(root) && target.getNameCount() > root.getNameCount() + 1)
                {
                    byLog.merge(target.getName(root.getNameCount()).toString(), 1, Integer::sum);
                }
            }
        }
        return byLog;
    }
}
