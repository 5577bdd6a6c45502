package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.time.Duration;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import io.directlog.nativeio.Extent;
import io.directlog.nativeio.NativeFile;
import io.directlog.nativeio.NativeIo;
import io.directlog.nativeio.OpenFlags;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The write path's acceptance: concurrency across hundreds of rolls, segment-boundary edge cases, the proof
 * that the append path makes no fdatasync, group commit, and pre-zeroed segments with no unwritten extent.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class WritePathAcceptanceTest
{
    private static final int SEGMENT = TestStores.SEGMENT;
    private static final int MAX_PAYLOAD = SEGMENT - 4096 - 32;

    /**
     * Payload of producer {@code thread}'s record {@code i}, reproducible from the pair alone: one record in a hundred
     * of up to 64 KiB (producers meet them at different times), the others up to 4 KiB.
     */
    private static byte[] payload(final int thread, final int i)
    {
        return TestStores.payloadUpTo(thread, i, (i + thread) % 100 == 0 ? (64 << 10) - 1 : 4096);
    }

    @Test
    void sixteenProducersMixedDurabilitiesReadBackByteExact() throws Exception
    {
        final Path dir = TestDirs.create("concurrency");
        final int producers = 16;
        final int perProducer = 10_000;
        final long[] origin = new long[producers * perProducer];
        final ExecutorService pool = Executors.newFixedThreadPool(producers);
        try (LogStore store = LogStore.open(TestStores.store(dir, TestStores.log(Durability.DSYNC).build())
            .writerThreads(2).build()))
        {
            final Log log = store.log("concurrent");
            final CountDownLatch start = new CountDownLatch(1);
            final List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < producers; t++)
            {
                final int thread = t;
                done.add(pool.submit(() ->
                {
                    start.await();
                    final List<CompletableFuture<Long>> futures = new ArrayList<>(perProducer);
                    final Random r = new Random(thread);
                    long previous = -1;
                    for (int i = 0; i < perProducer; i++)
                    {
                        final byte[] p = payload(thread, i);
                        final Durability d = Durability.values()[r.nextInt(3)];
                        final CompletableFuture<Long> f;
                        if (i % 2 == 0)
                        {
                            f = log.append(p, d);
                        }
                        else
                        {
                            final CompletableFuture<Long> cf = new CompletableFuture<>();
                            log.append(new UnsafeBuffer(p), 0, p.length, d, (offset, error) ->
                            {
                                if (error != null)
                                {
                                    cf.completeExceptionally(error);
                                }
                                else
                                {
                                    cf.complete(offset);
                                }
                            });
                            f = cf;
                        }
                        futures.add(f);
                    }
                    for (int i = 0; i < perProducer; i++)
                    {
                        final long offset = futures.get(i).get(60, TimeUnit.SECONDS);
                        assertTrue(offset > previous, "one producer's offsets increase");
                        previous = offset;
                        assertEquals(0, origin[(int)offset], "offset " + offset + " given twice");
                        origin[(int)offset] = ((long)thread << 32 | i) + 1;
                    }
                    return null;
                }));
            }
            start.countDown();
            for (final Future<?> f : done)
            {
                f.get(240, TimeUnit.SECONDS);
            }
            assertEquals(producers * perProducer, log.endOffset());
            final LogStats stats = log.stats();
            assertTrue(stats.segmentRolls() > 200, "rolls: " + stats.segmentRolls());
            System.out.printf("WRITE-ACCEPTANCE appends=%d rolls=%d flushes=%d records/flush=%.2f stalls=%d%n",
                stats.appends(), stats.segmentRolls(), stats.flushes(), stats.recordsPerFlush(), stats.preparerStalls());
            verifyAll(log, origin);
        }
        finally
        {
            pool.shutdownNow();
        }
        try (LogStore store = LogStore.open(TestStores.store(dir, TestStores.log(Durability.DSYNC).build())
            .writerThreads(2).build()))
        {
            verifyAll(store.log("concurrent"), origin);
        }
    }

    private static void verifyAll(final Log log, final long[] origin)
    {
        long next = 0;
        while (next < origin.length)
        {
            try (RecordBatch batch = log.read(next, 1 << 20))
            {
                assertFalse(batch.isEmpty(), "offset " + next + " is readable");
                for (final Record r : batch)
                {
                    assertEquals(next, r.offset());
                    final long o = origin[(int)next] - 1;
                    assertTrue(o >= 0, "offset " + next + " was acknowledged to some producer");
                    assertArrayEquals(payload((int)(o >>> 32), (int)o), r.payloadBytes(), "payload of " + next);
                    next++;
                }
            }
        }
    }

    @Test
    void recordsAtSegmentBoundaries() throws Exception
    {
        final Path dir = TestDirs.create("boundaries");
        try (LogStore store = LogStore.open(TestStores.store(dir, TestStores.log(Durability.DIRECT).build())
            .writerThreads(2).build()))
        {
            final Log log = store.log("edges");
            // exactly fills a segment on its own
            assertEquals(0, log.append(new byte[MAX_PAYLOAD]).join());
            // a small record, then one that fills exactly what is left: no roll for it. The small record's write
            // ends its block (block 1): what is left starts at the next block boundary (a gap after the record)
            assertEquals(1, log.append(new byte[100]).join());
            final long rollsBefore = log.stats().segmentRolls();
            final int left = SEGMENT - 2 * 4096;
            assertEquals(2, log.append(new byte[left - 32]).join());
            assertEquals(rollsBefore, log.stats().segmentRolls(), "the exact fit stays in its segment");
            // one byte over what is left rolls to the next segment
            assertEquals(3, log.append(new byte[100]).join());
            assertEquals(4, log.append(new byte[left - 32 + 1]).join());
            assertEquals(rollsBefore + 2, log.stats().segmentRolls());
            // zero-length payloads, also at offset 0 of a new log
            final Log empty = store.log("empty");
            assertEquals(0, empty.append(new byte[0]).join());
            assertEquals(1, empty.append(new byte[0], Durability.DSYNC).join());
            try (RecordBatch b = empty.read(0, 1 << 20))
            {
                assertEquals(2, b.size());
            }
        }
        try (LogStore store = LogStore.open(TestStores.store(dir, TestStores.log(Durability.DIRECT).build())
            .writerThreads(2).build()))
        {
            final Log log = store.log("edges");
            assertEquals(5, log.endOffset());
            final int[] sizes = {MAX_PAYLOAD, 100, SEGMENT - 2 * 4096 - 32, 100, SEGMENT - 2 * 4096 - 32 + 1};
            for (int i = 0; i < 5; i++)
            {
                try (RecordBatch b = log.read(i, 1))
                {
                    assertEquals(sizes[i], b.iterator().next().payloadLength(), "record " + i);
                }
            }
            assertEquals(2, store.log("empty").endOffset());
        }
    }

    /**
     * A DSYNC append is acknowledged only after the write that covers it; on a DSYNC log that write also makes it
     * visible, so every callback must find its record visible. Frequent background syncs (1 ms) hold
     * acknowledgements back often (AckSyncGate), while 8 producers keep copying records: a held-back batch that
     * came back must not take the records copied since along (with that bug, 3 of 5 runs found thousands).
     */
    @Test
    void noDsyncAppendIsAcknowledgedBeforeTheWriteThatCoversIt() throws Exception
    {
        final Path dir = TestDirs.create("ack-after-write");
        try (LogStore store = LogStore.open(StoreConfig.builder(dir).memoryBudget(64L << 20).writerThreads(1)
            .defaultLogConfig(LogConfig.builder().segmentSize(1 << 20).syncInterval(Duration.ofMillis(1)).build())
            .build()))
        {
            final Log log = store.log("a");
            final java.util.concurrent.atomic.AtomicLong early = new java.util.concurrent.atomic.AtomicLong();
            final java.util.concurrent.atomic.AtomicLong acked = new java.util.concurrent.atomic.AtomicLong();
            final java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(8 * 25_000);
            final AppendCallback check = (offset, error) ->
            {
                if (error == null && offset >= log.visibleEndOffset())
                {
                    early.incrementAndGet();
                }
                acked.incrementAndGet();
                done.countDown();
            };
            final List<Thread> producers = new ArrayList<>();
            for (int p = 0; p < 8; p++)
            {
                final Thread t = new Thread(() ->
                {
                    final UnsafeBuffer record = new UnsafeBuffer(new byte[200]);
                    for (int i = 0; i < 25_000; i++)
                    {
                        log.append(record, 0, 200, Durability.DSYNC, check);
                    }
                });
                t.start();
                producers.add(t);
            }
            for (final Thread t : producers)
            {
                t.join();
            }
            assertTrue(done.await(60, TimeUnit.SECONDS), "callbacks: " + acked.get());
            System.out.printf("ack-after-write: %d acknowledged, %d before their write, %d background syncs%n",
                acked.get(), early.get(), log.stats().syncs());
            assertEquals(0, early.get(), "DSYNC acknowledgements before the write that covers them");
        }
    }

    /**
     * Group commit across logs (issue 18): eight producers, each on its own DSYNC log, all logs on one writer
     * thread. On ext4 or XFS the writer flushes the logs that flush in one duty cycle with one fdatasync, so its
     * fdatasync calls are fewer than the logs' flushes (with one O_DSYNC write per log flush it makes none), and
     * every record reads back.
     */
    @Test
    void dsyncLogsOfOneWriterShareOneFdatasyncPerDutyCycle() throws Exception
    {
        Assumptions.assumeTrue(NativeIo.isAvailable(), "native I/O unavailable: " + NativeIo.unavailabilityCause());
        final Path dir = TestDirs.create("shared-flush");
        final ConcurrentHashMap<String, AtomicLong> syncsByThread = new ConcurrentHashMap<>();
        NativeIo.setSyncListener(call -> syncsByThread
            .computeIfAbsent(Thread.currentThread().getName().replaceAll("-\\d+$", ""), k -> new AtomicLong())
            .incrementAndGet());
        final int logs = 8;
        final int appends = 400;
        try (LogStore store = LogStore.open(TestStores.store(dir, TestStores.log(Durability.DSYNC)
            .segmentSize(1 << 20).build()).writerThreads(1).build()))
        {
            final String fs = store.deviceInfo().fileSystemType();
            Assumptions.assumeTrue("ext4".equals(fs) || "xfs".equals(fs), "no shared flush on " + fs);
            final List<Log> all = new ArrayList<>();
            for (int i = 0; i < logs; i++)
            {
                all.add(store.log("shared-" + i));
                all.get(i).append(new byte[100], Durability.DSYNC).join();
            }
            final long flushesBefore = all.stream().mapToLong(l -> l.stats().flushes()).sum();
            syncsByThread.clear();
            final long started = System.nanoTime();
            final ExecutorService pool = Executors.newFixedThreadPool(logs);
            try
            {
                final List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < logs; t++)
                {
                    final Log log = all.get(t);
                    done.add(pool.submit(() ->
                    {
                        for (int i = 0; i < appends; i++)
                        {
                            log.append(payload(log.name().hashCode(), i), Durability.DSYNC).join();
                        }
                        return null;
                    }));
                }
                for (final Future<?> f : done)
                {
                    f.get(120, TimeUnit.SECONDS);
                }
            }
            finally
            {
                pool.shutdownNow();
            }
            final double seconds = (System.nanoTime() - started) / 1e9;
            final long logFlushes = all.stream().mapToLong(l -> l.stats().flushes()).sum() - flushesBefore;
            final long writerSyncs = syncsByThread.getOrDefault("directlog-writer", new AtomicLong()).get();
            System.out.printf("WRITE-ACCEPTANCE shared-flush logs=%d log-flushes=%d writer-fdatasyncs=%d appends/s=%.0f%n",
                logs, logFlushes, writerSyncs, logs * appends / seconds);
            assertTrue(writerSyncs > 0, "no shared fdatasync on the writer: " + syncsByThread);
            assertTrue(writerSyncs < logFlushes, writerSyncs + " fdatasyncs for " + logFlushes + " log flushes");
            for (final Log log : all)
            {
                assertEquals(appends + 1, log.endOffset());
                for (long at = 1; at < log.endOffset(); )
                {
                    try (RecordBatch batch = log.read(at, 1 << 16))
                    {
                        assertFalse(batch.isEmpty(), log.name() + " at " + at);
                        for (final Record r : batch)
                        {
                            assertArrayEquals(payload(log.name().hashCode(), (int)at - 1), r.payloadBytes(),
                                log.name() + " at " + at);
                            at++;
                        }
                    }
                }
            }
        }
        finally
        {
            NativeIo.setSyncListener(null);
        }
    }

    @Test
    void directAppendPathMakesNoSyncCallAndGroupsCommits() throws Exception
    {
        Assumptions.assumeTrue(NativeIo.isAvailable(), "native I/O unavailable: " + NativeIo.unavailabilityCause());
        final Path dir = TestDirs.create("nosync");
        final ConcurrentHashMap<String, AtomicLong> syncsByThread = new ConcurrentHashMap<>();
        NativeIo.setSyncListener(call -> syncsByThread
            .computeIfAbsent(Thread.currentThread().getName().replaceAll("-\\d+$", ""), k -> new AtomicLong())
            .incrementAndGet());
        try (LogStore store = LogStore.open(TestStores.store(dir, TestStores.log(Durability.DIRECT).build())
            .writerThreads(2).build()))
        {
            // the claim is the O_DIRECT path's: the buffered fallback (directlog.io.buffered=true, or no O_DIRECT
            // here) writes through the page cache and makes DIRECT appends durable with fdatasync, and on a
            // copy-on-write filesystem DIRECT appends are DSYNC; neither counts native pwrites per append
            final DeviceInfo device = store.deviceInfo();
            Assumptions.assumeTrue(device.directIo() && !device.copyOnWrite(), "the store does not append through " +
                "O_DIRECT in place here (" + StoreConfig.BUFFERED_IO_PROP_NAME + "=" +
                Boolean.getBoolean(StoreConfig.BUFFERED_IO_PROP_NAME) + "): " + device);
            final Log log = store.log("direct");
            final long pwritesBefore = NativeIo.callCounts().pwrite();
            for (int i = 0; i < 10_000; i++)
            {
                log.append(new byte[100], Durability.DIRECT).join();
            }
            final long writerSyncs = syncsByThread.getOrDefault("directlog-writer", new AtomicLong()).get();
            assertEquals(0, writerSyncs, "fdatasync/fsync calls on writer threads: " + syncsByThread);
            assertTrue(NativeIo.callCounts().pwrite() - pwritesBefore >= 10_000 / 2, "one pwrite per closed-loop append");

            final Log grouped = store.log("grouped");
            final ExecutorService pool = Executors.newFixedThreadPool(16);
            try
            {
                final List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 16; t++)
                {
                    done.add(pool.submit(() ->
                    {
                        for (int i = 0; i < 1000; i++)
                        {
                            grouped.append(new byte[100], Durability.DIRECT).join();
                        }
                        return null;
                    }));
                }
                for (final Future<?> f : done)
                {
                    f.get(120, TimeUnit.SECONDS);
                }
            }
            finally
            {
                pool.shutdownNow();
            }
            final double perFlush = grouped.stats().recordsPerFlush();
            System.out.printf("WRITE-ACCEPTANCE direct-16-producers records/pwrite=%.2f syncsByThread=%s%n", perFlush,
                syncsByThread);
            assertTrue(perFlush > 1.0, "records per pwrite with 16 producers: " + perFlush);
            assertEquals(0, syncsByThread.getOrDefault("directlog-writer", new AtomicLong()).get());
        }
        finally
        {
            NativeIo.setSyncListener(null);
        }
    }

    @Test
    void preparedSegmentsAheadOfTheWriterHaveNoUnwrittenExtent() throws Exception
    {
        Assumptions.assumeTrue(NativeIo.isAvailable(), "native I/O unavailable: " + NativeIo.unavailabilityCause());
        final Path dir = TestDirs.create("fiemap");
        try (LogStore store = LogStore.open(TestStores.store(dir, TestStores.log(Durability.DSYNC).build())
            .writerThreads(2).build()))
        {
            final Log log = store.log("f");
            for (int i = 0; i < 20; i++)
            {
                log.append(new byte[200_000]).join(); // several rolls
            }
            final Path logDir = dir.resolve("f");
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            List<Path> ahead;
            do
            {
                ahead = preparedAhead(logDir, log);
            }
            while (ahead.size() < 2 && System.nanoTime() < deadline);
            assertTrue(ahead.size() >= 2, "prepared segments ahead: " + ahead);
            for (final Path p : ahead)
            {
                try (NativeFile f = NativeFile.open(p, OpenFlags.READ_ONLY | OpenFlags.CLOEXEC))
                {
                    final List<Extent> extents = f.extents(0, SEGMENT);
                    assertNotNull(extents);
                    assertFalse(extents.isEmpty(), "a prepared segment is allocated: " + p);
                    for (final Extent e : extents)
                    {
                        assertFalse(e.unwritten(), p.getFileName() + " has an unwritten extent " + e);
                    }
                }
            }
        }
    }

    private static List<Path> preparedAhead(final Path logDir, final Log log) throws Exception
    {
        final List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.list(logDir))
        {
            s.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().forEach(files::add);
        }
        // the writer has used rolls+1 segments; the rest are prepared ahead
        final int used = (int)log.stats().segmentRolls() + 1;
        return files.size() > used ? files.subList(used, files.size()) : List.of();
    }
}
