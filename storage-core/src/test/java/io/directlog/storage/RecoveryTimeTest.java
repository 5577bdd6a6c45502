package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 5's recovery-time figures (tagged slow: {@code mvn -Pstress -Dtest=RecoveryTimeTest}): open time of a
 * 10 GiB store (10 logs x 1 GiB, 64 MiB segments) after a clean close and after a crash, and of a log whose
 * active segment holds 1 GiB. A crash image is a copy of the open store's files (what O_DIRECT writes leave
 * after a process kill), followed by {@code sync} so that recovery's own fdatasync measures recovery, not the copy.
 * Prints RECOVERY-TIME lines (the target is 2 s; times are measured and printed, never asserted). What it asserts is
 * why the time stays bounded: a clean open reads no record data, and a crash recovery reads the unfinished tail
 * (at most the active segment of each log), not the log.
 */
@Tag("slow")
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class RecoveryTimeTest
{
    private static final long GIB = 1L << 30;

    private static StoreConfig config(final Path dir, final int segmentSize, final long budget)
    {
        return StoreConfig.builder(dir).memoryBudget(budget).writerThreads(2).appendTimeout(Duration.ofSeconds(120))
            .defaultLogConfig(LogConfig.builder().segmentSize(segmentSize).durability(Durability.DIRECT)
                .syncInterval(Duration.ofMillis(200)).build()).build();
    }

    /** Appends {@code bytes} of 1 MiB records, at most 32 in flight, then one DSYNC record. */
    private static void fill(final Log log, final long bytes)
    {
        final byte[] record = new byte[(1 << 20) - 64];
        for (int i = 0; i < record.length; i++)
        {
            record[i] = (byte)(i * 7);
        }
        final Semaphore inFlight = new Semaphore(32);
        final AtomicReference<Throwable> error = new AtomicReference<>();
        for (long written = 0; written < bytes; written += record.length)
        {
            inFlight.acquireUninterruptibly();
            log.append(record, Durability.DIRECT).whenComplete((o, e) ->
            {
                if (e != null)
                {
                    error.compareAndSet(null, e);
                }
                inFlight.release();
            });
        }
        log.append(new byte[100], Durability.DSYNC).join();
        if (error.get() != null)
        {
            throw new AssertionError(error.get());
        }
    }

    /** @return bytes of segment data the open read, over all logs (its RecoveryReports' scannedBytes). */
    private static long timeOpen(final StoreConfig config, final String what, final int logs) throws IOException
    {
        final long start = System.nanoTime();
        try (LogStore store = LogStore.open(config))
        {
            final long millis = (System.nanoTime() - start) / 1_000_000;
            long scanned = 0;
            long worst = 0;
            boolean clean = true;
            long end = 0;
            for (final String name : store.logNames())
            {
                final Log log = store.log(name);
                scanned += log.recoveryReport().scannedBytes();
                worst = Math.max(worst, log.recoveryReport().recoveryMillis());
                clean &= log.recoveryReport().cleanShutdown();
                end += log.endOffset();
            }
            assertEquals(logs, store.logNames().size());
            System.out.printf("RECOVERY-TIME %s: store open %d ms (%d logs, clean=%s, scanned %.1f MiB, slowest log %d ms," +
                " %d records)%n", what, millis, logs, clean, scanned / (double)(1 << 20), worst, end);
            return scanned;
        }
    }

    private static void sync() throws IOException, InterruptedException
    {
        new ProcessBuilder("sync").inheritIO().start().waitFor();
    }

    private static void delete(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            for (final Path p : (Iterable<Path>)files.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.deleteIfExists(p);
            }
        }
    }

    @Test
    void aTenGibStoreOpensWithinTwoSecondsAfterACleanCloseAndAfterACrash() throws Exception
    {
        final Path dir = TestDirs.create("recovery-time-10g");
        final int logs = 10;
        final int segment = 64 << 20;
        final long budget = 2 * GIB;
        Path image = null;
        try
        {
            try (LogStore store = LogStore.open(config(dir, segment, budget)))
            {
                for (int i = 0; i < logs; i++)
                {
                    fill(store.log("log-" + i), GIB);
                }
            }
            sync();
            final long clean = timeOpen(config(dir, segment, budget), "10 GiB store, after a clean close", logs);
            assertEquals(0, clean, "a clean open reads no record data");
            try (LogStore store = LogStore.open(config(dir, segment, budget)))
            {
                for (int i = 0; i < logs; i++)
                {
                    fill(store.log("log-" + i), 8L << 20); // a little more after the reopen: the tail to recover
                }
                image = StoreFiles.crashImage(dir, "recovery-time-10g-crash");
            }
            sync();
            final long crash = timeOpen(config(image, segment, budget), "10 GiB store, after a crash", logs);
            assertTrue(crash <= (long)logs * segment, "recovery read " + crash + " bytes of a 10 GiB store: more " +
                "than the active segments");
        }
        finally
        {
            delete(dir);
            if (image != null)
            {
                delete(image);
            }
        }
    }

    @Test
    void aLogWithAOneGibActiveSegmentOpensWithinTwoSeconds() throws Exception
    {
        final Path dir = TestDirs.create("recovery-time-1g-active");
        final int segment = 1 << 30;
        final long budget = 3 * GIB;
        Path image = null;
        try
        {
            try (LogStore store = LogStore.open(config(dir, segment, budget)))
            {
                fill(store.log("big"), GIB - (64L << 20));
            }
            sync();
            final long clean = timeOpen(config(dir, segment, budget), "1 GiB active segment, after a clean close", 1);
            assertEquals(0, clean, "a clean open reads no record data");
            try (LogStore store = LogStore.open(config(dir, segment, budget)))
            {
                final Log log = store.log("big");
                fill(log, 16L << 20);
                StoreFiles.awaitWatermark(dir.resolve("big"), log.endOffset());
                fill(log, 8L << 20); // beyond the watermark
                image = StoreFiles.crashImage(dir, "recovery-time-1g-crash");
            }
            sync();
            try (LogStore store = LogStore.open(config(image, segment, budget)))
            {
                final RecoveryReport r = store.log("big").recoveryReport();
                System.out.println("RECOVERY-TIME 1 GiB active segment, after a crash: " + r);
                assertFalse(r.cleanShutdown());
                // the records above the last persisted index (every 16 MiB) and the watermark, and the zeros after
                // them: the 24 MiB appended since the reopen and the last 64 MiB written before it are in play
                assertTrue(r.scannedBytes() <= (128L << 20), "scanned " + r.scannedBytes() + " bytes of 1 GiB");
            }
        }
        finally
        {
            delete(dir);
            if (image != null)
            {
                delete(image);
            }
        }
    }

    @Test
    void aCrashWithANearlyEmptyOneGibActiveSegmentReadsTheRestOfItOnce() throws Exception
    {
        final Path dir = TestDirs.create("recovery-time-1g-empty");
        final int segment = 1 << 30;
        final long budget = 3 * GIB;
        Path image = null;
        try
        {
            try (LogStore store = LogStore.open(config(dir, segment, budget)))
            {
                fill(store.log("big"), 8L << 20);
                image = StoreFiles.crashImage(dir, "recovery-time-1g-empty-crash");
            }
            sync();
            try (LogStore store = LogStore.open(config(image, segment, budget)))
            {
                final RecoveryReport r = store.log("big").recoveryReport();
                System.out.println("RECOVERY-TIME 1 GiB active segment holding 8 MiB, after a crash (worst case: the " +
                    "rest of the segment is read to prove it zero): " + r);
                assertFalse(r.cleanShutdown());
                assertEquals(segment - 4096, r.scannedBytes(), "the rest of the segment is read once, to prove it zero");
            }
        }
        finally
        {
            delete(dir);
            if (image != null)
            {
                delete(image);
            }
        }
    }
    /**
     * The same worst case in a recycled segment (retention of one segment gave its file back, reused without
     * zero-filling): the rest is read once, the stale records there are taken for the end, and recovery zeroes the
     * rest on disk, a write of up to a segment on top of the read.
     */
    @Test
    void aCrashInANearlyEmptyRecycledOneGibSegmentReadsAndZeroesItsRestOnce() throws Exception
    {
        final Path dir = TestDirs.create("recovery-time-1g-recycled");
        final int segment = 1 << 30;
        final long budget = 4 * GIB;
        final java.util.function.Function<Path, StoreConfig> config = d -> StoreConfig.builder(d).memoryBudget(budget)
            .writerThreads(2).appendTimeout(Duration.ofSeconds(120)).defaultLogConfig(LogConfig.builder()
                .segmentSize(segment).durability(Durability.DIRECT).syncInterval(Duration.ofMillis(100))
                .retentionBytes(GIB).build()).build();
        Path image = null;
        try
        {
            try (LogStore store = LogStore.open(config.apply(dir)))
            {
                final Log log = store.log("big");
                final Path logDir = dir.resolve("big");
                long written = 0;
                while (!newestIsRecycled(logDir))
                {
                    assertTrue(written < 16 * GIB, "no recycled segment after 16 GiB");
                    fill(log, 64L << 20);
                    written += 64L << 20;
                }
                fill(log, 8L << 20);
                image = StoreFiles.crashImage(dir, "recovery-time-1g-recycled-crash");
            }
            sync();
            final long start = System.nanoTime();
            try (LogStore store = LogStore.open(config.apply(image)))
            {
                final RecoveryReport r = store.log("big").recoveryReport();
                System.out.println("RECOVERY-TIME 1 GiB recycled active segment holding 8 MiB or more, after a crash " +
                    "(store open " + (System.nanoTime() - start) / 1_000_000 + " ms): " + r);
                assertFalse(r.cleanShutdown());
                assertFalse(r.tornTail(), "stale records after the end are not damage");
            }
        }
        finally
        {
            delete(dir);
            if (image != null)
            {
                delete(image);
            }
        }
    }

    /** @return true when the log's newest segment with a header was made from a recycled file. */
    private static boolean newestIsRecycled(final Path logDir) throws IOException
    {
        final java.util.List<Path> segments = StoreFiles.segments(logDir);
        for (int i = segments.size() - 1; i >= 0; i--)
        {
            final java.nio.ByteBuffer h = java.nio.ByteBuffer.wrap(StoreFiles.read(segments.get(i), 0, 64))
                .order(java.nio.ByteOrder.nativeOrder());
            if (h.getLong(0) == io.directlog.storage.format.SegmentHeaderDescriptor.MAGIC)
            {
                return (h.getInt(io.directlog.storage.format.SegmentHeaderDescriptor.FLAGS_OFFSET) &
                    io.directlog.storage.format.SegmentHeaderDescriptor.FLAG_RECYCLED) != 0;
            }
        }
        return false;
    }
}
