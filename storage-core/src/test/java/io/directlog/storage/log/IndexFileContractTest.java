package io.directlog.storage.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;

import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.FileMode;
import io.directlog.storage.io.sim.SimulatedBlockIo;
import io.directlog.storage.page.PageMemory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What opening a log relies on from a persisted segment index: it reads back with its entries and end, leaves out
 * entries at or above the end it was written for, and anything that does not match (another log, another segment,
 * damaged bytes, no file) reads as "no index", so the segment is scanned instead. Runs on the simulated device.
 */
class IndexFileContractTest
{
    private static final long LOG_ID = 7;
    private static final int CAPACITY = 1 << 20;
    private static final int RECORD = 1000;
    private static final Path DIR = Path.of("/sim/index-test");
    private SimulatedBlockIo io;

    @BeforeEach
    void setUp() throws IOException
    {
        io = new SimulatedBlockIo();
        io.createDirectories(DIR);
    }

    private static Segment segment(final long sequence, final long baseOffset)
    {
        return new Segment(null, sequence, baseOffset, SegmentFiles.segment(DIR, sequence), CAPACITY, 4096, false);
    }

    /** An index over {@code records} records of {@link #RECORD} bytes from position 4096, offsets from base. */
    private static SegmentIndex indexOf(final long baseOffset, final int records)
    {
        final SegmentIndex index = new SegmentIndex(CAPACITY);
        for (int i = 0; i < records; i++)
        {
            index.onRecord(baseOffset + i, 4096 + i * RECORD, 1_000_000L + i, RECORD);
        }
        return index;
    }

    @Test
    void aWrittenIndexReadsBackWithItsEntriesAndEnd() throws IOException
    {
        final Segment segment = segment(3, 500);
        final SegmentIndex index = indexOf(500, 400);
        assertTrue(index.count() > 10, "enough entries to mean something: " + index.count());
        final int end = 4096 + 400 * RECORD;
        IndexFile.write(io, DIR, LOG_ID, segment, index, end, 900, 1_000_399L);
        final IndexFile.Loaded loaded = IndexFile.read(io, DIR, LOG_ID, segment);
        assertNotNull(loaded);
        assertEquals(900, loaded.endOffset());
        assertEquals(end, loaded.endPosition());
        assertEquals(1_000_399L, loaded.maxTimestamp());
        assertEquals(index.count(), loaded.index().count());
        for (int i = 0; i < index.count(); i++)
        {
            assertEquals(index.offsetAt(i), loaded.index().offsetAt(i), "entry " + i);
            assertEquals(index.positionAt(i), loaded.index().positionAt(i), "entry " + i);
        }
        assertEquals(index.floorPosition(750), loaded.index().floorPosition(750));
    }

    @Test
    void entriesAtOrAboveTheEndAreLeftOut() throws IOException
    {
        final Segment segment = segment(3, 0);
        final SegmentIndex index = indexOf(0, 400);
        final int end = 4096 + 200 * RECORD;
        IndexFile.write(io, DIR, LOG_ID, segment, index, end, 200, 1_000_199L);
        final IndexFile.Loaded loaded = IndexFile.read(io, DIR, LOG_ID, segment);
        assertNotNull(loaded);
        assertTrue(loaded.index().count() < index.count());
        for (int i = 0; i < loaded.index().count(); i++)
        {
            assertTrue(loaded.index().positionAt(i) < end, "entry " + i + " below the end");
        }
    }

    @Test
    void anIndexOfAnotherLogOrSegmentIsNotTaken() throws IOException
    {
        final Segment segment = segment(3, 500);
        IndexFile.write(io, DIR, LOG_ID, segment, indexOf(500, 100), 4096 + 100 * RECORD, 600, 1_000_099L);
        assertNull(IndexFile.read(io, DIR, LOG_ID + 1, segment), "another log");
        assertNull(IndexFile.read(io, DIR, LOG_ID, segment(3, 501)), "another base offset");
        assertNull(IndexFile.read(io, DIR, LOG_ID, segment(4, 500)), "no file for that segment");
    }

    @Test
    void aDamagedIndexIsNotTaken() throws IOException
    {
        final Segment segment = segment(3, 0);
        IndexFile.write(io, DIR, LOG_ID, segment, indexOf(0, 100), 4096 + 100 * RECORD, 100, 1_000_099L);
        final int block = io.blockAlignment();
        final PageMemory memory = PageMemory.allocate(block, block);
        try (BlockFile f = io.open(SegmentFiles.index(DIR, 3), FileMode.DIRECT, false))
        {
            assertEquals(block, f.read(memory.byteBuffer(), 0, block, 0));
            memory.buffer().putByte(100, (byte)(memory.buffer().getByte(100) ^ 1)); // one bit, inside an entry
            f.write(memory.byteBuffer(), 0, block, 0);
        }
        finally
        {
            memory.free();
        }
        assertNull(IndexFile.read(io, DIR, LOG_ID, segment));
    }

    @Test
    void aDeletedIndexReadsAsNone() throws IOException
    {
        final Segment segment = segment(3, 0);
        IndexFile.write(io, DIR, LOG_ID, segment, indexOf(0, 100), 4096 + 100 * RECORD, 100, 1_000_099L);
        assertNotNull(IndexFile.read(io, DIR, LOG_ID, segment));
        IndexFile.delete(io, DIR, 3);
        assertFalse(io.exists(SegmentFiles.index(DIR, 3)));
        assertNull(IndexFile.read(io, DIR, LOG_ID, segment));
    }
}
