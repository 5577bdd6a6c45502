package io.directlog.storage.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.nativeio.DsyncWrites;
import io.directlog.nativeio.NativeIo;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.TestDirs;
import io.directlog.storage.TestStores;

/**
 * Descriptors per log (issue 18: 10,000 logs within {@code ulimit -n}), counted in {@code /proc/self/fd}: a loaded
 * log holds one per segment file it writes (its active segment and its prepared ones, O_DIRECT with
 * pwritev2(RWF_DSYNC) for its O_DSYNC writes) and its checkpoint's; a log known from the manifest and not used
 * holds none.
 */
class StoreEngineDescriptorsTest
{
    private static final int LOGS = 3;

    @Test
    @Timeout(120)
    void aLoadedLogHoldsOneDescriptorPerFileAndAnUnusedOneNone() throws Exception
    {
        assumeTrue(Files.isDirectory(Paths.get("/proc/self/fd")), "no /proc/self/fd");
        assumeTrue(NativeIo.isAvailable(), "native I/O unavailable: " + NativeIo.unavailabilityCause());
        final Path dir = TestDirs.create("descriptors");
        final StoreConfig config = TestStores.store(dir).build();
        try (LogStore probe = LogStore.open(config))
        {
            assumeTrue(probe.deviceInfo().io().startsWith("native"), "the store does not use native I/O");
        }
        final int perLog = DsyncWrites.isSupported() ? 4 : 7; // active + 2 prepared + checkpoint; twice each without
        try (LogStore store = LogStore.open(config))
        {
            for (int i = 0; i < LOGS; i++)
            {
                final Log log = store.log("log-" + i);
                log.append(new byte[100], Durability.DSYNC).join();
                awaitPrepared(log);
            }
            final Map<String, Integer> held = descriptorsByLog(dir);
            for (int i = 0; i < LOGS; i++)
            {
                assertEquals(perLog, held.getOrDefault("log-" + i, 0), () -> "descriptors by log: " + held +
                    " (pwritev2 RWF_DSYNC " + (DsyncWrites.isSupported() ? "" : "not ") + "supported)");
            }
        }
        try (LogStore store = LogStore.open(config))
        {
            for (final String name : store.logNames())
            {
                store.log(name);
            }
            assertEquals(Map.of(), descriptorsByLog(dir), "logs known from the manifest, none used");
            final Log used = store.log("log-0");
            used.append(new byte[100], Durability.DSYNC).join();
            awaitPrepared(used);
            assertEquals(Map.of("log-0", perLog), descriptorsByLog(dir));
        }
    }

    /** The preparer fills a log's prepared segments in the background: wait (bounded) until they are there. */
    private static void awaitPrepared(final Log log) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 30_000_000_000L;
        while (log.stats().preparedAhead() < log.config().preparedSegments())
        {
            assertTrue(System.nanoTime() - deadline < 0, "the preparer did not fill log " + log.name() + " in 30 s");
            Thread.sleep(10); // polling a background thread's progress with a bounded deadline, not a timed wait
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
