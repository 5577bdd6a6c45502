package io.directlog.storage.log;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

import io.directlog.storage.format.RecordDescriptor;
import io.directlog.storage.format.SegmentHeaderDescriptor;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scanner's reading of gaps (format version 2): where records go on, where the end is, what is damage. */
class RecordScannerTest
{
    private static final int SEGMENT = 64 << 10;
    private static final int BLOCK = 4096;
    private static final int LOG_ID = 0x1234567;

    private final UnsafeBuffer segment = new UnsafeBuffer(ByteBuffer.allocateDirect(SEGMENT).order(ByteOrder.nativeOrder()));

    /** Writes a record at {@code position}; returns where the next one may start. */
    private int record(final int position, final long offset, final int payload)
    {
        final int length = RecordDescriptor.recordLength(payload);
        segment.putLong(position + RecordDescriptor.OFFSET_OFFSET, offset);
        segment.putLong(position + RecordDescriptor.TIMESTAMP_OFFSET, 1_700_000_000_000L + offset);
        segment.putInt(position + RecordDescriptor.COUNT_OFFSET, 1);
        segment.putInt(position + RecordDescriptor.LOG_ID_OFFSET, LOG_ID);
        for (int i = 0; i < payload; i++)
        {
            segment.putByte(position + RecordDescriptor.HEADER_LENGTH + i, (byte)(offset + i + 1));
        }
        final byte[] covered = new byte[length - RecordDescriptor.CRC_COVERAGE_OFFSET];
        segment.getBytes(position + RecordDescriptor.CRC_COVERAGE_OFFSET, covered);
        final CRC32C crc = new CRC32C();
        crc.update(covered);
        segment.putInt(position + RecordDescriptor.CRC_OFFSET, (int)crc.getValue());
        segment.putInt(position + RecordDescriptor.LENGTH_OFFSET, length);
        return position + RecordDescriptor.alignedLength(length);
    }

    /** Fills a gap as the writer does; returns the block boundary after it. */
    private int gap(final int position)
    {
        final int end = RecordDescriptor.gapEnd(position, BLOCK);
        if (end > position)
        {
            segment.setMemory(position + 4, end - position - 4, RecordDescriptor.GAP_FILL);
        }
        return end;
    }

    private RecordScanner scan(final RecordScanner.Stop expected, final int limit)
    {
        final RecordScanner scanner = new RecordScanner(BLOCK);
        assertEquals(expected, scanner.scan(segment, SegmentHeaderDescriptor.LENGTH, limit, 100, LOG_ID, null, 0,
            SEGMENT), () -> "reason " + scanner.reason());
        return scanner;
    }

    @Test
    void recordsGoOnAfterAGapAndEndAtAZeroHeaderOnABlockBoundary()
    {
        int p = record(SegmentHeaderDescriptor.LENGTH, 100, 100);
        p = gap(record(p, 101, 10));
        final int end = record(record(p, 102, 3000), 103, 0);
        final RecordScanner scanner = scan(RecordScanner.Stop.END, SEGMENT);
        assertEquals(4, scanner.records());
        assertEquals(104, scanner.nextOffset());
        assertEquals(end, scanner.position());
    }

    @Test
    void aGapAfterTheLastRecordIsTheEndAtTheGapsStart()
    {
        final int end = record(SegmentHeaderDescriptor.LENGTH, 100, 100);
        gap(end);
        final RecordScanner scanner = scan(RecordScanner.Stop.END, SEGMENT);
        assertEquals(1, scanner.records());
        assertEquals(end, scanner.position(), "the end is the last record's end");
        assertEquals(RecordDescriptor.gapEnd(end, BLOCK), scanner.damagePosition(), "zeros are checked from the boundary");
    }

    @Test
    void aGapShorterThanAHeaderAtTheSegmentsEndIsTheEnd()
    {
        // records up to 8 bytes before the end: the gap holds the zero length and 4 bytes of filler
        int p = SegmentHeaderDescriptor.LENGTH;
        long offset = 100;
        while (p < SEGMENT - 8 - 2 * BLOCK)
        {
            p = record(p, offset++, 4000);
        }
        final int last = SEGMENT - 8 - p - RecordDescriptor.HEADER_LENGTH;
        p = record(p, offset++, last);
        assertEquals(SEGMENT - 8, p);
        gap(p);
        final RecordScanner scanner = scan(RecordScanner.Stop.END, SEGMENT);
        assertEquals(offset, scanner.nextOffset());
        assertEquals(SEGMENT - 8, scanner.position());
    }

    @Test
    void aGapOfZerosIsATornWriteOfItsBlockAndStillAGap()
    {
        int p = record(SegmentHeaderDescriptor.LENGTH, 100, 100);
        p = RecordDescriptor.gapEnd(p, BLOCK); // the gap's sectors never written: zeros
        record(p, 101, 100);
        assertEquals(2, scan(RecordScanner.Stop.END, SEGMENT).records());
    }

    @Test
    void damageInAGapStopsTheScanAtItsStart()
    {
        final int end = record(SegmentHeaderDescriptor.LENGTH, 100, 100);
        record(gap(end), 101, 100);
        segment.putByte(end + 600, (byte)0x11); // a byte of the gap's second sector
        final RecordScanner scanner = scan(RecordScanner.Stop.INVALID, SEGMENT);
        assertEquals(end, scanner.position());
        assertEquals(end, scanner.damagePosition());
        assertTrue(scanner.reason().contains("gap"), scanner.reason());
    }

    @Test
    void aRecordAfterAGapThatIsNotTheExpectedOneIsDamageAtTheBoundary()
    {
        final int end = record(SegmentHeaderDescriptor.LENGTH, 100, 100);
        final int boundary = gap(end);
        record(boundary, 105, 100); // offset 101 expected
        final RecordScanner scanner = scan(RecordScanner.Stop.INVALID, SEGMENT);
        assertEquals(end, scanner.position(), "the end of the last good record");
        assertEquals(boundary, scanner.damagePosition(), "damage judged where it lies, past the gap");
    }

    @Test
    void aZeroLengthOnABlockBoundaryIsTheEndNotAGap()
    {
        int p = SegmentHeaderDescriptor.LENGTH;
        p = record(p, 100, BLOCK - RecordDescriptor.HEADER_LENGTH); // ends exactly on a boundary
        record(p + BLOCK, 101, 100); // a record a block further on is not reached by a gap
        final RecordScanner scanner = scan(RecordScanner.Stop.END, SEGMENT);
        assertEquals(1, scanner.records());
        assertEquals(p, scanner.position());
    }

    @Test
    void aGapNotLoadedToItsEndAsksTheCallerToReadOn()
    {
        final int end = record(SegmentHeaderDescriptor.LENGTH, 100, 100);
        record(gap(end), 101, 100);
        final RecordScanner scanner = scan(RecordScanner.Stop.LIMIT, end + 100);
        assertEquals(end, scanner.position());
    }
}
