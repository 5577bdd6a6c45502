package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The durable watermark, clean shutdown and the recovery modes: what opening reads, where it cuts, and what it
 * refuses, on real files (crash images are copies of an open store's directory).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RecoveryTest
{
    private static final int SEGMENT = 1 << 20;

    static StoreConfig config(final Path dir, final RecoveryMode mode)
    {
        return TestStores.store(dir, TestStores.log().syncInterval(Duration.ofMillis(20)).build())
            .memoryBudget(32L << 20).recoveryMode(mode).build();
    }

    /** 100 to 399 bytes, the same for the same offset, which it carries in its first 8 bytes. */
    static byte[] payload(final long offset)
    {
        return TestStores.payload(0, offset, 100 + (int)(offset % 300));
    }

    static void append(final Log log, final long from, final long to)
    {
        final java.util.List<java.util.concurrent.CompletableFuture<Long>> futures = new java.util.ArrayList<>();
        for (long i = from; i < to; i++)
        {
            futures.add(log.append(payload(i)));
        }
        for (int i = 0; i < futures.size(); i++)
        {
            assertEquals(from + i, futures.get(i).join());
        }
    }

    static void assertRecords(final Log log, final long from, final long to)
    {
        long next = from;
        while (next < to)
        {
            try (RecordBatch batch = log.read(next, 1 << 16))
            {
                final long at = next;
                assertFalse(batch.isEmpty(), () -> "offset " + at + " readable (start " + log.startOffset() +
                    ", visible end " + log.visibleEndOffset() + ", end " + log.endOffset() + ")");
                for (final Record r : batch)
                {
                    assertEquals(next, r.offset());
                    assertArrayEquals(payload(next), r.payloadBytes(), "payload of " + next);
                    next++;
                }
            }
        }
    }

    /**
     * Issue 17, defect 8 (a clean close leaving an index the next open rejects): crash recovery verifies the record
     * that ends at the watermark again, from the persisted index's end, and indexes it as it goes. When that index's
     * last entry was that very record (the first record after a clean open always takes one), the record had two
     * entries, the index the next clean close wrote was out of order, and the open after it scanned the segment
     * instead of opening clean.
     */
    @Test
    void aCleanCloseAfterCrashRecoveryLeavesAnIndexTheNextOpenTakes() throws Exception
    {
        final Path dir = TestDirs.create("index-twice");
        // no syncer tick in between: the crash image's watermark is the second clean close's end
        final StoreConfig config = TestStores.store(dir, TestStores.log().syncInterval(Duration.ofHours(1)).build())
            .memoryBudget(32L << 20).build();
        try (LogStore store = LogStore.open(config))
        {
            append(store.log("a"), 0, 100);
        }
        try (LogStore store = LogStore.open(config))
        {
            append(store.log("a"), 100, 101); // the persisted index ends with this record's entry
        }
        final Path image;
        try (LogStore store = LogStore.open(config))
        {
            append(store.log("a"), 101, 110);
            image = StoreFiles.crashImage(dir, "index-twice-image");
        }
        final StoreConfig imageConfig = TestStores.store(image, TestStores.log().syncInterval(Duration.ofHours(1))
            .build()).memoryBudget(32L << 20).build();
        try (LogStore store = LogStore.open(imageConfig))
        {
            final Log log = store.log("a");
            assertFalse(log.recoveryReport().cleanShutdown(), log.recoveryReport().toString());
            assertEquals(110, log.endOffset(), log.recoveryReport().toString());
            append(log, 110, 111);
        }
        try (LogStore store = LogStore.open(imageConfig))
        {
            final Log log = store.log("a");
            final RecoveryReport report = log.recoveryReport();
            assertTrue(report.cleanShutdown() && report.scannedBytes() == 0, "the index is taken: " + report);
            assertRecords(log, 0, 111);
        }
    }

    @Test
    void aCleanCloseReopensWithoutScanningAnySegmentData() throws Exception
    {
        final Path dir = TestDirs.create("clean");
        try (LogStore store = LogStore.open(config(dir, RecoveryMode.TOLERATE_TORN_TAIL)))
        {
            append(store.log("a"), 0, 20_000); // several segments
        }
        try (LogStore store = LogStore.open(config(dir, RecoveryMode.TOLERATE_TORN_TAIL)))
        {
            final Log log = store.log("a");
            final RecoveryReport report = log.recoveryReport();
            System.out.println("RECOVERY clean: " + report);
            assertTrue(report.cleanShutdown(), report.toString());
            assertEquals(0, report.scannedBytes());
            assertEquals(20_000, log.endOffset());
            assertRecords(log, 0, 20_000);
            append(log, 20_000, 21_000);
            assertRecords(log, 19_500, 21_000);
        }
        try (LogStore store = LogStore.open(config(dir, RecoveryMode.ABSOLUTE_CONSISTENCY)))
        {
            final Log log = store.log("a");
            assertTrue(log.recoveryReport().cleanShutdown());
            assertRecords(log, 0, 21_000);
        }
    }

    @Test
    void afterACrashOnlyTheTailBeyondTheWatermarkIsScanned() throws Exception
    {
        final Path dir = TestDirs.create("crash");
        final Path image;
        final int big = 64 << 20;
        final byte[] record = new byte[8 << 10];
        final java.util.function.Function<Path, StoreConfig> cfg = d -> StoreConfig.builder(d)
            .memoryBudget(320L << 20).writerThreads(1).defaultLogConfig(LogConfig.builder().segmentSize(big)
                .syncInterval(Duration.ofMillis(20)).durability(Durability.DIRECT).build()).build();
        try (LogStore store = LogStore.open(cfg.apply(dir)))
        {
            final Log log = store.log("a");
            for (int i = 0; i < 5_000; i++) // 40 MiB: the syncer persists the active index every 16 MiB
            {
                log.append(record, Durability.DIRECT);
            }
            assertEquals(4_999, log.append(record, Durability.DSYNC).join() - 1);
            StoreFiles.awaitWatermark(dir.resolve("a"), 5_001);
            StoreFiles.awaitCondition(() -> Files.exists(dir.resolve("a").resolve(String.format("%020d.idx", 0))),
                "the syncer persisting the active segment's index");
            image = StoreFiles.crashImage(dir, "crash-image");
        }
        try (LogStore store = LogStore.open(cfg.apply(image)))
        {
            final Log log = store.log("a");
            final RecoveryReport report = log.recoveryReport();
            System.out.println("RECOVERY crash of a 40 MiB active segment: " + report);
            assertFalse(report.cleanShutdown());
            assertTrue(report.scannedBytes() < big - (16 << 20), "scanned only from the persisted index: " + report);
            assertEquals(5_001, log.endOffset());
            long next = 0;
            while (next < 5_001)
            {
                try (RecordBatch batch = log.read(next, 1 << 20))
                {
                    for (final Record r : batch)
                    {
                        assertEquals(next++, r.offset());
                        assertEquals(record.length, r.payloadBytes().length);
                    }
                }
            }
            assertEquals(5_001, log.append(record).join());
        }
    }

    /** Writes records, waits for the watermark at {@code durable}, writes more, and returns a crash image. */
    static Path imageWithTail(final String name, final long durable, final long end) throws Exception
    {
        final Path dir = TestDirs.create(name);
        try (LogStore store = LogStore.open(config(dir, RecoveryMode.TOLERATE_TORN_TAIL)))
        {
            final Log log = store.log("a");
            append(log, 0, durable);
            StoreFiles.awaitWatermark(dir.resolve("a"), durable);
            // stop the syncer from moving the watermark past the records below: a long sync interval from now on
            log.reconfigure(log.config().toBuilder().syncInterval(Duration.ofHours(1)).build());
            StoreFiles.awaitCondition(() -> true, "config");
            append(log, durable, end);
            return StoreFiles.crashImage(dir, name + "-image");
        }
    }

    @Test
    void aTornTailBeyondTheWatermarkIsCutInTheDefaultModeAndRefusedInAbsoluteConsistency() throws Exception
    {
        final Path image = imageWithTail("torn", 500, 600);
        final Path logDir = image.resolve("a");
        final long[] cp = StoreFiles.checkpoint(logDir);
        final Path last = logDir.resolve(String.format("%020d.log", cp[1]));
        // the last record torn: a byte of it never made it
        StoreFiles.flip(last, StoreFiles.lastRecordByte(last));
        final Path copy = StoreFiles.crashImage(image, "torn-copy");
        final CorruptLogException refused = assertThrows(CorruptLogException.class,
            () -> LogStore.open(config(image, RecoveryMode.ABSOLUTE_CONSISTENCY)).close());
        assertTrue(refused.getMessage().contains(last.getFileName().toString()), refused.getMessage());
        try (LogStore store = LogStore.open(config(copy, RecoveryMode.TOLERATE_TORN_TAIL)))
        {
            final Log log = store.log("a");
            final RecoveryReport report = log.recoveryReport();
            System.out.println("RECOVERY torn: " + report);
            assertTrue(report.tornTail());
            assertEquals(599, log.endOffset(), "cut before the torn record");
            assertRecords(log, 0, log.endOffset());
            final long end = log.endOffset();
            append(log, end, end + 10);
        }
    }

    @Test
    void damageBelowTheWatermarkIsCorruptionButTruncateModeCutsAndCountsTheDroppedRecords() throws Exception
    {
        final Path image = imageWithTail("below", 3_000, 3_100);
        final Path logDir = image.resolve("a");
        final long[] cp = StoreFiles.checkpoint(logDir);
        final Path watermarkSegment = StoreFiles.segments(logDir).stream()
            .filter(p -> p.getFileName().toString().equals(String.format("%020d.log", cp[1]))).findFirst().orElseThrow();
        // a bit flip in the record that ends at the watermark
        final long position = cp[2] - 40;
        StoreFiles.flip(watermarkSegment, position);
        final Path copy = StoreFiles.crashImage(image, "below-copy");
        final CorruptLogException e = assertThrows(CorruptLogException.class,
            () -> LogStore.open(config(image, RecoveryMode.TOLERATE_TORN_TAIL)).close());
        System.out.println("RECOVERY below: " + e.getMessage());
        assertTrue(e.getMessage().contains("'a'") && e.getMessage().contains(watermarkSegment.getFileName().toString()) &&
            e.getMessage().contains("position") && e.getMessage().contains("offset"), e.getMessage());
        try (LogStore store = LogStore.open(config(copy, RecoveryMode.TRUNCATE_AT_CORRUPTION)))
        {
            final Log log = store.log("a");
            final RecoveryReport report = log.recoveryReport();
            System.out.println("RECOVERY truncate: " + report);
            // the records end at the cut, below the watermark; the log goes on at the watermark's offset, after a
            // hole in the offsets (issue 17: the offsets it covered are never given to a second record)
            assertTrue(report.cutOffset() < 3_000, report.toString());
            // the highest offset known: the valid records found after the damage reach beyond the watermark
            assertTrue(log.endOffset() >= cp[3], report.toString());
            assertEquals(report.droppedToOffset(), log.endOffset(), report.toString());
            assertEquals(3_100 - report.cutOffset(), report.droppedRecords(), report.toString());
            assertRecords(log, 0, report.cutOffset());
            final long end = log.endOffset();
            append(log, end, end + 10);
        }
    }

    @Test
    void validRecordsAfterABadOneBeyondTheWatermarkAreCorruptionNotATornTail() throws Exception
    {
        final Path image = imageWithTail("after", 200, 400);
        final Path logDir = image.resolve("a");
        final long[] cp = StoreFiles.checkpoint(logDir);
        final Path last = logDir.resolve(String.format("%020d.log", cp[1]));
        StoreFiles.flip(last, cp[2] + 40); // inside the first record after the watermark; valid ones follow
        final CorruptLogException e = assertThrows(CorruptLogException.class,
            () -> LogStore.open(config(image, RecoveryMode.TOLERATE_TORN_TAIL)).close());
        assertTrue(e.getMessage().contains("valid records follow"), e.getMessage());
    }

    @Test
    void aBadHeaderInTheNewestSegmentWithValidRecordsBehindItIsCorruption() throws Exception
    {
        final Path image = imageWithTail("header", 100, 9_000); // rolls into a segment the watermark never saw
        final Path logDir = image.resolve("a");
        final List<Path> segs = StoreFiles.segments(logDir);
        Path newest = null;
        for (final Path p : segs)
        {
            if (StoreFiles.read(p, 0, 8)[0] != 0)
            {
                newest = p;
            }
        }
        assertNotNull(newest);
        StoreFiles.flip(newest, 30);
        final CorruptLogException e = assertThrows(CorruptLogException.class,
            () -> LogStore.open(config(image, RecoveryMode.TOLERATE_TORN_TAIL)).close());
        assertTrue(e.getMessage().contains(newest.getFileName().toString()), e.getMessage());
    }

    @Test
    void aTornFirstHeaderWithNothingBehindItIsReusedAsAPreparedSegment() throws Exception
    {
        final Path dir = TestDirs.create("torn-header");
        // full-size segments from the first: a log keeps prepared files ahead only there (on the segment-size
        // ladder, a log of 10 records has none); the reopen below runs on the ladder's defaults
        try (LogStore store = LogStore.open(TestStores.store(dir, TestStores.log().initialSegmentSize(TestStores.SEGMENT)
            .syncInterval(Duration.ofMillis(20)).build()).memoryBudget(32L << 20).build()))
        {
            append(store.log("a"), 0, 10);
            StoreFiles.awaitCondition(() -> blankSpares(dir.resolve("a")) > 0, "a prepared spare");
        }
        final Path logDir = dir.resolve("a");
        final List<Path> segs = StoreFiles.segments(logDir);
        final Path spare = segs.get(segs.size() - 1);
        assertEquals(0, StoreFiles.read(spare, 0, 1)[0]);
        StoreFiles.write(spare, 0, new byte[] {9, 9, 9, 9}); // a torn first write of its header, nothing else
        try (LogStore store = LogStore.open(config(dir, RecoveryMode.TOLERATE_TORN_TAIL)))
        {
            final Log log = store.log("a");
            assertEquals(10, log.endOffset());
            append(log, 10, 12_000); // rolls through re-zeroed files
            assertRecords(log, 0, 12_000);
        }
    }

    private static int blankSpares(final Path logDir)
    {
        try
        {
            final List<Path> segs = StoreFiles.segments(logDir);
            return segs.size() > 1 && StoreFiles.read(segs.get(segs.size() - 1), 0, 1)[0] == 0 ? 1 : 0;
        }
        catch (final java.io.IOException e)
        {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void closedFilesAndIndexesAreWhereTheFormatSays() throws Exception
    {
        final Path dir = TestDirs.create("files");
        try (LogStore store = LogStore.open(config(dir, RecoveryMode.TOLERATE_TORN_TAIL)))
        {
            append(store.log("a"), 0, 12_000);
        }
        final Path logDir = dir.resolve("a");
        final long[] cp = StoreFiles.checkpoint(logDir);
        assertEquals(1, cp[4] & 1, "clean flag");
        assertEquals(12_000, cp[3]);
        for (final Path seg : StoreFiles.segments(logDir))
        {
            if (StoreFiles.read(seg, 0, 1)[0] != 0)
            {
                final Path idx = logDir.resolve(seg.getFileName().toString().replace(".log", ".idx"));
                assertTrue(Files.exists(idx), "index of " + seg);
            }
        }
    }

    /** Rewrites the newest checkpoint slot's flags (and its CRC32C), as a crash part-way through a write would. */
    private static void rewriteNewestSlot(final Path logDir, final int flags, final boolean tear) throws Exception
    {
        final Path file = logDir.resolve("checkpoint");
        final java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(Files.readAllBytes(file))
            .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        final int slot = b.getLong(16) > b.getLong(4096 + 16) ? 0 : 4096;
        b.putInt(slot + 12, flags);
        // version 2 added the segment list before the CRC, version 3 the segments taken after the watermark's
        final int version = b.getInt(slot + 8);
        final int crcAt = version == 1 ? 80 : version == 2 ? 104 : 124;
        final java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(b.array(), slot, crcAt);
        b.putInt(slot + crcAt, tear ? (int)crc.getValue() ^ 1 : (int)crc.getValue());
        Files.write(file, b.array());
    }

    @Test
    void aTornCheckpointSlotFallsBackToTheOlderSlot() throws Exception
    {
        final Path image = imageWithTail("slot", 1_000, 1_200);
        rewriteNewestSlot(image.resolve("a"), 0, true);
        try (LogStore store = LogStore.open(config(image, RecoveryMode.ABSOLUTE_CONSISTENCY)))
        {
            final Log log = store.log("a");
            assertEquals(1_200, log.endOffset(), log.recoveryReport().toString());
            assertRecords(log, 0, 1_200);
        }
    }

    @Test
    void aTruncationInterruptedByACrashEndsTheLogAtTheCutEvenWithValidRecordsAfterIt() throws Exception
    {
        final Path image = imageWithTail("truncating", 700, 900);
        final long[] cp = StoreFiles.checkpoint(image.resolve("a"));
        rewriteNewestSlot(image.resolve("a"), 2, false); // the TRUNCATING flag at the watermark
        try (LogStore store = LogStore.open(config(image, RecoveryMode.ABSOLUTE_CONSISTENCY)))
        {
            final Log log = store.log("a");
            assertEquals(cp[3], log.endOffset(), log.recoveryReport().toString());
            assertRecords(log, 0, cp[3]);
            append(log, cp[3], cp[3] + 10);
        }
        try (LogStore store = LogStore.open(config(image, RecoveryMode.ABSOLUTE_CONSISTENCY)))
        {
            assertEquals(cp[3] + 10, store.log("a").endOffset());
        }
    }

    @Test
    void aMemoryLogAndADirectLogReopenCleanlyAndAfterACrash() throws Exception
    {
        for (final Durability durability : new Durability[] {Durability.MEMORY, Durability.DIRECT})
        {
            final Path dir = TestDirs.create("mode-" + durability);
            final StoreConfig cfg = StoreConfig.builder(dir).memoryBudget(32L << 20).writerThreads(1)
                .defaultLogConfig(LogConfig.builder().segmentSize(SEGMENT).durability(durability)
                    .syncInterval(Duration.ofMillis(20)).build()).build();
            final Path image;
            try (LogStore store = LogStore.open(cfg))
            {
                final Log log = store.log("a");
                append(log, 0, 6_000);
                log.append(payload(6_000), Durability.DSYNC).join();
                image = StoreFiles.crashImage(dir, "mode-image-" + durability);
            }
            try (LogStore store = LogStore.open(cfg))
            {
                assertTrue(store.log("a").recoveryReport().cleanShutdown());
                assertRecords(store.log("a"), 0, 6_001);
            }
            final StoreConfig imageCfg = StoreConfig.builder(image).memoryBudget(32L << 20).writerThreads(1)
                .recoveryMode(RecoveryMode.ABSOLUTE_CONSISTENCY).defaultLogConfig(cfg.defaultLogConfig()).build();
            try (LogStore store = LogStore.open(imageCfg))
            {
                final Log log = store.log("a");
                assertEquals(6_001, log.endOffset(), durability + " " + log.recoveryReport());
                assertRecords(log, 0, 6_001);
            }
        }
    }
}
