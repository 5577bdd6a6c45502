package io.directlog.storage;

import static io.directlog.storage.RecycledSegments.HEADER;
import static io.directlog.storage.RecycledSegments.SEGMENT;
import static io.directlog.storage.RecycledSegments.fillUntilRecycledSegmentIsActive;
import static io.directlog.storage.RecycledSegments.header;
import static io.directlog.storage.RecycledSegments.isRecycled;
import static io.directlog.storage.RecycledSegments.newestSegment;
import static io.directlog.storage.RecycledSegments.watermarkSegment;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.storage.format.SegmentHeaderDescriptor;

/**
 * Segment files that retention gives back are reused without being zero-filled again: only their header block
 * is zeroed, the segment made from one carries {@link SegmentHeaderDescriptor#FLAG_RECYCLED}, and the records
 * left in it (all below the log's start offset) are never taken for the new segment's own, neither by readers nor
 * by crash recovery. Crash images are copies of an open store's directory, as in {@link RecoveryTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RecycledSegmentTest
{
    private static StoreConfig config(final Path dir, final RecoveryMode mode, final boolean zeroRecycled)
    {
        return RecycledSegments.config(dir, mode, Duration.ofMillis(20), zeroRecycled);
    }

    /**
     * Where retention (2 MiB, run every 20 ms) cannot take records while they are read: about the last 1 MiB.
     */
    private static long recent(final Log log)
    {
        return Math.max(log.startOffset(), log.endOffset() - 3_000);
    }

    /** The end of a segment's own records in its file: where the offsets stop following on from its base. */
    private static int endOfRecords(final byte[] file)
    {
        final ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.nativeOrder());
        long expected = b.getLong(SegmentHeaderDescriptor.BASE_OFFSET_OFFSET);
        int at = HEADER;
        int end = at;
        while (at + 32 <= file.length)
        {
            final int length = b.getInt(at);
            if (length == 0 && at != end)
            {
                break; // a zero header at a block boundary
            }
            if (length == 0)
            {
                at = (at / 4096 + 1) * 4096; // the gap after a write: its records go on at the next block
                continue;
            }
            if (b.getLong(at + 8) != expected)
            {
                break; // a stale record, or the middle of one
            }
            expected += b.getInt(at + 24);
            at += (length + 7) & ~7;
            end = at;
        }
        return end;
    }

    private static boolean nonZero(final byte[] bytes)
    {
        for (final byte b : bytes)
        {
            if (b != 0)
            {
                return true;
            }
        }
        return false;
    }

    @Test
    void aFileRetentionDroppedIsReusedWithItsOldRecordsLeftAfterTheEnd() throws Exception
    {
        final Path dir = TestDirs.create("recycled-reuse");
        try (LogStore store = LogStore.open(config(dir, RecoveryMode.TOLERATE_TORN_TAIL, false)))
        {
            final Log log = store.log("a");
            final long end = fillUntilRecycledSegmentIsActive(log, dir.resolve("a"));
            final Path newest = newestSegment(dir.resolve("a"));
            int end0 = endOfRecords(StoreFiles.read(newest, 0, SEGMENT));
            long appended = end;
            while (end0 >= SEGMENT / 2)
            {
                // caught late in its segment: append on into the next one (recycled too) and look at it early
                final Path before = newestSegment(dir.resolve("a"));
                while (newestSegment(dir.resolve("a")).equals(before))
                {
                    RecoveryTest.append(log, appended, appended + 50);
                    appended += 50;
                }
                end0 = endOfRecords(StoreFiles.read(newestSegment(dir.resolve("a")), 0, SEGMENT));
            }
            final Path young = newestSegment(dir.resolve("a"));
            assertTrue(isRecycled(young), young + " is recycled");
            // the blocks after the new records hold what the segment before wrote there (a full segment's records
            // up to near its end), not zeroed since
            final int after = (end0 + 4095) / 4096 * 4096;
            assertTrue(nonZero(StoreFiles.read(young, after, SEGMENT / 2 + 4096 - after)),
                "stale bytes after the records");
            assertTrue(log.startOffset() > 0, "retention moved the start");
            RecoveryTest.assertRecords(log, recent(log), appended);
        }
        try (LogStore store = LogStore.open(config(dir, RecoveryMode.TOLERATE_TORN_TAIL, false)))
        {
            final Log log = store.log("a");
            assertTrue(log.recoveryReport().cleanShutdown());
            final long end = log.endOffset();
            RecoveryTest.assertRecords(log, recent(log), end);
            RecoveryTest.append(log, end, end + 100);
            RecoveryTest.assertRecords(log, recent(log), end + 100);
        }
    }

    @Test
    void withZeroRecycledSegmentsAFileRetentionDroppedIsZeroFilledAgain() throws Exception
    {
        final Path dir = TestDirs.create("recycled-zeroed");
        try (LogStore store = LogStore.open(config(dir, RecoveryMode.TOLERATE_TORN_TAIL, true)))
        {
            final Log log = store.log("a");
            final Path logDir = dir.resolve("a");
            long end = 0;
            long movedAt = -1; // the end when retention first moved the start: files given back from then on
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (movedAt < 0 || end < movedAt + 12_000)
            {
                assertTrue(System.nanoTime() - deadline < 0, "retention did not run within 60 s");
                if (movedAt < 0 && log.startOffset() > 0)
                {
                    movedAt = end;
                }
                RecoveryTest.append(log, end, end + 500);
                end += 500;
                final Path newest = newestSegment(logDir);
                final ByteBuffer h = header(newest);
                if (h.getLong(0) == SegmentHeaderDescriptor.MAGIC)
                {
                    assertEquals(0, h.getInt(SegmentHeaderDescriptor.FLAGS_OFFSET), newest + " flagged recycled");
                    final long from = (endOfRecords(StoreFiles.read(newest, 0, SEGMENT)) + 4095) / 4096 * 4096;
                    if (from < SEGMENT)
                    {
                        assertFalse(nonZero(StoreFiles.read(newest, from, (int)(SEGMENT - from))),
                            newest + " holds non-zero bytes after its records");
                    }
                }
            }
            assertTrue(log.startOffset() > 0, "retention moved the start");
        }
    }

    @Test
    void aCrashInARecycledSegmentRecoversEveryAcknowledgedRecordAndNoStaleOne() throws Exception
    {
        final Path dir = TestDirs.create("recycled-crash");
        final Path image;
        final long acked;
        try (LogStore store = LogStore.open(config(dir, RecoveryMode.TOLERATE_TORN_TAIL, false)))
        {
            final Log log = store.log("a");
            acked = fillUntilRecycledSegmentIsActive(log, dir.resolve("a"));
            image = StoreFiles.crashImage(dir, "recycled-crash-image");
        }
        final Path strict = StoreFiles.crashImage(image, "recycled-crash-strict");
        try (LogStore store = LogStore.open(config(image, RecoveryMode.TOLERATE_TORN_TAIL, false)))
        {
            final Log log = store.log("a");
            final RecoveryReport report = log.recoveryReport();
            assertFalse(report.cleanShutdown());
            assertFalse(report.tornTail(), report.toString());
            assertEquals(acked, log.endOffset(), "every DIRECT-acknowledged record, nothing after: " + report);
            RecoveryTest.assertRecords(log, recent(log), acked);
            RecoveryTest.append(log, acked, acked + 300);
        }
        // after that recovery (stale bytes zeroed after its cut) a second crash finds the new records only
        final Path again = StoreFiles.crashImage(image, "recycled-crash-again");
        try (LogStore store = LogStore.open(config(again, RecoveryMode.TOLERATE_TORN_TAIL, false)))
        {
            final Log log = store.log("a");
            assertEquals(acked + 300, log.endOffset());
            RecoveryTest.assertRecords(log, recent(log), acked + 300);
        }
        // stale records after the end are not damage, even to the strictest mode
        try (LogStore store = LogStore.open(config(strict, RecoveryMode.ABSOLUTE_CONSISTENCY, false)))
        {
            final Log log = store.log("a");
            assertEquals(acked, log.endOffset());
            RecoveryTest.assertRecords(log, recent(log), acked);
        }
    }

    @Test
    void damageWithValidRecordsAfterItInARecycledSegmentIsCutAsATornTailBeyondTheWatermark() throws Exception
    {
        final Path dir = TestDirs.create("recycled-hole");
        final long durable;
        try (LogStore store = LogStore.open(config(dir, RecoveryMode.TOLERATE_TORN_TAIL, false)))
        {
            durable = fillUntilRecycledSegmentIsActive(store.log("a"), dir.resolve("a"));
        }
        // reopened cleanly (the watermark at the end) with an hour between syncs: what follows stays beyond it
        final Path image;
        try (LogStore store = LogStore.open(
            RecycledSegments.config(dir, RecoveryMode.TOLERATE_TORN_TAIL, Duration.ofHours(1), false)))
        {
            final Log log = store.log("a");
            assertEquals(durable, log.endOffset());
            RecoveryTest.append(log, durable, durable + 200);
            image = StoreFiles.crashImage(dir, "recycled-hole-image");
        }
        final Path logDir = image.resolve("a");
        final long[] cp = StoreFiles.checkpoint(logDir);
        assertEquals(durable, cp[3], "the watermark");
        final Path active = watermarkSegment(logDir);
        assertTrue(isRecycled(active), "the watermark's segment is a recycled one");
        // a byte of the first record after the watermark garbled (its write began at the block boundary after the
        // watermark's record): the 199 after it stay valid
        StoreFiles.flip(active, (cp[2] + 4095) / 4096 * 4096 + 40);
        final Path strict = StoreFiles.crashImage(image, "recycled-hole-strict");
        assertThrows(CorruptLogException.class,
            () -> LogStore.open(config(strict, RecoveryMode.ABSOLUTE_CONSISTENCY, false)).close());
        try (LogStore store = LogStore.open(config(image, RecoveryMode.TOLERATE_TORN_TAIL, false)))
        {
            final Log log = store.log("a");
            final RecoveryReport report = log.recoveryReport();
            assertTrue(report.tornTail(), report.toString());
            assertEquals(durable, report.cutOffset(), "cut at the damage: " + report);
            assertEquals(200, report.droppedRecords(), "the offsets from the cut to the last valid record: " + report);
            assertEquals(durable, report.droppedFromOffset(), report.toString());
            assertEquals(durable + 200, report.droppedToOffset(), report.toString());
            // the 199 valid records after the damage were acknowledged: their offsets are never given again
            assertEquals(durable + 200, log.endOffset(), "goes on after the dropped records' offsets: " + report);
            RecoveryTest.assertRecords(log, recent(log), durable);
            RecoveryTest.append(log, durable + 200, durable + 210);
            RecoveryTest.assertRecords(log, durable + 200, durable + 210);
            try (RecordBatch batch = log.read(durable + 100, 1 << 16))
            {
                assertEquals(durable + 200, batch.iterator().next().offset(), "a read in the hole starts at its end");
            }
        }
    }
}
