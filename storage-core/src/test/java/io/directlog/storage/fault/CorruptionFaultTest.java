package io.directlog.storage.fault;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntUnaryOperator;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import io.directlog.storage.CorruptLogException;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.RecoveryMode;
import io.directlog.storage.RecoveryReport;
import io.directlog.storage.StorageException;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.TestSeed;
import io.directlog.storage.spi.BlockIo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Corruption faults: bit flips, zeroed blocks, garbage after the end, truncated and misdirected blocks,
 * stale records, torn and garbage sectors, absurd lengths and read errors, each with its documented outcome,
 * plus the recovery-parser fuzz ({@link ParserFuzz}). One FAULT-SUMMARY line at the end.
 * <p>
 * "Below the watermark" is produced by a clean close (everything the log holds was durable and, once the engine
 * keeps a durable watermark, covered by it); "in the crash window" by a crash image ({@link LogSurgery#crashImage}):
 * the files copied while the store is open, right after the last acknowledgement, as a SIGKILL leaves them.
 * <p>
 * Every case asserts its documented outcome: an engine that misses it (an untyped error, damaged bytes returned,
 * a silent cut) fails the test, so a regression cannot pass as a skip. The failures are also listed before the
 * summary line.
 * <p>
 * <b>Decided here: garbage in the sector being rewritten.</b> The writer rewrites the partial tail block on
 * every flush. If a crash leaves garbage in a 512 B sector of it (FoundationDB's full corruption, TigerBeetle's
 * crash fault), acknowledged records sharing that sector are destroyed. That cannot be repaired by a single
 * node, so the requirement is that it is never silent: recovery finds the log shorter than the durable
 * watermark, and the default mode refuses to open with {@code CorruptLogException} naming log, file, position
 * and the first lost offset; {@code TRUNCATE_AT_CORRUPTION} cuts there and reports how many records it dropped.
 * Records acknowledged in DIRECT mode after the last watermark write are outside what recovery can know: their
 * loss in such a sector stays undetectable until the engine stops rewriting sectors that hold acknowledged bytes
 * (two alternating tail slots, or padding to the next sector). The test produces the case after a clean close
 * (watermark = end) and expects detection.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@ExtendWith(TestSeed.class)
class CorruptionFaultTest
{
    private static final String LOG = "c";
    private static final int SEGMENT = 1 << 20;
    private static final AtomicLong CASES = new AtomicLong();
    private static final AtomicLong ACKED_CHECKED = new AtomicLong();
    private static final AtomicLong LOST = new AtomicLong();
    private static final AtomicLong SILENTLY_CUT = new AtomicLong();
    private static final AtomicLong DETECTED = new AtomicLong();
    private static final AtomicLong INJECTED = new AtomicLong();
    private static final List<String> FAILED_CASES = new ArrayList<>();

    private static final IntUnaryOperator SMALL = i -> 1000;
    private static final IntUnaryOperator LARGE = i -> 100_000;

    @AfterAll
    static void summary()
    {
        for (final String s : FAILED_CASES)
        {
            System.out.println("CorruptionFaultTest failed: " + s);
        }
        final ParserFuzz.Result fuzz = ParserFuzz.lastResult();
        final long cases = CASES.get() + (fuzz == null ? 0 : fuzz.segments() + fuzz.opens());
        final long acked = ACKED_CHECKED.get() + (fuzz == null ? 0 : fuzz.recordsChecked());
        final long lost = LOST.get() + (fuzz == null ? 0 : fuzz.corruptAccepted());
        final long detected = DETECTED.get() + (fuzz == null ? 0 : fuzz.detected());
        final long injected = INJECTED.get() + (fuzz == null ? 0 : fuzz.injected());
        System.out.println("CorruptionFaultTest: durable records cut without a report in not-yet-implemented " +
            "cases: " + SILENTLY_CUT.get() + " (counted as undetected, not as lost: lost counts damaged records " +
            "returned as valid)");
        System.out.printf("FAULT-SUMMARY category=corruption cases=%d acked_checked=%d lost=%d detected=%d/%d%n",
            cases, acked, lost, detected, injected);
    }

    // ---------------------------------------------------------------- a bit flip in the tail record

    @Test
    void bitFlipInTheTailRecordCutsTheLogThere() throws Exception
    {
        final Path dir = crashImageOf(200, SMALL);
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
        final LogSurgery.Found last = LogSurgery.records(LogSurgery.read(seg)).get(199);
        LogSurgery.flipBit(seg, last.position() + 40, 3);
        injected();
        if (belowWatermark(dir))
        {
            return;
        }
        try (LogStore store = open(dir, RecoveryMode.TOLERATE_TORN_TAIL))
        {
            final Log log = store.log(LOG);
            assertEquals(199, log.endOffset(), "cut at the flipped record");
            assertRecords(log, 199, SMALL);
            assertTrue(LogSurgery.cleanAfter(seg, last.position()), "the torn record is zeroed on disk (I5)");
            assertEquals(199, log.append(payload(199, 1000), Durability.DSYNC).join(), "appends continue");
            detected();
        }
    }

    // ---------------------------------------------------------------- a bit flip below the watermark

    @Test
    void bitFlipBelowTheWatermarkIsReportedAtOpenOrAtRead() throws Exception
    {
        // after a clean close the open scans nothing (by design), so the damage must show when it is read
        final Path dir = cleanLog(200, SMALL, RecoveryMode.TOLERATE_TORN_TAIL);
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
        final LogSurgery.Found r = LogSurgery.records(LogSurgery.read(seg)).get(50);
        LogSurgery.flipBit(seg, r.position() + 100, 5);
        injected();
        expectDetection("C2 (clean close, bit flip at offset 50)", dir, RecoveryMode.TOLERATE_TORN_TAIL, 200, SMALL,
            seg);
    }

    @Test
    void bitFlipBelowTheWatermarkAfterACrashIsReportedAtOpenOrAtRead() throws Exception
    {
        final Path dir = crashAfterCleanClose(200, SMALL);
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
        final LogSurgery.Found r = LogSurgery.records(LogSurgery.read(seg)).get(50);
        LogSurgery.flipBit(seg, r.position() + 100, 5);
        injected();
        expectDetection("C2 (crash, bit flip at offset 50 below the watermark)", dir, RecoveryMode.TOLERATE_TORN_TAIL,
            200, SMALL, seg);
    }

    @Test
    void bitFlipInTheLastRecordOfACleanlyClosedLogIsReported() throws Exception
    {
        final Path dir = cleanLog(200, SMALL, RecoveryMode.TOLERATE_TORN_TAIL);
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
        final LogSurgery.Found r = LogSurgery.records(LogSurgery.read(seg)).get(199);
        LogSurgery.flipBit(seg, r.position() + 100, 5);
        injected();
        expectDetection("C2 (clean close, bit flip in the last record)", dir, RecoveryMode.TOLERATE_TORN_TAIL, 200,
            SMALL, seg);
    }

    @Test
    void bitFlipInARolledSegmentIsNeverReturnedAsData() throws Exception
    {
        final Path dir = cleanLog(35, LARGE, RecoveryMode.TOLERATE_TORN_TAIL);
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 1);
        final LogSurgery.Found r = LogSurgery.records(LogSurgery.read(seg)).get(4); // offset 14
        assertEquals(14, r.offset());
        LogSurgery.flipBit(seg, r.position() + 5000, 1);
        injected();
        try (LogStore store = open(dir, RecoveryMode.TOLERATE_TORN_TAIL))
        {
            // a clean open reads only headers of rolled segments: the damage shows when a reader reaches it
            final Log log = store.log(LOG);
            assertEquals(35, log.endOffset());
            assertRecords(log, 14, LARGE);
            final RuntimeException e = assertThrows(RuntimeException.class, () -> readAll(log, 14, 35),
                "reading through the damaged record must fail, never skip it or return it");
            assertTrue(e instanceof StorageException, "typed: " + e);
            detected();
        }
    }

    @Test
    void truncateAtCorruptionCutsAtTheDamageAndReportsTheDroppedRecords() throws Exception
    {
        final Path dir = crashImageOf(200, SMALL);
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
        final LogSurgery.Found r = LogSurgery.records(LogSurgery.read(seg)).get(190);
        LogSurgery.flipBit(seg, r.position() + 100, 5);
        injected();
        final RecoveryReport report;
        final long end;
        try (LogStore store = open(dir, RecoveryMode.TRUNCATE_AT_CORRUPTION))
        {
            final Log log = store.log(LOG);
            report = log.recoveryReport();
            // the records end at the cut; below the watermark the log goes on at the watermark after a hole in the
            // offsets (issue 17: offsets the watermark covered are never given to a second record)
            end = report.cutOffset();
            if (end == 190)
            {
                assertRecords(log, 190, SMALL);
                assertTrue(LogSurgery.cleanAfter(seg, r.position()), "everything after the cut zeroed on disk");
                assertTrue(log.endOffset() >= 190 && log.endOffset() <= 200, "goes on at the cut or at the " +
                    "watermark: " + log.endOffset() + " " + report);
            }
        }
        if (end == 190)
        {
            assertEquals(10, report.droppedRecords(), "offsets 190..199 dropped and reported: " + report);
            assertEquals(190, report.cutOffset(), report.toString());
            detected();
            return;
        }
        // the watermark already covered offset 190: the scan started after it, so the damage shows at read
        expectDetection("C2 (TRUNCATE_AT_CORRUPTION, damage below the watermark)", dir,
            RecoveryMode.TRUNCATE_AT_CORRUPTION, 200, SMALL, seg);
    }

    // ---------------------------------------------------------------- a zeroed block

    @Test
    void zeroedBlockBelowTheWatermarkIsReportedNotTakenForTheEnd() throws Exception
    {
        final Path dir = crashAfterCleanClose(200, SMALL);
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
        LogSurgery.write(seg, 16 * 4096, new byte[4096]);
        injected();
        expectDetection("C3 (zeroed block below the watermark)", dir, RecoveryMode.TOLERATE_TORN_TAIL, 200, SMALL,
            seg);
    }

    @Test
    void zeroedBlockInARolledSegmentIsNeverSkippedSilently() throws Exception
    {
        final Path dir = cleanLog(35, LARGE, RecoveryMode.TOLERATE_TORN_TAIL);
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 1);
        final LogSurgery.Found r = LogSurgery.records(LogSurgery.read(seg)).get(3); // offset 13
        LogSurgery.write(seg, r.position() & -4096, new byte[4096]);
        injected();
        try (LogStore store = open(dir, RecoveryMode.TOLERATE_TORN_TAIL))
        {
            final Log log = store.log(LOG);
            assertEquals(35, log.endOffset());
            final RuntimeException e = assertThrows(RuntimeException.class, () -> readAll(log, 10, 35),
                "a reader must not pass a zeroed block silently");
            assertTrue(e instanceof StorageException, "typed: " + e);
            detected();
        }
    }

    // ---------------------------------------------------------------- garbage after the end

    @Test
    void garbageRightAfterTheEndIsATornTailAndIsZeroed() throws Exception
    {
        final Path dir = crashImageOf(200, SMALL);
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
        final LogSurgery.Found last = LogSurgery.records(LogSurgery.read(seg)).get(199);
        final int end = last.position() + last.aligned();
        LogSurgery.write(seg, end, random(700, 4));
        injected();
        try (LogStore store = open(dir, RecoveryMode.TOLERATE_TORN_TAIL))
        {
            final Log log = store.log(LOG);
            assertEquals(200, log.endOffset());
            assertRecords(log, 200, SMALL);
            assertTrue(LogSurgery.cleanAfter(seg, end), "garbage after the end zeroed before new appends (I5)");
            detected();
        }
    }

    /**
     * C4, decided (docs/durability.md, "Garbage after the end"): beyond the durable watermark the in-flight window
     * reaches the segment's end (one record can fill a segment, and on a volatile cache every write since the last
     * sync is in flight), so no position proves garbage is not the payload of a torn in-flight record. Crash
     * recovery therefore zeroes it, never silently: it counts it in {@link RecoveryReport#zeroedBytes()} and logs
     * where it was; {@code ABSOLUTE_CONSISTENCY} refuses to open. After a clean close nothing after the end's
     * block is read (the clean open reads no record data): the garbage is never served, appends overwrite it,
     * and a crash before that finds it as here.
     */
    @Test
    void garbageFarBeyondTheEndIsZeroedAndReported() throws Exception
    {
        final Path dir = crashAfterCleanClose(200, SMALL);
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
        LogSurgery.write(seg, SEGMENT - 4096, random(4096, 5));
        injected();
        final Path strict = copyOf(dir);
        final Outcome refused = openOutcome(strict, RecoveryMode.ABSOLUTE_CONSISTENCY);
        assertTrue(refused.error instanceof CorruptLogException, "ABSOLUTE_CONSISTENCY: " + refused);
        Dirs.delete(strict);
        final LogSurgery.Found last = LogSurgery.records(LogSurgery.read(seg)).get(200);
        final int end = last.position() + last.aligned();
        try (LogStore store = open(dir, RecoveryMode.TOLERATE_TORN_TAIL))
        {
            final Log log = store.log(LOG);
            assertEquals(201, log.endOffset());
            assertRecords(log, 201, SMALL);
            final RecoveryReport report = log.recoveryReport();
            assertTrue(report.zeroedBytes() >= 4000, "the garbage is reported: " + report);
            assertEquals(0, report.droppedRecords(), report.toString());
            assertTrue(LogSurgery.cleanAfter(seg, end), "the garbage is zeroed on disk");
            detected();
        }
    }

    // ---------------------------------------------------------------- a truncated segment

    @Test
    void segmentTruncatedBeyondItsEndIsReextendedAndReZeroed() throws Exception
    {
        final Path dir = cleanLog(200, SMALL, RecoveryMode.TOLERATE_TORN_TAIL);
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
        LogSurgery.truncate(seg, 512 << 10);
        injected();
        long size;
        try (LogStore store = open(dir, RecoveryMode.TOLERATE_TORN_TAIL))
        {
            final Log log = store.log(LOG);
            assertEquals(200, log.endOffset());
            assertRecords(log, 200, SMALL);
            size = Files.size(seg);
            appendAll(log, 200, 500, SMALL); // runs past the truncation point
        }
        try (LogStore store = open(dir, RecoveryMode.TOLERATE_TORN_TAIL))
        {
            final Log log = store.log(LOG);
            assertEquals(700, log.endOffset());
            assertRecords(log, 700, SMALL);
        }
        assertEquals(SEGMENT, size, "re-extended with zeros at open, before the first append");
        detected();
    }

    @Test
    void segmentTruncatedIntoItsRecordsIsReported() throws Exception
    {
        final Path dir = cleanLog(200, SMALL, RecoveryMode.TOLERATE_TORN_TAIL);
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
        LogSurgery.truncate(seg, 100 << 10);
        injected();
        expectDetection("C5 (last segment truncated into its records)", dir, RecoveryMode.TOLERATE_TORN_TAIL, 200,
            SMALL, seg);
    }

    // ---------------------------------------------------------------- a misdirected block

    @Test
    void misdirectedBlockIsRejectedAsCorruption() throws Exception
    {
        final Path dir = cleanLog(35, LARGE, RecoveryMode.TOLERATE_TORN_TAIL);
        final Path logDir = dir.resolve(LOG);
        final byte[] from = LogSurgery.read(LogSurgery.segment(logDir, 0));
        final Path last = LogSurgery.segment(logDir, 3);
        final LogSurgery.Found r = LogSurgery.records(LogSurgery.read(last)).get(1); // offset 31
        final byte[] block = java.util.Arrays.copyOfRange(from, 4096, 8192); // a valid record start of segment 0
        LogSurgery.write(last, r.position() & -4096, block); // over the end of offset 30 and the start of 31
        injected();
        expectDetection("C6 (misdirected block)", dir, RecoveryMode.TOLERATE_TORN_TAIL, 35, LARGE, last);
    }

    // ---------------------------------------------------------------- stale records of an older generation or another log

    @Test
    void staleRecordOfAnOlderGenerationAfterTheEndIsNotResurrected() throws Exception
    {
        final Path dir = crashImageOf(200, SMALL);
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
        final byte[] bytes = LogSurgery.read(seg);
        final List<LogSurgery.Found> found = LogSurgery.records(bytes);
        final LogSurgery.Found stale = found.get(120);
        final LogSurgery.Found last = found.get(199);
        final int end = last.position() + last.aligned();
        LogSurgery.write(seg, end, java.util.Arrays.copyOfRange(bytes, stale.position(),
            stale.position() + stale.aligned()));
        injected();
        try (LogStore store = open(dir, RecoveryMode.TOLERATE_TORN_TAIL))
        {
            final Log log = store.log(LOG);
            assertEquals(200, log.endOffset(), "a stale record is not brought back");
            assertRecords(log, 200, SMALL);
            assertTrue(LogSurgery.cleanAfter(seg, end), "the stale record is zeroed (I5)");
            detected();
        }
    }

    @Test
    void recordOfAnotherLogWithTheExpectedOffsetIsNotResurrected() throws Exception
    {
        final Path src = Dirs.create("c7-src");
        try (LogStore store = open(src, RecoveryMode.TOLERATE_TORN_TAIL))
        {
            final Log log = store.log(LOG);
            appendAll(log, 0, 200, SMALL);
            final Log other = store.log("other");
            appendAll(other, 0, 201, SMALL);
            LogSurgery.crashImage(src, LOG, src.resolveSibling(src.getFileName() + "-img"));
        }
        final Path dir = src.resolveSibling(src.getFileName() + "-img");
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
        final byte[] otherBytes = LogSurgery.read(LogSurgery.segment(src.resolve("other"), 0));
        final LogSurgery.Found foreign = LogSurgery.records(otherBytes).get(200); // offset 200, same as our next
        assertEquals(200, foreign.offset());
        final LogSurgery.Found last = LogSurgery.records(LogSurgery.read(seg)).get(199);
        final int end = last.position() + last.aligned();
        LogSurgery.write(seg, end, java.util.Arrays.copyOfRange(otherBytes, foreign.position(),
            foreign.position() + foreign.aligned()));
        injected();
        try (LogStore store = open(dir, RecoveryMode.TOLERATE_TORN_TAIL))
        {
            final Log log = store.log(LOG);
            assertEquals(200, log.endOffset(), "another log's record is not adopted");
            assertTrue(LogSurgery.cleanAfter(seg, end));
            detected();
        }
    }

    // ---------------------------------------------------------------- a torn sector write

    @Test
    void sectorTornWriteAfterAGapKeepsEveryAcknowledgedRecord() throws Exception
    {
        // A: acknowledged records; B: more records, written by the next flush, which starts at the next block
        // boundary and never writes A's blocks again. A crash tears B's first block at 512 B sectors: every one of
        // its 256 subsets of old (zero) and new sectors.
        final Path src = Dirs.create("c8");
        final int aCount = 5;
        final int bCount = 6;
        final IntUnaryOperator size = i -> 300;
        final byte[] before;
        final byte[] after;
        final Path srcSeg = LogSurgery.segment(src.resolve(LOG), 0);
        final Path imageA = src.resolveSibling(src.getFileName() + "-a");
        try (LogStore store = open(src, RecoveryMode.TOLERATE_TORN_TAIL))
        {
            final Log log = store.log(LOG);
            appendAll(log, 0, aCount, size);
            before = LogSurgery.read(srcSeg);
            LogSurgery.crashImage(src, LOG, imageA); // the files (checkpoint included) when B's flush started
            appendAll(log, aCount, bCount, size);
            after = LogSurgery.read(srcSeg);
        }
        final int block = 4096;
        final List<LogSurgery.Found> recs = LogSurgery.records(after);
        assertEquals(aCount + bCount, recs.size(), "records found after B");
        final int aEnd = recs.get(aCount - 1).position() + recs.get(aCount - 1).aligned();
        final int bStart = recs.get(aCount).position();
        assertEquals(0, bStart % block, "B starts at a block boundary (a gap after A at " + aEnd + ")");
        assertArrayEquals(java.util.Arrays.copyOfRange(before, 0, bStart), java.util.Arrays.copyOfRange(after, 0,
            bStart), "B's write left every byte before it as it was: A's blocks were not written again");
        int refused = 0;
        String firstRefusal = null;
        final Path dir = Dirs.create("c8-torn");
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
        for (int mask = 0; mask < 256; mask++)
        {
            Dirs.delete(dir.resolve(LOG));
            LogSurgery.crashImage(imageA, LOG, dir);
            final byte[] torn = new byte[block];
            for (int s = 0; s < 8; s++)
            {
                final byte[] version = (mask & (1 << s)) != 0 ? after : before;
                System.arraycopy(version, bStart + s * 512, torn, s * 512, 512);
            }
            LogSurgery.write(seg, bStart, torn);
            injected();
            CASES.incrementAndGet();
            final Outcome o = openOutcome(dir, RecoveryMode.TOLERATE_TORN_TAIL, log ->
            {
                assertRecords(log, aCount, size);
                final long end = log.endOffset();
                assertTrue(end >= aCount && end <= aCount + bCount, "end " + end);
                // B's records found after a never-written sector keep their offsets (issue 17): the records end at
                // the cut, and the log goes on after them past a reported hole
                final RecoveryReport report = log.recoveryReport();
                final long recordsEnd = report.cutOffset();
                assertTrue(recordsEnd >= aCount && recordsEnd <= end, report.toString());
                if (recordsEnd < end)
                {
                    assertEquals(recordsEnd, report.droppedFromOffset(), report.toString());
                    assertEquals(end, report.droppedToOffset(), report.toString());
                }
                for (long i = aCount; i < recordsEnd; i++)
                {
                    assertRecordAt(log, i, size);
                }
            });
            if (o.error instanceof CorruptLogException)
            {
                refused++;
                firstRefusal = firstRefusal == null ? "mask " + Integer.toBinaryString(mask) + ": " +
                    o.error.getMessage() : firstRefusal;
                continue;
            }
            if (o.error != null)
            {
                fail("mask " + Integer.toBinaryString(mask) + ": " + o);
            }
            DETECTED.incrementAndGet();
        }
        assertEquals(0, refused, "sector-torn writes after a gap refused as corruption; first: " + firstRefusal);
    }

    // ---------------------------------------------------------------- garbage in the sectors of the write in flight

    @Test
    void garbageInTheSectorsOfTheWriteInFlightLosesNoAcknowledgedRecord() throws Exception
    {
        // The garbage model (FoundationDB, TigerBeetle): a crash leaves random bytes in sectors the device was
        // writing. The write in flight starts after the gap that ends the acknowledged records' last block, so
        // garbage there can only hit records not yet acknowledged: each of its sectors in turn, alone or with the
        // sectors after it.
        final int n = 20;
        final IntUnaryOperator size = i -> 300;
        final Path image = crashImageOf(n, size);
        final Path seg = LogSurgery.segment(image.resolve(LOG), 0);
        final List<LogSurgery.Found> recs = LogSurgery.records(LogSurgery.read(seg));
        final int end = recs.get(n - 1).position() + recs.get(n - 1).aligned();
        final int next = (end + 4095) & -4096; // where the next write starts
        final Path dir = Dirs.create("c9");
        for (int sector = 0; sector < 8; sector++)
        {
            for (final boolean rest : new boolean[] {false, true})
            {
                Dirs.delete(dir.resolve(LOG));
                LogSurgery.crashImage(image, LOG, dir);
                final int count = rest ? 8 - sector : 1;
                LogSurgery.write(LogSurgery.segment(dir.resolve(LOG), 0), next + sector * 512L,
                    random(512 * count, 9 + sector));
                injected();
                CASES.incrementAndGet();
                final Outcome o = openOutcome(dir, RecoveryMode.TOLERATE_TORN_TAIL, log ->
                {
                    assertEquals(n, log.endOffset(), "every acknowledged record, nothing invented");
                    assertRecords(log, n, size);
                    assertEquals(n, log.append(payload(n, 300), Durability.DSYNC).join(), "appends go on");
                });
                if (o.error != null)
                {
                    fail("garbage in sector " + sector + (rest ? " and after" : "") + ": " + o);
                }
                DETECTED.incrementAndGet();
            }
        }
    }

    @Test
    void garbageInTheLastSectorOfAcknowledgedRecordsIsReportedAsDataLoss() throws Exception
    {
        // The writer never writes a sector holding acknowledged bytes again, so garbage there is latent damage
        // (or a misdirected write), not a crash: below the durable watermark it is reported, never cut silently.
        final Path dir = cleanLog(20, i -> 300, RecoveryMode.TOLERATE_TORN_TAIL);
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
        final LogSurgery.Found last = LogSurgery.records(LogSurgery.read(seg)).get(19);
        LogSurgery.write(seg, last.position() & -512, random(512, 9));
        injected();
        expectDetection("garbage in the last acknowledged sector", dir, RecoveryMode.TOLERATE_TORN_TAIL, 20,
            i -> 300, seg);
    }

    // ---------------------------------------------------------------- absurd length fields

    @Test
    void absurdLengthFieldsAreCorruptionWithoutHugeAllocations() throws Exception
    {
        final int[] lengths = {Integer.MAX_VALUE, Integer.MIN_VALUE, -1, SEGMENT + 8, SEGMENT - 4096, 31, 1};
        final Path clean = cleanLog(200, SMALL, RecoveryMode.TOLERATE_TORN_TAIL);
        final List<String> engineBug = new ArrayList<>();
        final List<String> returned = new ArrayList<>();
        for (final int length : lengths)
        {
            final Path dir = copyOf(clean);
            final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
            final LogSurgery.Found r = LogSurgery.records(LogSurgery.read(seg)).get(60);
            LogSurgery.putInt(seg, r.position(), length);
            injected();
            CASES.incrementAndGet();
            final List<String> why = new ArrayList<>();
            final Verdict v;
            try
            {
                v = verdict(dir, RecoveryMode.TOLERATE_TORN_TAIL, null, 200, SMALL, why);
            }
            catch (final IllegalArgumentException e)
            {
                // RecordScanner: alignedLength(length) overflows to a negative int for length >= 2^31 - 7, so
                // both bounds checks pass and the CRC is asked for a negative range (see ParserFuzz)
                engineBug.add("length " + length + " at offset 60: " + e.getMessage());
                Dirs.delete(dir);
                continue;
            }
            if (v == Verdict.RETURNED_DAMAGED || v == Verdict.SILENTLY_CUT || v == Verdict.INTACT ||
                v == Verdict.UNTYPED_AT_READ)
            {
                returned.add("length " + length + ": " + v + " " + why);
            }
            else
            {
                DETECTED.incrementAndGet();
            }
            Dirs.delete(dir);
        }
        final Path image = crashImageOf(200, SMALL);
        for (final int length : lengths)
        {
            final Path dir = copyOf(image);
            final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
            final LogSurgery.Found r = LogSurgery.records(LogSurgery.read(seg)).get(199);
            LogSurgery.putInt(seg, r.position(), length);
            injected();
            CASES.incrementAndGet();
            final Outcome o;
            try
            {
                o = openOutcome(dir, RecoveryMode.TOLERATE_TORN_TAIL, log -> assertRecords(log, 199, SMALL));
            }
            catch (final IllegalArgumentException e)
            {
                engineBug.add("length " + length + " at offset 199 (tail): " + e.getMessage());
                Dirs.delete(dir);
                continue;
            }
            if (!(o.error instanceof CorruptLogException && o.error.getMessage().contains("watermark")))
            {
                assertEquals(null, o.error, "length " + length + " in the tail record is a torn tail: " + o);
                assertEquals(199, o.end);
            }
            DETECTED.incrementAndGet();
            Dirs.delete(dir);
        }
        if (!returned.isEmpty())
        {
            engineBug("C10 below the watermark: " + returned);
        }
        if (!engineBug.isEmpty())
        {
            fail("a record length field of 2^31-7 .. 2^31-1 makes LogStore.open throw " +
                "IllegalArgumentException (untyped, in every recovery mode) instead of CorruptLogException / a " +
                "torn-tail cut: RecordScanner's alignedLength overflows. " + engineBug);
        }
    }

    // ---------------------------------------------------------------- zero-length records

    @Test
    void zeroLengthRecordsAreAllRecovered() throws Exception
    {
        final IntUnaryOperator sizes = i -> i % 3 == 0 ? 0 : i % 7;
        final Path dir = crashImageOf(1000, sizes);
        injected();
        try (LogStore store = open(dir, RecoveryMode.ABSOLUTE_CONSISTENCY))
        {
            final Log log = store.log(LOG);
            assertEquals(1000, log.endOffset(), "every zero-length record recovered, offset 0 included");
            assertRecords(log, 1000, sizes);
            detected();
        }
    }

    // ---------------------------------------------------------------- a read error (EIO)

    @Test
    void readEioBelowTheWatermarkIsReportedNotACrash() throws Exception
    {
        final Path dir = cleanLog(200, SMALL, RecoveryMode.TOLERATE_TORN_TAIL);
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
        final LogSurgery.Found r = LogSurgery.records(LogSurgery.read(seg)).get(50);
        final FailingReadBlockIo io = new FailingReadBlockIo(seg.getFileName().toString(),
            r.position() & -512, (r.position() & -512) + 512);
        injected();
        final List<String> why = new ArrayList<>();
        final Verdict v = verdict(dir, RecoveryMode.TOLERATE_TORN_TAIL, io, 200, SMALL, why);
        assertTrue(io.failedReads.get() > 0, "the injected EIO was hit");
        assertTrue(v == Verdict.CORRUPT_AT_OPEN || v == Verdict.DETECTED_AT_READ || v == Verdict.FAILED_AT_OPEN,
            "EIO below the watermark: " + v + " " + why);
        detected();
    }

    @Test
    void readEioInTheTailBlockDuringRecoveryIsATornTail() throws Exception
    {
        final Path dir = crashImageOf(200, SMALL);
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
        final LogSurgery.Found r = LogSurgery.records(LogSurgery.read(seg)).get(199);
        final FailingReadBlockIo io = new FailingReadBlockIo(seg.getFileName().toString(),
            r.position() + 64, r.position() + 65);
        injected();
        final Outcome o = openOutcome(dir, RecoveryMode.TOLERATE_TORN_TAIL, io, null);
        assertTrue(io.failedReads.get() > 0, "the injected EIO was hit");
        assertEquals(null, o.error, "EIO in the crash window: " + o);
        assertTrue(o.end >= 0 && o.end <= 199, "cut at or before the unreadable record: " + o.end);
        assertTrue(o.end >= 190, "only the unreadable 4 KiB block is lost: " + o.end);
        detected();
    }

    // ---------------------------------------------------------------- header damage (found by the fuzz)

    @Test
    void damagedHeaderOfTheLastSegmentHoldingRecordsIsCorruption() throws Exception
    {
        final Path dir = cleanLog(200, SMALL, RecoveryMode.TOLERATE_TORN_TAIL);
        // the open from files (after a crash, or with no manifest): a store opened from its manifest trusts it and
        // meets a sealed segment's damaged header only when that segment is read
        Files.deleteIfExists(dir.resolve("manifest"));
        final Path seg = LogSurgery.segment(dir.resolve(LOG), 0);
        LogSurgery.flipBit(seg, 30, 2); // base offset field
        injected();
        final Outcome o = openOutcome(dir, RecoveryMode.TOLERATE_TORN_TAIL);
        assertTrue(o.error instanceof CorruptLogException, "damaged header: " + o);
        assertTrue(o.error.getMessage().contains(seg.getFileName().toString()), o.error.getMessage());
        detected();
    }

    @Test
    void damagedHeaderOfTheNewestSegmentFileHoldingRecordsIsCorruption() throws Exception
    {
        // as above, but no prepared spare follows the segment (the preparer had not run, or had no space): the
        // damaged segment is the newest file, which the loader treats as a torn first write
        final Path dir = cleanLog(200, SMALL, RecoveryMode.TOLERATE_TORN_TAIL);
        Files.deleteIfExists(dir.resolve("manifest")); // the open from files, as above
        final Path logDir = dir.resolve(LOG);
        for (long seq = 1; Files.exists(LogSurgery.segment(logDir, seq)); seq++)
        {
            Files.delete(LogSurgery.segment(logDir, seq));
        }
        final Path seg = LogSurgery.segment(logDir, 0);
        LogSurgery.flipBit(seg, 30, 2); // base offset field
        injected();
        final Outcome o = openOutcome(dir, RecoveryMode.TOLERATE_TORN_TAIL);
        if (o.error == null && o.end == 0)
        {
            SILENTLY_CUT.addAndGet(200);
            missingOutcome("a bit flip in the header of the newest segment file makes recovery re-zero the whole " +
                "segment as a 'torn first write' although 200 valid records follow the header: silent loss of a segment " +
                "(the loader should scan for valid records after a bad header before reusing the file)");
        }
        assertTrue(o.error instanceof CorruptLogException, "damaged header: " + o);
        detected();
    }

    // ---------------------------------------------------------------- parser fuzz

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void recoveryParserSurvivesAMillionMutatedSegments() throws Exception
    {
        final long seed = TestSeed.seed();
        final int segments = Integer.getInteger("directlog.fuzz.segments", 1_000_000);
        final int opens = Integer.getInteger("directlog.fuzz.opens", 200);
        final ParserFuzz fuzz = new ParserFuzz(seed);
        final ParserFuzz.Result result;
        try
        {
            result = fuzz.run(segments, opens, Dirs.create("fuzz"));
        }
        catch (final Throwable t)
        {
            System.out.println("ParserFuzz FAILED with seed " + seed + " (" + TestSeed.replayOption() + ")");
            throw t;
        }
        System.out.println("ParserFuzz " + result);
        assertTrue(result.violations().isEmpty(), "seed " + seed + ": " + result.violations());
        assertEquals(0, result.scannerAccepted(), "seed " + seed + ": the scanner accepted a damaged record");
        assertEquals(0, result.hangs(), "seed " + seed + ": a reader of a fuzzed log never returned (a busy loop " +
            "in the read path on a damaged record after a clean close): " + result.hangExample());
        assertEquals(0, result.openReturnedDamaged(), "seed " + seed + ": opened fuzzed logs returned records " +
            "with damaged bytes to a reader (no CRC check on the read path after a clean close); first: " +
            result.openExample());
        assertEquals(0, result.knownBug(), "seed " + seed + ": mutated segments made the scanner or a read throw " +
            "IllegalArgumentException (a length field of 2^31-7 .. 2^31-1 overflowing alignedLength); first: " +
            result.knownBugExample());
    }

    // ---------------------------------------------------------------- helpers

    private static void injected()
    {
        INJECTED.incrementAndGet();
        CASES.incrementAndGet();
    }

    private static void detected()
    {
        DETECTED.incrementAndGet();
    }

    /** How a store with durable records [0, n), one place damaged, behaved at open and when read through. */
    enum Verdict
    {
        CORRUPT_AT_OPEN, FAILED_AT_OPEN, DETECTED_AT_READ, UNTYPED_AT_READ, RETURNED_DAMAGED, SILENTLY_CUT, INTACT
    }

    private static Verdict verdict(final Path dir, final RecoveryMode mode, final BlockIo io, final int n,
        final IntUnaryOperator size, final List<String> why)
    {
        try (LogStore store = open(dir, mode, io))
        {
            final Log log = store.log(LOG);
            final long end = log.endOffset();
            long next = 0;
            try
            {
                while (next < end)
                {
                    try (RecordBatch batch = log.read(next, 1 << 20))
                    {
                        if (batch.isEmpty())
                        {
                            why.add("nothing readable at " + next + " below the end " + end);
                            return Verdict.SILENTLY_CUT;
                        }
                        for (final Record r : batch)
                        {
                            if (r.offset() != next)
                            {
                                why.add("asked for " + next + ", got " + r.offset());
                                return Verdict.SILENTLY_CUT;
                            }
                            if (r.offset() < n && !java.util.Arrays.equals(payload((int)next,
                                size.applyAsInt((int)next)), r.payloadBytes()))
                            {
                                why.add("offset " + next + " returned with damaged bytes");
                                return Verdict.RETURNED_DAMAGED;
                            }
                            ACKED_CHECKED.incrementAndGet();
                            next = r.nextOffset();
                        }
                    }
                }
            }
            catch (final StorageException e)
            {
                why.add("read at " + next + ": " + e.getMessage());
                return Verdict.DETECTED_AT_READ;
            }
            catch (final RuntimeException e)
            {
                why.add("read at " + next + ": " + e);
                return Verdict.UNTYPED_AT_READ;
            }
            if (end < n)
            {
                why.add("end " + end + " of " + n + " durable records, " + log.recoveryReport());
                return Verdict.SILENTLY_CUT;
            }
            return Verdict.INTACT;
        }
        catch (final CorruptLogException e)
        {
            why.add(e.getMessage());
            return Verdict.CORRUPT_AT_OPEN;
        }
        catch (final StorageException e)
        {
            why.add(e.getMessage());
            return Verdict.FAILED_AT_OPEN;
        }
    }

    /**
     * The outcome required for damage below the watermark: {@code CorruptLogException} at open (naming the file),
     * or, where the open does not read that part (after a clean close, or below the watermark), a typed error
     * when a reader reaches it. Never the damaged bytes, never a silent cut.
     */
    private static void expectDetection(final String what, final Path dir, final RecoveryMode mode, final int n,
        final IntUnaryOperator size, final Path file)
    {
        final List<String> why = new ArrayList<>();
        final Verdict v = verdict(dir, mode, null, n, size, why);
        switch (v)
        {
            case CORRUPT_AT_OPEN ->
            {
                assertTrue(why.get(0).contains(file.getFileName().toString()), "names the file: " + why);
                assertTrue(why.get(0).contains("'" + LOG + "'") && why.get(0).contains("offset "), why.toString());
                detected();
            }
            case DETECTED_AT_READ -> detected();
            case RETURNED_DAMAGED ->
            {
                LOST.incrementAndGet();
                engineBug(what + ": " + why);
            }
            case UNTYPED_AT_READ -> engineBug(what + ": untyped read failure: " + why);
            case SILENTLY_CUT ->
            {
                SILENTLY_CUT.incrementAndGet();
                missingOutcome(what + ": durable records cut without a report: " + why);
            }
            default -> fail(what + ": " + v + " " + why);
        }
    }

    /**
     * A crash image's checkpoint may already cover its last record (it is written every few MiB or 100 ms): then
     * damage there is below the watermark, and CorruptLogException is the right answer, not a torn-tail cut.
     *
     * @return true when the open refused the damage as below the watermark (counted as detected).
     */
    private static boolean belowWatermark(final Path dir) throws Exception
    {
        final Path copy = copyOf(dir); // opening cuts and zeroes: look at a copy
        final Outcome o = openOutcome(copy, RecoveryMode.TOLERATE_TORN_TAIL);
        Dirs.delete(copy);
        if (o.error instanceof CorruptLogException && o.error.getMessage().contains("watermark"))
        {
            detected();
            return true;
        }
        return false;
    }

    private static void engineBug(final String what)
    {
        synchronized (FAILED_CASES)
        {
            FAILED_CASES.add("engine bug: " + what);
        }
        fail("engine bug: " + what);
    }

    /** Durable records [0, n) covered by a clean close's watermark, then one more append and a crash image. */
    private static Path crashAfterCleanClose(final int n, final IntUnaryOperator size) throws Exception
    {
        final Path src = cleanLog(n, size, RecoveryMode.TOLERATE_TORN_TAIL);
        final Path image = src.resolveSibling(src.getFileName() + "-img");
        try (LogStore store = open(src, RecoveryMode.TOLERATE_TORN_TAIL))
        {
            appendAll(store.log(LOG), n, 1, size);
            LogSurgery.crashImage(src, LOG, image);
        }
        return image;
    }

    private static void missingOutcome(final String what)
    {
        synchronized (FAILED_CASES)
        {
            FAILED_CASES.add("documented outcome missing: " + what);
        }
        fail("documented outcome missing: " + what);
    }

    static byte[] payload(final int i, final int length)
    {
        return KillLoopChild.payload(i * 7919L + 17, length);
    }

    private static byte[] random(final int n, final long seed)
    {
        final byte[] b = new byte[n];
        new SplittableRandom(seed).nextBytes(b);
        b[0] |= 1; // never an all-zero header
        return b;
    }

    private static LogStore open(final Path dir, final RecoveryMode mode)
    {
        return open(dir, mode, null);
    }

    private static LogStore open(final Path dir, final RecoveryMode mode, final BlockIo io)
    {
        return LogStore.open(StoreConfig.builder(dir).memoryBudget(32L << 20).writerThreads(1).recoveryMode(mode)
            .blockIo(io).defaultLogConfig(LogConfig.builder().segmentSize(SEGMENT).durability(Durability.DSYNC)
                // every segment full size: the cases aim damage at positions of SEGMENT-byte files (the ladder's
                // small segments have their own cases in SegmentLadderRecoveryTest)
                .initialSegmentSize(SEGMENT).build()).build());
    }

    private static void appendAll(final Log log, final int from, final int n, final IntUnaryOperator size)
    {
        final List<CompletableFuture<Long>> futures = new ArrayList<>();
        for (int i = from; i < from + n; i++)
        {
            futures.add(log.append(payload(i, size.applyAsInt(i)), Durability.DSYNC));
        }
        for (int i = 0; i < n; i++)
        {
            assertEquals(from + i, futures.get(i).join());
        }
    }

    /** A log of {@code n} records, closed cleanly: everything in it is below any watermark. */
    private static Path cleanLog(final int n, final IntUnaryOperator size, final RecoveryMode mode) throws Exception
    {
        final Path dir = Dirs.create("corrupt");
        try (LogStore store = open(dir, mode))
        {
            appendAll(store.log(LOG), 0, n, size);
        }
        return dir;
    }

    /** A crash image of a log of {@code n} acknowledged records: the last ones lie in the crash window. */
    private static Path crashImageOf(final int n, final IntUnaryOperator size) throws Exception
    {
        final Path src = Dirs.create("crash-src");
        final Path image = src.resolveSibling(src.getFileName() + "-img");
        try (LogStore store = open(src, RecoveryMode.TOLERATE_TORN_TAIL))
        {
            appendAll(store.log(LOG), 0, n, size);
            LogSurgery.crashImage(src, LOG, image);
        }
        Dirs.delete(src);
        return image;
    }

    private static Path copyOf(final Path storeDir) throws Exception
    {
        final Path copy = Dirs.create("copy");
        LogSurgery.crashImage(storeDir, LOG, copy);
        return copy;
    }

    private static void assertRecords(final Log log, final int n, final IntUnaryOperator size)
    {
        long next = 0;
        while (next < n)
        {
            try (RecordBatch batch = log.read(next, 1 << 20))
            {
                assertFalse(batch.isEmpty(), "nothing readable at " + next);
                for (final Record r : batch)
                {
                    if (r.offset() >= n)
                    {
                        break;
                    }
                    assertEquals(next, r.offset());
                    assertArrayEquals(payload((int)next, size.applyAsInt((int)next)), r.payloadBytes(),
                        "offset " + next);
                    ACKED_CHECKED.incrementAndGet();
                    next = r.nextOffset();
                }
            }
        }
    }

    private static void assertRecordAt(final Log log, final long offset, final IntUnaryOperator size)
    {
        try (RecordBatch batch = log.read(offset, 1))
        {
            final Record r = batch.iterator().next();
            assertEquals(offset, r.offset());
            assertArrayEquals(payload((int)offset, size.applyAsInt((int)offset)), r.payloadBytes());
        }
    }

    private static void readAll(final Log log, final long from, final long to)
    {
        long next = from;
        while (next < to)
        {
            try (RecordBatch batch = log.read(next, 1 << 20))
            {
                if (batch.isEmpty())
                {
                    throw new AssertionError("nothing readable at " + next + " below the end " + to);
                }
                for (final Record r : batch)
                {
                    if (r.offset() != next)
                    {
                        throw new AssertionError("asked for " + next + ", got " + r.offset());
                    }
                    next = r.nextOffset();
                }
            }
        }
    }

    private static void expectCorrupt(final Path dir, final RecoveryMode mode, final Path file, final int position,
        final long offset)
    {
        assertCorrupt(openOutcome(dir, mode), file, position, offset);
    }

    private static void assertCorrupt(final Outcome o, final Path file, final int position, final long offset)
    {
        assertTrue(o.error instanceof CorruptLogException, "expected CorruptLogException: " + o);
        final String m = o.error.getMessage();
        assertTrue(m.contains("'" + LOG + "'"), "names the log: " + m);
        assertTrue(m.contains(file.getFileName().toString()), "names the file: " + m);
        assertTrue(m.contains("position " + position), "names the position " + position + ": " + m);
        assertTrue(m.contains("offset " + offset), "names the offset " + offset + ": " + m);
    }

    /** What opening a damaged store did. */
    record Outcome(RuntimeException error, long end)
    {
    }

    private static Outcome openOutcome(final Path dir, final RecoveryMode mode)
    {
        return openOutcome(dir, mode, null, null);
    }

    private static Outcome openOutcome(final Path dir, final RecoveryMode mode,
        final java.util.function.Consumer<Log> check)
    {
        return openOutcome(dir, mode, null, check);
    }

    private static Outcome openOutcome(final Path dir, final RecoveryMode mode, final BlockIo io,
        final java.util.function.Consumer<Log> check)
    {
        try (LogStore store = open(dir, mode, io))
        {
            final Log log = store.log(LOG);
            if (check != null)
            {
                check.accept(log);
            }
            return new Outcome(null, log.endOffset());
        }
        catch (final StorageException e)
        {
            return new Outcome(e, -1);
        }
    }

    private static final List<String> CAPTURED = new ArrayList<>();
    private static Handler handler;

    private static List<String> captureWarnings()
    {
        CAPTURED.clear();
        handler = new Handler()
        {
            @Override
            public void publish(final LogRecord record)
            {
                synchronized (CAPTURED)
                {
                    CAPTURED.add(String.valueOf(record.getMessage()));
                }
            }

            @Override
            public void flush()
            {
            }

            @Override
            public void close()
            {
            }
        };
        Logger.getLogger("").addHandler(handler);
        return CAPTURED;
    }

    private static void stopCapture()
    {
        Logger.getLogger("").removeHandler(handler);
    }
}
