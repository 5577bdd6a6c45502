package io.directlog.storage;

import static io.directlog.storage.RecycledSegments.HEADER;
import static io.directlog.storage.RecycledSegments.SEGMENT;
import static io.directlog.storage.RecycledSegments.fillUntilRecycledSegmentIsActive;
import static io.directlog.storage.RecycledSegments.isRecycled;
import static io.directlog.storage.RecycledSegments.watermarkSegment;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
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
     * Fills log "a" of a new store in {@code dir} until its active segment is a recycled one, and closes the store.
     *
     * @return the log's end offset (durable: the close synced it).
     */
    private static long closedWithARecycledActiveSegment(final Path dir) throws Exception
    {
        try (LogStore store = LogStore.open(config(dir, RecoveryMode.TOLERATE_TORN_TAIL, Duration.ofMillis(20))))
        {
            return fillUntilRecycledSegmentIsActive(store.log("a"), dir.resolve("a"));
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
        return crashImageWithTail(name, tail, batchLast, null);
    }

    /** @param lastAlone the payload of the last record, written alone (batchLast false), or null for the usual. */
    private static CrashImage crashImageWithTail(final String name, final int tail, final boolean batchLast,
        final byte[] lastAlone) throws Exception
    {
        final Path dir = TestDirs.create(name);
        final long durable = closedWithARecycledActiveSegment(dir);
        final Path image;
        try (LogStore store = LogStore.open(config(dir, RecoveryMode.TOLERATE_TORN_TAIL, Duration.ofHours(1))))
        {
            final Log log = store.log("a");
            // one record per write (each acknowledged before the next is sent), then a batch
            final long lone = batchLast ? durable + tail / 2 : durable + tail;
            for (long o = durable; o < lone; o++)
            {
                if (lastAlone != null && o == durable + tail - 1)
                {
                    assertEquals(o, log.append(lastAlone).join());
                }
                else
                {
                    RecoveryTest.append(log, o, o + 1);
                }
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
     * The writer's half of zero-ahead, in a log reopened cleanly (from the store manifest, which must carry the
     * segment's flag): each write into a recycled segment also writes zeros over the block after it, so non-zero
     * bytes right after the end (as stale records of the older file may be) are gone from where recovery looks. A
     * crash image whose active segment held such bytes from the start of the next write on recovers every
     * acknowledged record with nothing reported, in every mode; a write without zero-ahead would leave them after the
     * last write, where a zero-ahead segment's recovery takes them for damage.
     */
    @Test
    void eachWriteIntoARecycledSegmentZeroesTheBlockAfterIt() throws Exception
    {
        final Path dir = TestDirs.create("recycled-zero-ahead");
        final long durable = closedWithARecycledActiveSegment(dir);
        final Path active = watermarkSegment(dir.resolve("a"));
        assertTrue(isRecycled(active), "the clean close's end is in a recycled segment");
        final List<Found> before = records(active);
        final Found last = before.get(before.size() - 1);
        assertEquals(durable - 1, last.offset());
        final int next = (last.position() + ((last.length() + 7) & ~7) + BLOCK - 1) / BLOCK * BLOCK;
        final byte[] stale = new byte[SEGMENT - next];
        java.util.Arrays.fill(stale, (byte)0xFF);
        StoreFiles.write(active, next, stale); // after a clean close: the reopen reads none of it
        final long acked = durable + 20;
        final Path image;
        try (LogStore store = LogStore.open(config(dir, RecoveryMode.TOLERATE_TORN_TAIL, Duration.ofHours(1))))
        {
            final Log log = store.log("a");
            for (long o = durable; o < acked; o++)
            {
                RecoveryTest.append(log, o, o + 1); // one write each
            }
            image = StoreFiles.crashImage(dir, "recycled-zero-ahead-image");
        }
        final List<Found> written = records(image.resolve("a").resolve(active.getFileName()));
        assertEquals(acked - 1, written.get(written.size() - 1).offset(), "the writes stayed in that segment");
        final Path strict = StoreFiles.crashImage(image, "recycled-zero-ahead-strict");
        for (final Path p : new Path[] {image, strict})
        {
            final RecoveryMode mode = p == image ? RecoveryMode.TOLERATE_TORN_TAIL : RecoveryMode.ABSOLUTE_CONSISTENCY;
            try (LogStore store = LogStore.open(config(p, mode, Duration.ofHours(1))))
            {
                final Log log = store.log("a");
                final RecoveryReport report = log.recoveryReport();
                assertTrue(!report.cleanShutdown() && !report.tornTail() && report.cutPosition() == -1 &&
                    report.droppedRecords() == 0, mode + ": " + report);
                assertEquals(acked, log.endOffset(), mode + ": " + report);
                RecoveryTest.assertRecords(log, durable - 10, acked);
            }
        }
    }

    /**
     * Garbage over a whole write at a block boundary of a recycled segment, its write mark included: nothing inside
     * the write can say it happened, and a recycled file holds stale bytes of older segments after a segment's end.
     * What does: the write before it also zeroed the block after its last one (FLAG_ZERO_AHEAD), where this write
     * started, so a header there that is neither zero nor a record of the segment is damage over a write the segment
     * made, not its end. Refused under ABSOLUTE_CONSISTENCY; cut as a torn tail, counted where zeroed and logged,
     * elsewhere. Nothing after the garbage names the garbled write's records (their count is in the garbage), so it
     * is a plain torn tail, as the same garbage over the last write of a zero-filled segment is: cut at the end of
     * the record before it, the log goes on at the cut.
     */
    @Test
    void garbageOverAWholeLoneWriteAtABlockBoundaryInARecycledSegmentIsReportedOrRefused() throws Exception
    {
        final CrashImage made = crashImageWithTail("recycled-garbage-whole", 30, false);
        final List<Found> recs = records(made.active());
        final Found lone = recs.get(recs.size() - 1);
        assertEquals(made.acked() - 1, lone.offset());
        assertEquals(0, lone.position() % BLOCK, "alone in its write");
        // the whole write: the record, its gap and the mark at the gap's end, up to the next block boundary
        final int blockEnd = (lone.position() + ((lone.length() + 7) & ~7) + BLOCK - 1) / BLOCK * BLOCK;
        assertGarbledLastWriteIsATornTail(made, lone, blockEnd, "recycled-garbage-whole");
    }

    /**
     * The same over a write that ends on a block boundary: it has no gap, so no write mark (nor would a gap under
     * 24 bytes). The block the write before it zeroed finds it all the same.
     */
    @Test
    void garbageOverAWholeWriteEndingOnABlockBoundaryInARecycledSegmentIsReportedOrRefused() throws Exception
    {
        // a record of exactly one block, written alone: from a block boundary to the next, no gap
        final byte[] block = TestStores.payload(0, 1, BLOCK - 32);
        final CrashImage made = crashImageWithTail("recycled-garbage-nogap", 30, false, block);
        final List<Found> recs = records(made.active());
        final Found lone = recs.get(recs.size() - 1);
        assertEquals(made.acked() - 1, lone.offset());
        assertEquals(0, lone.position() % BLOCK, "alone in its write");
        assertEquals(BLOCK, lone.length(), "the write ends on a block boundary: no gap, no write mark");
        assertGarbledLastWriteIsATornTail(made, lone, lone.position() + BLOCK, "recycled-garbage-nogap");
    }

    /** The same over a write whose gap (16 bytes) is too short for a write mark. */
    @Test
    void garbageOverAWholeWriteWithAGapTooShortForAMarkInARecycledSegmentIsReportedOrRefused() throws Exception
    {
        final byte[] record = TestStores.payload(0, 1, BLOCK - 32 - 16);
        final CrashImage made = crashImageWithTail("recycled-garbage-shortgap", 30, false, record);
        final List<Found> recs = records(made.active());
        final Found lone = recs.get(recs.size() - 1);
        assertEquals(made.acked() - 1, lone.offset());
        assertEquals(0, lone.position() % BLOCK, "alone in its write");
        assertEquals(BLOCK - 16, lone.length(), "a gap of 16 bytes: no room for a write mark");
        assertGarbledLastWriteIsATornTail(made, lone, lone.position() + BLOCK, "recycled-garbage-shortgap");
    }

    /**
     * Writes random bytes over {@code [first.position(), blockEnd)} (the image's last write, from its first record)
     * and opens the image in each mode: refused, or cut at the record before it with the cut reported and logged.
     */
    private static void assertGarbledLastWriteIsATornTail(final CrashImage made, final Found first,
        final int blockEnd, final String name) throws Exception
    {
        final Path image = made.image();
        final long cutAt = first.offset();
        final byte[] garbage = new byte[blockEnd - first.position()];
        new Random(SEED).nextBytes(garbage);
        StoreFiles.write(made.active(), first.position(), garbage);
        final Path strict = StoreFiles.crashImage(image, name + "-strict");
        final Path truncating = StoreFiles.crashImage(image, name + "-truncating");
        assertThrows(CorruptLogException.class,
            () -> LogStore.open(config(strict, RecoveryMode.ABSOLUTE_CONSISTENCY, Duration.ofHours(1))).close(),
            "seed " + SEED);
        for (final Path p : new Path[] {image, truncating})
        {
            final RecoveryMode mode = p == image ? RecoveryMode.TOLERATE_TORN_TAIL : RecoveryMode.TRUNCATE_AT_CORRUPTION;
            final RecoveryReport[] seen = new RecoveryReport[1];
            final List<String> warnings = TestWarnings.during(() ->
            {
                try (LogStore store = LogStore.open(config(p, mode, Duration.ofHours(1))))
                {
                    final Log log = store.log("a");
                    seen[0] = log.recoveryReport();
                    RecoveryTest.assertRecords(log, Math.max(log.startOffset(), cutAt - 500), cutAt);
                    assertEquals(cutAt, log.endOffset(), mode + ", seed " + SEED + ": a plain torn tail goes on at " +
                        "the cut (nothing after it names the garbled records): " + seen[0]);
                    assertEquals(cutAt, log.append(RecoveryTest.payload(cutAt)).join(), seen[0].toString());
                }
            });
            final RecoveryReport report = seen[0];
            final String why = mode + ", seed " + SEED + ": " + report + ", warnings " + warnings;
            assertEquals(cutAt, report.cutOffset(), "cut where the garbled write began: " + why);
            assertTrue(report.cutPosition() > first.position() - BLOCK && report.cutPosition() <= first.position(),
                "the cut is the end of the record before the write (or its gap): " + why);
            assertEquals(mode == RecoveryMode.TOLERATE_TORN_TAIL, report.tornTail(), why);
            assertEquals(0, report.droppedRecords(), "nothing after the garbage names a record: " + why);
            assertTrue(report.zeroedBytes() > 0, "the garbage is counted where it was zeroed: " + why);
            assertTrue(warnings.stream().anyMatch(w -> w.contains("position " + report.cutPosition()) &&
                w.contains(mode == RecoveryMode.TOLERATE_TORN_TAIL ? "torn tail" : "TRUNCATE_AT_CORRUPTION")),
                "a WARNING names the cut: " + why);
            try (LogStore store = LogStore.open(config(p, mode, Duration.ofHours(1))))
            {
                final Log log = store.log("a");
                assertTrue(log.recoveryReport().cleanShutdown(), why);
                assertEquals(cutAt + 1, log.endOffset(), why);
                RecoveryTest.assertRecords(log, cutAt, cutAt + 1);
            }
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

    /**
     * A truncation with no room in the memory budget for a second write page zeroes the records past the cut in
     * the old write page and writes that page's blocks back. In a recycled segment the last of those blocks held
     * the old last write's gap with its write mark, which names the old end: left on disk, a crash before new
     * writes passed it made recovery take the mark as proof that records reached the old end, report them dropped
     * and go on after them, a hole where the truncation left none (found by zero17's reading, issue 17).
     */
    @Test
    void aTruncationInPlaceLeavesNoWriteMarkOfTheOldEndInARecycledSegment() throws Exception
    {
        final Path dir = TestDirs.create("recycled-truncate-in-place");
        final long durable = closedWithARecycledActiveSegment(dir);
        final Path image;
        final long cut = durable + 3;
        // the smallest budget (one segment), then held by the first chunks of other logs' write pages
        try (LogStore store = LogStore.open(RecycledSegments.config(dir, RecoveryMode.TOLERATE_TORN_TAIL,
            Duration.ofHours(1), false, SEGMENT)))
        {
            final Log log = store.log("a");
            for (long o = durable; o < durable + 6; o++)
            {
                RecoveryTest.append(log, o, o + 1); // one record a write: each gap ends with its write mark
            }
            int others = 0;
            while (others < SEGMENT / (64 << 10))
            {
                final Log other = store.log("other-" + others);
                try
                {
                    other.append(new byte[8]).join();
                    others++;
                }
                catch (final java.util.concurrent.CompletionException e)
                {
                    assertInstanceOf(MemoryBudgetExceededException.class, e.getCause());
                    break; // the budget is held by write pages: the truncation below has no room for a second
                }
            }
            log.truncateTo(cut);
            assertEquals(cut, log.endOffset());
            image = StoreFiles.crashImage(dir, "recycled-truncate-in-place-image");
        }
        try (LogStore store = LogStore.open(config(image, RecoveryMode.TOLERATE_TORN_TAIL, Duration.ofHours(1))))
        {
            final Log log = store.log("a");
            final RecoveryReport report = log.recoveryReport();
            assertEquals(0, report.droppedRecords(), report.toString());
            assertEquals(cut, log.endOffset(), "nothing past the truncation is reported or skipped: " + report);
            assertEquals(cut, log.append(RecoveryTest.payload(cut)).join(), report.toString());
        }
    }
}
