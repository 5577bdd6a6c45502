package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.storage.format.SegmentHeaderDescriptor;

/**
 * Issue 17: offsets are never given to a second record, also where the checkpoint does not name the end. After a
 * crash, {@link RecoveryMode#TRUNCATE_AT_CORRUPTION} may drop records beyond the durable watermark (damage with
 * valid records after it) or lose an unknown number of them (the newest segment's file cut short), and the default
 * mode cuts a torn tail with valid records counted after it: a consumer may have read them, so the log goes on
 * above every offset they may have held, after a hole in the offsets, and says so in its report. Reads cross the
 * hole; a reopen keeps it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DroppedOffsetsNeverReusedTest
{
    private static final int ACKED = 400;

    @Test
    void validRecordsDroppedBeyondTheWatermarkKeepTheirOffsets() throws Exception
    {
        final Path image = RecoveryTest.imageWithTail("reuse-beyond", 200, ACKED);
        final Path logDir = image.resolve("a");
        final long[] cp = checkpointBelowTheTail(logDir);
        // a flipped bit in the first record after the watermark: valid, acknowledged records follow it
        StoreFiles.flip(logDir.resolve(String.format("%020d.log", cp[1])), cp[2] + 40);
        try (LogStore store = LogStore.open(RecoveryTest.config(image, RecoveryMode.TRUNCATE_AT_CORRUPTION)))
        {
            final Log log = store.log("a");
            printReport(log, "dropped beyond the watermark");
            assertDroppedAndGoesOnAfter(log, cp[3], ACKED);
            RecoveryTest.append(log, ACKED, ACKED + 10);
            assertAcross(log, cp[3], ACKED, ACKED + 10);
        }
        reopenKeepsTheHole(image, RecoveryMode.TRUNCATE_AT_CORRUPTION, cp[3], ACKED, ACKED + 10);
    }

    /**
     * The default mode too: a torn tail with valid (acknowledged) records counted after it is cut, and the log goes
     * on after them, past a hole, not at the cut (main gave their offsets to the next appends). A 4 KiB block
     * zeroed after the watermark's block reads as never written (a torn span), so the default mode cuts it.
     */
    @Test
    void theDefaultModeKeepsTheOffsetsOfRecordsFoundAfterATornTail() throws Exception
    {
        final Path image = RecoveryTest.imageWithTail("reuse-torn-default", 200, ACKED);
        final Path logDir = image.resolve("a");
        final long[] cp = checkpointBelowTheTail(logDir);
        final Path segment = logDir.resolve(String.format("%020d.log", cp[1]));
        final long block = cp[2] / 4096 * 4096 + 4096;
        assertTrue(StoreFiles.lastRecordByte(segment) > block + 3 * 4096, "records after the zeroed block");
        StoreFiles.write(segment, block, new byte[4096]);
        final long cut;
        try (LogStore store = LogStore.open(RecoveryTest.config(image, RecoveryMode.TOLERATE_TORN_TAIL)))
        {
            final Log log = store.log("a");
            final RecoveryReport report = printReport(log, "torn tail with records after it, default mode");
            cut = report.cutOffset();
            assertTrue(report.tornTail(), report.toString());
            assertTrue(cut >= cp[3] && cut < ACKED, report.toString());
            assertDroppedAndGoesOnAfter(log, cut, ACKED);
            assertEquals(ACKED, log.append(RecoveryTest.payload(ACKED)).join(), "the next append's offset");
            RecoveryTest.append(log, ACKED + 1, ACKED + 10);
            assertAcross(log, cut, ACKED, ACKED + 10);
        }
        reopenKeepsTheHole(image, RecoveryMode.TOLERATE_TORN_TAIL, cut, ACKED, ACKED + 10);
    }

    @Test
    void recordsLostWithTheEndOfTheNewestSegmentKeepTheirOffsets() throws Exception
    {
        final Path image = RecoveryTest.imageWithTail("reuse-short", 200, ACKED);
        final Path logDir = image.resolve("a");
        final Path newest = newestWithRecords(logDir);
        final long lastByte = StoreFiles.lastRecordByte(newest);
        // cut the file at the block holding the last record's end: bytes of acknowledged records are gone, and
        // nothing says how many records they held
        final long length = lastByte / 4096 * 4096;
        assertTrue(length > 4096, "records beyond the header block: " + lastByte);
        try (FileChannel ch = FileChannel.open(newest, StandardOpenOption.WRITE))
        {
            ch.truncate(length);
        }
        final long holeFrom;
        final long holeTo;
        try (LogStore store = LogStore.open(RecoveryTest.config(image, RecoveryMode.TRUNCATE_AT_CORRUPTION)))
        {
            final Log log = store.log("a");
            final RecoveryReport report = printReport(log, "newest segment cut short");
            holeFrom = report.cutOffset();
            holeTo = log.endOffset();
            assertTrue(holeFrom < ACKED, report.toString());
            assertEquals(holeFrom, report.droppedFromOffset(), report.toString());
            // the bound on what the lost bytes held: far above every record written, and named by the report
            assertTrue(holeTo > ACKED + (long)Integer.MAX_VALUE, "goes on above any offset the lost bytes " +
                "could hold: " + report);
            assertEquals(holeTo, report.droppedToOffset(), report.toString());
            assertTrue(report.droppedRecords() < ACKED, "counts the records known, not the bound: " + report);
            for (long o = holeTo; o < holeTo + 10; o++)
            {
                assertEquals(o, log.append(RecoveryTest.payload(o)).join());
            }
            assertAcross(log, holeFrom, holeTo, holeTo + 10);
        }
        reopenKeepsTheHole(image, RecoveryMode.TRUNCATE_AT_CORRUPTION, holeFrom, holeTo, holeTo + 10);
    }

    /**
     * The newest segment's header garbled with its records intact behind it: TRUNCATE_AT_CORRUPTION gives the file
     * up and reports the whole range it held, from the segment's start (where the previous segment's records end)
     * to the end of its last record, all counted, and goes on after them.
     */
    @Test
    void aBadNewestHeaderWithRecordsBehindItReportsTheWholeRangeItDrops() throws Exception
    {
        final long acked = 9_000;
        final Path image = RecoveryTest.imageWithTail("reuse-bad-header", 100, acked); // rolls past the watermark's
        final Path newest = newestWithRecords(image.resolve("a"));
        final long base = ByteBuffer.wrap(StoreFiles.read(newest, 0, 64)).order(ByteOrder.nativeOrder())
            .getLong(SegmentHeaderDescriptor.BASE_OFFSET_OFFSET);
        assertTrue(base > 100 && base < acked, "a segment beyond the watermark's: " + base);
        StoreFiles.flip(newest, 30);
        try (LogStore store = LogStore.open(RecoveryTest.config(image, RecoveryMode.TRUNCATE_AT_CORRUPTION)))
        {
            final Log log = store.log("a");
            printReport(log, "bad newest header");
            assertDroppedAndGoesOnAfter(log, base, acked);
            RecoveryTest.append(log, acked, acked + 10);
            assertAcross(log, base, acked, acked + 10);
        }
        reopenKeepsTheHole(image, RecoveryMode.TRUNCATE_AT_CORRUPTION, base, acked, acked + 10);
    }

    /** @return the log's recovery report, printed with the damage done to the image (the output shows each case). */
    private static RecoveryReport printReport(final Log log, final String damage)
    {
        final RecoveryReport report = log.recoveryReport();
        System.out.println("RECOVERY " + damage + ": " + report);
        return report;
    }

    /** @return the log's checkpoint fields ({@link StoreFiles#checkpoint}), its watermark checked below the tail. */
    private static long[] checkpointBelowTheTail(final Path logDir) throws IOException
    {
        final long[] cp = StoreFiles.checkpoint(logDir);
        assertTrue(cp[3] < ACKED, "the watermark stays below the tail: " + cp[3]);
        return cp;
    }

    /**
     * Asserts the log's recovery cut at {@code from} and reports {@code [from, to)} dropped, every offset in it a
     * record counted, and that the log goes on at {@code to}.
     */
    private static void assertDroppedAndGoesOnAfter(final Log log, final long from, final long to)
    {
        final RecoveryReport report = log.recoveryReport();
        assertEquals(from, report.cutOffset(), report.toString());
        assertEquals(from, report.droppedFromOffset(), report.toString());
        assertEquals(to, report.droppedToOffset(), report.toString());
        assertEquals(to - from, report.droppedRecords(), report.toString());
        assertEquals(to, log.endOffset(), "goes on after the last offset a dropped record held: " + report);
    }

    /** A clean reopen: the records on both sides of the hole, and the next append after the new ones. */
    private static void reopenKeepsTheHole(final Path image, final RecoveryMode mode, final long holeFrom,
        final long holeTo, final long end) throws Exception
    {
        try (LogStore store = LogStore.open(RecoveryTest.config(image, mode)))
        {
            final Log log = store.log("a");
            assertTrue(log.recoveryReport().cleanShutdown(), log.recoveryReport().toString());
            assertEquals(end, log.endOffset());
            assertAcross(log, holeFrom, holeTo, end);
            assertEquals(end, log.append(RecoveryTest.payload(end)).join());
        }
    }

    /**
     * Reads from offset 0 to {@code end}: every record below the hole {@code [holeFrom, holeTo)}, then the ones
     * after it, each with its own payload; a read at an offset in the hole starts at its end.
     */
    private static void assertAcross(final Log log, final long holeFrom, final long holeTo, final long end)
    {
        final List<Long> expected = new ArrayList<>();
        for (long o = 0; o < end; o = o + 1 == holeFrom ? holeTo : o + 1)
        {
            expected.add(o);
        }
        final List<Long> seen = new ArrayList<>();
        long next = 0;
        while (next < end)
        {
            try (RecordBatch batch = log.read(next, 1 << 16))
            {
                assertFalse(batch.isEmpty(), "offset " + next + " readable (end " + log.endOffset() + ")");
                for (final Record r : batch)
                {
                    assertArrayEquals(RecoveryTest.payload(r.offset()), r.payloadBytes(), "payload of " + r.offset());
                    seen.add(r.offset());
                    next = r.offset() + 1;
                }
            }
        }
        assertEquals(expected, seen);
        try (RecordBatch batch = log.read((holeFrom + holeTo) / 2, 1 << 16))
        {
            assertEquals(holeTo, batch.iterator().next().offset(), "a read in the hole starts at its end");
        }
    }

    private static Path newestWithRecords(final Path logDir) throws IOException
    {
        Path newest = null;
        for (final Path p : StoreFiles.segments(logDir))
        {
            if (StoreFiles.read(p, 0, 8)[0] != 0)
            {
                newest = p;
            }
        }
        return newest;
    }
}
