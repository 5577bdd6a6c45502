package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** truncateTo and retention: durable before return, readers keep their batches, appends go on, reopen agrees. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TruncateAndRetentionTest
{
    private static final int SEGMENT = 1 << 20;

    private static StoreConfig config(final Path dir, final LogConfig log)
    {
        return TestStores.store(dir, log).memoryBudget(32L << 20).build();
    }

    private static LogConfig.Builder logConfig()
    {
        return TestStores.log().syncInterval(Duration.ofMillis(20));
    }

    @Test
    void truncateWithinTheActiveSegmentDropsTheTailAndAppendsContinueFromTheCut() throws Exception
    {
        final Path dir = TestDirs.create("truncate-active");
        try (LogStore store = LogStore.open(config(dir, logConfig().build())))
        {
            final Log log = store.log("a");
            RecoveryTest.append(log, 0, 1_000);
            final RecordBatch held = log.read(900, 1 << 20); // a reader holding records that will be dropped
            log.truncateTo(950);
            assertEquals(950, log.endOffset());
            assertEquals(950, log.visibleEndOffset());
            assertThrows(OffsetOutOfRangeException.class, () -> log.read(951, 100));
            int seen = 0;
            for (final Record r : held)
            {
                assertArrayEquals(RecoveryTest.payload(r.offset()), r.payloadBytes(), "held batch stays valid");
                seen++;
            }
            assertTrue(seen > 0);
            held.close();
            RecoveryTest.assertRecords(log, 0, 950);
            final byte[] other = "after the cut".getBytes();
            assertEquals(950, log.append(other).join());
            try (RecordBatch b = log.read(950, 100))
            {
                assertArrayEquals(other, b.iterator().next().payloadBytes());
            }
            log.truncateTo(950);
            RecoveryTest.append(log, 950, 1_200);
        }
        try (LogStore store = LogStore.open(config(dir, logConfig().build())))
        {
            final Log log = store.log("a");
            assertEquals(1_200, log.endOffset());
            RecoveryTest.assertRecords(log, 0, 1_200);
        }
    }

    @Test
    void truncateIntoAnEarlierSegmentDropsLaterSegmentsDurablyEvenAcrossACrash() throws Exception
    {
        final Path dir = TestDirs.create("truncate-rolled");
        final Path image;
        try (LogStore store = LogStore.open(config(dir, logConfig().build())))
        {
            final Log log = store.log("a");
            RecoveryTest.append(log, 0, 12_000); // about 3 segments
            log.truncateTo(1_234);
            assertEquals(1_234, log.endOffset());
            RecoveryTest.assertRecords(log, 0, 1_234);
            image = StoreFiles.crashImage(dir, "truncate-rolled-image"); // durable before return: no close needed
            RecoveryTest.append(log, 1_234, 5_000);
            RecoveryTest.assertRecords(log, 0, 5_000);
            assertThrows(OffsetOutOfRangeException.class, () -> log.truncateTo(5_001));
            assertThrows(OffsetOutOfRangeException.class, () -> log.truncateTo(-1));
        }
        try (LogStore store = LogStore.open(RecoveryTest.config(image, RecoveryMode.ABSOLUTE_CONSISTENCY)))
        {
            final Log log = store.log("a");
            assertEquals(1_234, log.endOffset(), log.recoveryReport().toString());
            RecoveryTest.assertRecords(log, 0, 1_234);
            RecoveryTest.append(log, 1_234, 1_300);
        }
        try (LogStore store = LogStore.open(config(dir, logConfig().build())))
        {
            final Log log = store.log("a");
            assertTrue(log.recoveryReport().cleanShutdown());
            assertEquals(5_000, log.endOffset());
            RecoveryTest.assertRecords(log, 0, 5_000);
            log.truncateTo(0);
            assertEquals(0, log.endOffset());
            assertEquals(0, log.append("again".getBytes()).join());
        }
        try (LogStore store = LogStore.open(config(dir, logConfig().build())))
        {
            final Log log = store.log("a");
            assertEquals(1, log.endOffset());
            try (RecordBatch b = log.read(0, 100))
            {
                assertArrayEquals("again".getBytes(), b.iterator().next().payloadBytes());
            }
        }
    }

    /**
     * A truncation inside a block fills the rest of it with a gap and the next write starts at the next block. A
     * crash right after the truncation, or after appends that follow it, recovers every record in every mode. (A
     * Raft follower whose divergent tail was truncated was refused once, with a watermark at the end of such a gap;
     * this test does not reach that watermark, whose exact sequence is not known: see CrashRecovery's
     * verifyToWatermark.)
     */
    @Test
    void aCrashAfterATruncationInsideABlockRecoversEveryRecordInEveryMode() throws Exception
    {
        final Path dir = TestDirs.create("truncate-gap-crash");
        final Path afterCut;
        final Path afterAppend;
        try (LogStore store = LogStore.open(config(dir, logConfig().build())))
        {
            final Log log = store.log("a");
            RecoveryTest.append(log, 0, 300); // records of a few dozen bytes: the cut lands inside a block
            log.truncateTo(250);
            afterCut = StoreFiles.crashImage(dir, "truncate-gap-crash-cut"); // durable before truncateTo returns
            RecoveryTest.append(log, 250, 260); // acknowledged with the log's default durability
            afterAppend = StoreFiles.crashImage(dir, "truncate-gap-crash-append");
        }
        for (final RecoveryMode mode : RecoveryMode.values())
        {
            for (final Path image : new Path[] {afterCut, afterAppend})
            {
                final Path copy = StoreFiles.crashImage(image, "truncate-gap-crash-" + mode);
                final long expected = image == afterCut ? 250 : 260;
                try (LogStore store = LogStore.open(RecoveryTest.config(copy, mode)))
                {
                    final Log log = store.log("a");
                    assertEquals(expected, log.endOffset(), mode + " " + log.recoveryReport());
                    RecoveryTest.assertRecords(log, 0, expected);
                }
            }
        }
    }

    @Test
    void truncateInsideABatchIsRefusedAndLeavesTheLogUnchanged() throws Exception
    {
        final Path dir = TestDirs.create("truncate-batch");
        try (LogStore store = LogStore.open(config(dir, logConfig().build())))
        {
            final Log log = store.log("a");
            assertEquals(0, log.append(new byte[10], 5, Durability.DSYNC).join());
            assertThrows(IllegalArgumentException.class, () -> log.truncateTo(3));
            assertEquals(5, log.endOffset());
            assertTrue(log.isWritable());
            assertEquals(5, log.append(new byte[1]).join());
        }
    }

    @Test
    void retentionBySizeDeletesWholeOldSegmentsAndMovesTheStartOffset() throws Exception
    {
        final Path dir = TestDirs.create("retention-size");
        try (LogStore store = LogStore.open(config(dir, logConfig().retentionBytes(3L * SEGMENT).build())))
        {
            final Log log = store.log("a");
            RecoveryTest.append(log, 0, 40_000); // about 10 segments
            StoreFiles.awaitCondition(() -> log.startOffset() > 20_000, "retention to drop old segments");
            final OffsetOutOfRangeException e = assertThrows(OffsetOutOfRangeException.class, () -> log.read(0, 100));
            assertTrue(e.startOffset() > 20_000, e.getMessage());
            assertReadableFromStart(log, 40_000);
            // at least retentionBytes of records are kept: 3 full segments, the one retention keeps because
            // dropping it would go below, and the active one. Retention moves the start offset first and gives
            // the dropped files back one by one after it (renamed for the preparer): on a loaded machine the
            // count was once taken in between (8 seen), so it is awaited, bounded
            final Path logDir = dir.resolve("a");
            StoreFiles.awaitCondition(() -> segmentsWithRecords(logDir) <= 5,
                "retention to give back the files of the segments it dropped");
            final long used = segmentsWithRecords(logDir);
            assertTrue(used <= 5, "segments with records kept: " + used);
        }
        try (LogStore store = LogStore.open(config(dir, logConfig().retentionBytes(3L * SEGMENT).build())))
        {
            final Log log = store.log("a");
            assertTrue(log.startOffset() > 20_000);
            assertRecordsFromTheStart(log, 40_000);
        }
    }

    /**
     * Every record from the log's start offset to {@code end} is there. Retention runs on a reopened store too and
     * may move the start offset between reading it and reading from it: then the read is refused, and is made
     * again from the new start (a start that did not move fails the test).
     */
    private static void assertRecordsFromTheStart(final Log log, final long end)
    {
        long start = log.startOffset();
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                RecoveryTest.assertRecords(log, start, end);
                return;
            }
            catch (final OffsetOutOfRangeException e)
            {
                final long moved = log.startOffset();
                assertTrue(moved > start && attempt < 10, "refused although the start offset is still " + start +
                    " (attempt " + attempt + "): " + e.getMessage());
                start = moved;
            }
        }
    }

    @Test
    void retentionByAgeDropsSegmentsWhoseNewestRecordIsTooOld() throws Exception
    {
        final Path dir = TestDirs.create("retention-age");
        try (LogStore store = LogStore.open(config(dir, logConfig().build())))
        {
            RecoveryTest.append(store.log("a"), 0, 10_000);
        }
        try (LogStore store = LogStore.open(config(dir, logConfig().retentionTime(Duration.ofMillis(300)).build())))
        {
            final Log log = store.log("a");
            StoreFiles.awaitCondition(() -> log.startOffset() > 0, "age retention");
            assertFalse(log.startOffset() >= 10_000, "the active segment stays");
            assertReadableFromStart(log, 10_000);
            RecoveryTest.append(log, 10_000, 10_100);
        }
    }

    @Test
    void aDsyncLogShowsOnlyDurableRecordsAndCatchesUpAfterTheBackgroundSync() throws Exception
    {
        final Path dir = TestDirs.create("visibility");
        try (LogStore store = LogStore.open(config(dir, logConfig().syncInterval(Duration.ofMillis(200)).build())))
        {
            final Log log = store.log("a");
            assertEquals(0, log.append("durable".getBytes(), Durability.DSYNC).join());
            assertEquals(1, log.append("direct".getBytes(), Durability.DIRECT).join());
            assertEquals(1, log.visibleEndOffset(), "a DIRECT write is not DSYNC-durable: not yet visible");
            assertTrue(log.awaitAppend(1, Duration.ofSeconds(10)), "visible after the background fdatasync");
            assertEquals(2, log.append("again".getBytes(), Durability.DSYNC).join());
            assertEquals(3, log.visibleEndOffset());
            final LogStats stats = log.stats();
            assertEquals(3, stats.appends());
            assertEquals(7 + 6 + 5, stats.appendedBytes());
        }
    }

    @Test
    void readsRacingCloseGetLogClosedExceptionOnly() throws Exception
    {
        final Path dir = TestDirs.create("close-race");
        for (int round = 0; round < 5; round++)
        {
            final LogStore store = LogStore.open(config(dir, logConfig().build()));
            final Log log = store.log("a" + round);
            RecoveryTest.append(log, 0, 5_000);
            final Throwable[] unexpected = new Throwable[1];
            final Thread reader = new Thread(() ->
            {
                long i = 0;
                while (true)
                {
                    try (RecordBatch b = log.read(i++ % 5_000, 4096))
                    {
                        b.isEmpty();
                    }
                    catch (final LogClosedException e)
                    {
                        return;
                    }
                    catch (final Throwable t)
                    {
                        unexpected[0] = t;
                        return;
                    }
                }
            });
            reader.start();
            store.close();
            reader.join();
            if (unexpected[0] != null)
            {
                throw new AssertionError("a read racing close threw " + unexpected[0], unexpected[0]);
            }
        }
    }

    /** Reads every record from the start offset; a later retention tick may move the start meanwhile: retry. */
    private static void assertReadableFromStart(final Log log, final long end)
    {
        for (int attempt = 0; ; attempt++)
        {
            try
            {
                RecoveryTest.assertRecords(log, log.startOffset(), end);
                return;
            }
            catch (final OffsetOutOfRangeException e)
            {
                assertTrue(attempt < 100, "retention keeps moving the start: " + e.getMessage());
            }
        }
    }

    /** @return segment files whose header is written (a spare's is zero); a file renamed meanwhile is gone. */
    private static long segmentsWithRecords(final Path logDir)
    {
        final List<Path> segments;
        try
        {
            segments = StoreFiles.segments(logDir);
        }
        catch (final java.io.IOException e)
        {
            return Long.MAX_VALUE; // listing raced a rename: ask again
        }
        long used = 0;
        for (final Path seg : segments)
        {
            try
            {
                used += StoreFiles.read(seg, 0, 1)[0] != 0 ? 1 : 0;
            }
            catch (final java.io.IOException e)
            {
                // renamed (given back) since the listing: not kept
            }
        }
        return used;
    }
}
