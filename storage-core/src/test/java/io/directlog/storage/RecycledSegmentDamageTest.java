package io.directlog.storage;

import static io.directlog.storage.RecycledSegments.HEADER;
import static io.directlog.storage.RecycledSegments.SEGMENT;
import static io.directlog.storage.RecycledSegments.fillUntilRecycledSegmentIsActive;
import static io.directlog.storage.RecycledSegments.isRecycled;
import static io.directlog.storage.RecycledSegments.watermarkSegment;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.storage.format.SegmentHeaderDescriptor;

/**
 * Damage to acknowledged records in a recycled active segment (one made from a file retention gave back, with
 * stale records of older segments after its end): it is never taken for the end silently (issue 17, defect 1).
 * Beyond the durable watermark the default mode cuts it as a torn tail and reports the valid records after it
 * in {@link RecoveryReport#droppedRecords()}; {@link RecoveryMode#ABSOLUTE_CONSISTENCY} refuses; below the
 * watermark it is {@link CorruptLogException}. Crash images are copies of an open store's directory (what a SIGKILL
 * right after the last acknowledgement leaves, for DIRECT appends).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RecycledSegmentDamageTest
{
    private static final int BLOCK = 4096;
    private static final long SEED = Long.getLong("directlog.fault.seed", System.nanoTime());

    /** A record of a segment's own, found by the test's parser (not the engine's scanner). */
    private record Found(int position, int length, long offset)
    {
    }

    private static StoreConfig config(final Path dir, final RecoveryMode mode, final Duration syncInterval)
    {
        return RecycledSegments.config(dir, mode, syncInterval, false);
    }

    /** The segment's own records: offsets following on from its base, a zero length off a block boundary a gap. */
    private static List<Found> records(final Path segment) throws IOException
    {
        final byte[] file = StoreFiles.read(segment, 0, SEGMENT);
        final ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.nativeOrder());
        long expected = b.getLong(SegmentHeaderDescriptor.BASE_OFFSET_OFFSET);
        final List<Found> found = new ArrayList<>();
        int at = HEADER;
        while (at + 32 <= file.length)
        {
            final int length = b.getInt(at);
            if (length == 0 && at % BLOCK != 0)
            {
                at = (at / BLOCK + 1) * BLOCK;
                continue;
            }
            if (length < 32 || b.getLong(at + 8) != expected)
            {
                break;
            }
            found.add(new Found(at, length, expected));
            expected += b.getInt(at + 24);
            at += (length + 7) & ~7;
        }
        return found;
    }

    /**
     * A crash image whose log's active segment is a recycled one.
     *
     * @param image   the image's store directory.
     * @param durable the durable watermark's offset.
     * @param acked   the end of the DIRECT-acknowledged records, beyond the watermark.
     */
    private record CrashImage(Path image, long durable, long acked)
    {
        /** @return the log's active segment: the watermark's. */
        Path active() throws IOException
        {
            return watermarkSegment(image.resolve("a"));
        }
    }

    /**
     * A recycled active segment with {@code tail} DIRECT-acknowledged records beyond the durable watermark (the
     * store reopened with an hour between syncs), as a crash image.
     */
    private static CrashImage crashImageWithTail(final String name, final int tail) throws Exception
    {
        return crashImageWithTail(name, tail, true);
    }

    private static CrashImage crashImageWithTail(final String name, final int tail, final boolean batchLast)
        throws Exception
    {
        final Path dir = TestDirs.create(name);
        final long durable;
        try (LogStore store = LogStore.open(config(dir, RecoveryMode.TOLERATE_TORN_TAIL, Duration.ofMillis(20))))
        {
            durable = fillUntilRecycledSegmentIsActive(store.log("a"), dir.resolve("a"));
        }
        final Path image;
        try (LogStore store = LogStore.open(config(dir, RecoveryMode.TOLERATE_TORN_TAIL, Duration.ofHours(1))))
        {
            final Log log = store.log("a");
            // one record per write (each acknowledged before the next is sent), then a batch
            final long lone = batchLast ? durable + tail / 2 : durable + tail;
            for (long o = durable; o < lone; o++)
            {
                RecoveryTest.append(log, o, o + 1);
            }
            RecoveryTest.append(log, lone, durable + tail);
            image = StoreFiles.crashImage(dir, name + "-image");
        }
        final long[] cp = StoreFiles.checkpoint(image.resolve("a"));
        assertEquals(durable, cp[3], "the watermark");
        assertTrue(isRecycled(watermarkSegment(image.resolve("a"))), "the watermark's segment is recycled");
        return new CrashImage(image, durable, durable + tail);
    }

    @Test
    void aZeroedBlockAtTheStartOfAcknowledgedRecordsInARecycledSegmentIsNeverTakenForTheEnd() throws Exception
    {
        final CrashImage made = crashImageWithTail("recycled-zero-block", 60);
        final Path image = made.image();
        final long acked = made.acked();
        final Path active = made.active();
        final List<Found> recs = records(active);
        // the block where one of the newest records starts at a block boundary, with records after it
        Found victim = null;
        for (final Found f : recs)
        {
            if (f.position() % BLOCK == 0 && f.offset() < acked - 10 && f.offset() >= made.durable())
            {
                victim = f;
            }
        }
        assertTrue(victim != null, "a record at a block boundary beyond the watermark");
        StoreFiles.write(active, victim.position(), new byte[BLOCK]);
        final long cutAt = victim.offset();

        final Path strict = StoreFiles.crashImage(image, "recycled-zero-block-strict");
        final Path truncating = StoreFiles.crashImage(image, "recycled-zero-block-truncating");
        assertThrows(CorruptLogException.class,
            () -> LogStore.open(config(strict, RecoveryMode.ABSOLUTE_CONSISTENCY, Duration.ofHours(1))).close());
        for (final Path p : new Path[] {image, truncating})
        {
            final RecoveryMode mode = p == image ? RecoveryMode.TOLERATE_TORN_TAIL : RecoveryMode.TRUNCATE_AT_CORRUPTION;
            try (LogStore store = LogStore.open(config(p, mode, Duration.ofHours(1))))
            {
                final Log log = store.log("a");
                final RecoveryReport report = log.recoveryReport();
                assertEquals(cutAt, report.cutOffset(), mode + ": cut at the zeroed block: " + report);
                assertTrue(report.cutPosition() > victim.position() - BLOCK && report.cutPosition() <= victim.position(),
                    mode + ": the cut is the end of the record before the block (or its gap): " + report);
                assertTrue(report.droppedRecords() >= acked - cutAt - 16, mode + ": the valid records after the hole " +
                    "are reported (" + (acked - cutAt) + " acknowledged from the cut): " + report);
                assertEquals(acked, cutAt + report.droppedRecords(), mode + ": " + report);
                // no mode gives the dropped records' offsets again (a consumer may have read them): both go on
                // after them, past a hole in the offsets (issue 17), the default mode's torn tail included
                assertEquals(acked, report.droppedToOffset(), mode + ": " + report);
                assertEquals(acked, log.endOffset(), mode + ": " + report);
                RecoveryTest.assertRecords(log, Math.max(log.startOffset(), cutAt - 500), cutAt);
                RecoveryTest.append(log, acked, acked + 5);
                try (RecordBatch batch = log.read(cutAt, 1 << 16))
                {
                    assertEquals(acked, batch.iterator().next().offset(),
                        mode + ": a read in the hole starts at its end");
                }
            }
            try (LogStore store = LogStore.open(config(p, mode, Duration.ofHours(1))))
            {
                final Log log = store.log("a");
                assertTrue(log.recoveryReport().cleanShutdown(), mode + ": " + log.recoveryReport());
                assertEquals(acked + 5, log.endOffset(), mode + ": a clean reopen keeps the hole");
                RecoveryTest.assertRecords(log, acked, acked + 5);
            }
        }
    }

    @Test
    void aZeroedBlockBelowTheWatermarkOfARecycledSegmentIsCorruption() throws Exception
    {
        final CrashImage made = crashImageWithTail("recycled-zero-below", 60);
        final Path image = made.image();
        final long durable = made.durable();
        final Path active = made.active();
        Found victim = null;
        for (final Found f : records(active))
        {
            if (f.offset() == durable - 1)
            {
                victim = f;
            }
        }
        assertTrue(victim != null, "the record just below the watermark (recovery verifies it)");
        StoreFiles.write(active, victim.position() / BLOCK * BLOCK, new byte[BLOCK]);
        assertThrows(CorruptLogException.class,
            () -> LogStore.open(config(image, RecoveryMode.TOLERATE_TORN_TAIL, Duration.ofHours(1))).close());
    }

    @Test
    void garbageOverTheLastRecordOfABatchInARecycledSegmentIsReportedOrRefused() throws Exception
    {
        final CrashImage made = crashImageWithTail("recycled-garbage-last", 60);
        final Path image = made.image();
        final long acked = made.acked();
        final Path active = made.active();
        final List<Found> recs = records(active);
        final Found last = recs.get(recs.size() - 1);
        assertEquals(acked - 1, last.offset(), "the newest acknowledged record");
        assertTrue(last.position() % BLOCK != 0, "the batch's last record shares its block with the one before it");
        final byte[] garbage = new byte[512];
        new Random(SEED).nextBytes(garbage);
        StoreFiles.write(active, last.position(), garbage);

        final Path strict = StoreFiles.crashImage(image, "recycled-garbage-last-strict");
        assertThrows(CorruptLogException.class,
            () -> LogStore.open(config(strict, RecoveryMode.ABSOLUTE_CONSISTENCY, Duration.ofHours(1))).close(),
            "seed " + SEED);
        try (LogStore store = LogStore.open(config(image, RecoveryMode.TOLERATE_TORN_TAIL, Duration.ofHours(1))))
        {
            final Log log = store.log("a");
            final RecoveryReport report = log.recoveryReport();
            assertEquals(acked - 1, report.cutOffset(), report.toString());
            assertTrue(report.tornTail(), "cut as a torn tail, not taken for the end: " + report);
            assertEquals(last.position(), report.cutPosition(), report.toString());
            assertTrue(report.zeroedBytes() > 0, "the garbage is counted where it was zeroed: " + report);
            // the batch's write mark (its gap had room for one) names the garbled record: counted, and its offset
            // never given again (issue 17); without a mark nothing is known after the cut: a plain torn tail
            if (report.droppedRecords() > 0)
            {
                assertEquals(acked - 1, report.droppedFromOffset(), report.toString());
                assertEquals(acked, report.droppedToOffset(), report.toString());
                assertEquals(acked, log.endOffset(), "goes on after the hole: " + report);
            }
            else
            {
                assertEquals(acked - 1, log.endOffset(), "a plain torn tail goes on at the cut: " + report);
            }
            final long next = log.endOffset();
            assertEquals(next, log.append(RecoveryTest.payload(next)).join(), report.toString());
        }
    }

    /**
     * Not yet found (docs/durability.md, "Not yet found"): garbage over a whole write at a block boundary of a
     * recycled segment, its write mark included (or over a write whose gap is shorter than a mark, so that it has
     * none). A recycled file holds stale bytes of older segments there, and nothing else tells them from garbage:
     * the log is cut there as at its end, silently. What should happen: refused under ABSOLUTE_CONSISTENCY, the
     * record reported as dropped (and its offset never given again) under TOLERATE_TORN_TAIL.
     */
    @org.junit.jupiter.api.Disabled("issue 17, not yet found: garbage over a whole write (its write mark included) " +
        "at a block boundary of a recycled segment cannot be told from the stale bytes a recycled file holds there, " +
        "so the log is cut there as at its end with nothing reported")
    @Test
    void garbageOverAWholeLoneWriteAtABlockBoundaryInARecycledSegmentIsReportedOrRefused() throws Exception
    {
        final CrashImage made = crashImageWithTail("recycled-garbage-whole", 30, false);
        final Path image = made.image();
        final long acked = made.acked();
        final Path active = made.active();
        final List<Found> recs = records(active);
        final Found lone = recs.get(recs.size() - 1);
        assertEquals(acked - 1, lone.offset());
        assertEquals(0, lone.position() % BLOCK, "alone in its write");
        // the whole write: the record, its gap and the mark at the gap's end, up to the next block boundary
        final int blockEnd = (lone.position() + ((lone.length() + 7) & ~7) + BLOCK - 1) / BLOCK * BLOCK;
        final byte[] garbage = new byte[blockEnd - lone.position()];
        new Random(SEED).nextBytes(garbage);
        StoreFiles.write(active, lone.position(), garbage);
        final Path strict = StoreFiles.crashImage(image, "recycled-garbage-whole-strict");
        assertThrows(CorruptLogException.class,
            () -> LogStore.open(config(strict, RecoveryMode.ABSOLUTE_CONSISTENCY, Duration.ofHours(1))).close(),
            "seed " + SEED);
        try (LogStore store = LogStore.open(config(image, RecoveryMode.TOLERATE_TORN_TAIL, Duration.ofHours(1))))
        {
            final Log log = store.log("a");
            final RecoveryReport report = log.recoveryReport();
            assertEquals(acked - 1, report.droppedFromOffset(), "the garbled write is reported: " + report);
            assertEquals(acked, report.droppedToOffset(), report.toString());
            assertEquals(acked, log.endOffset(), "its offset is never given again: " + report);
        }
    }

    /**
     * The same garbage over a record that was alone in its write, so it starts at a block boundary: a recycled
     * file holds stale bytes of an older segment there, and 512 random bytes cannot be told from the middle of an
     * older record at that position by themselves. The write mark at the start of the write's gap (a recycled
     * segment's gaps carry one: FLAG_WRITE_MARKS) names the segment and the write's end offset, so recovery finds
     * that the segment wrote past the garbage: refused under ABSOLUTE_CONSISTENCY, a reported torn tail (the record
     * counted as dropped) under TOLERATE_TORN_TAIL. A write whose gap is shorter than a mark (24 bytes) has none
     * (a documented limit); the fixture's lone record leaves room for one.
     */
    @Test
    void garbageOverALoneRecordAtABlockBoundaryInARecycledSegmentIsReportedOrRefused() throws Exception
    {
        final CrashImage made = crashImageWithTail("recycled-garbage-lone", 30, false);
        final Path image = made.image();
        final long acked = made.acked();
        final Path active = made.active();
        final List<Found> recs = records(active);
        final Found lone = recs.get(recs.size() - 1);
        assertEquals(acked - 1, lone.offset());
        assertEquals(0, lone.position() % BLOCK, "alone in its write");
        final int end = lone.position() + ((lone.length() + 7) & ~7);
        // the fixture's records (RecoveryTest.payload of each offset) leave this write a gap that holds a mark
        assertTrue((end + BLOCK - 1) / BLOCK * BLOCK - end >= 24, "the write's gap has room for a write mark");
        final byte[] garbage = new byte[512];
        new Random(SEED).nextBytes(garbage);
        StoreFiles.write(active, lone.position(), garbage);
        final Path strict = StoreFiles.crashImage(image, "recycled-garbage-lone-strict");
        assertThrows(CorruptLogException.class,
            () -> LogStore.open(config(strict, RecoveryMode.ABSOLUTE_CONSISTENCY, Duration.ofHours(1))).close(),
            "seed " + SEED);
        try (LogStore store = LogStore.open(config(image, RecoveryMode.TOLERATE_TORN_TAIL, Duration.ofHours(1))))
        {
            final Log log = store.log("a");
            final RecoveryReport report = log.recoveryReport();
            assertEquals(acked - 1, report.cutOffset(), report.toString());
            assertTrue(report.tornTail(), "cut as a torn tail, not taken for the end: " + report);
            assertEquals(acked - 1, report.droppedFromOffset(), "the garbled record is reported: " + report);
            assertEquals(acked, report.droppedToOffset(), report.toString());
            assertTrue(report.zeroedBytes() > 0, "the garbage is counted where it was zeroed: " + report);
            // the mark proves the record was written (and acknowledged): its offset is never given again (issue 17)
            assertEquals(acked, log.endOffset(), "goes on after the hole: " + report);
            assertEquals(acked, log.append(RecoveryTest.payload(acked)).join(), report.toString());
        }
    }
}
