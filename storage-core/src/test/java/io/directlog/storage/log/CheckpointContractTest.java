package io.directlog.storage.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;

import io.directlog.storage.format.CheckpointDescriptor;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.FileMode;
import io.directlog.storage.io.sim.SimulatedBlockIo;
import io.directlog.storage.page.PageMemory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What recovery relies on from a log's checkpoint file: the newest durable watermark written is the one read back,
 * an older one is never written over a newer one, a torn slot leaves the previous generation, a clean close seals
 * the file, and a file of another log is not taken. Runs on the simulated device.
 */
class CheckpointContractTest
{
    private static final long LOG_ID = 42;
    private static final Path DIR = Path.of("/sim/checkpoint-test");
    private SimulatedBlockIo io;

    @BeforeEach
    void setUp() throws IOException
    {
        io = new SimulatedBlockIo();
        io.createDirectories(DIR);
    }

    private static Watermark at(final long epoch, final long offset)
    {
        return new Watermark(epoch, 0, (int)(offset * 64), offset, (int)(offset * 64) - 64, offset - 1);
    }

    @Test
    void aNewCheckpointHoldsNothingAndItsFileExistsAfterwards() throws IOException
    {
        try (Checkpoint c = Checkpoint.open(io, DIR, LOG_ID))
        {
            assertFalse(c.existed());
            assertNull(c.state());
            assertEquals(0, c.validSlots());
        }
        try (Checkpoint c = Checkpoint.open(io, DIR, LOG_ID))
        {
            assertTrue(c.existed());
            assertNull(c.state(), "an all-zero file holds no watermark");
        }
    }

    @Test
    void theNewestWatermarkWrittenIsTheOneReadBack() throws IOException
    {
        try (Checkpoint c = Checkpoint.open(io, DIR, LOG_ID))
        {
            assertTrue(c.write(at(0, 10), 0));
            assertTrue(c.write(at(0, 20), 0));
            assertTrue(c.write(at(0, 30), 0));
            assertEquals(3, c.writes());
        }
        try (Checkpoint c = Checkpoint.open(io, DIR, LOG_ID))
        {
            final Checkpoint.State state = c.state();
            assertEquals(30, state.offset());
            assertEquals(30 * 64, state.position());
            assertEquals(29, state.lastRecordOffset());
            assertEquals(3, state.generation());
            assertEquals(2, c.validSlots(), "both slots hold a generation");
            assertFalse(state.clean());
        }
    }

    @Test
    void anOlderOrUnchangedWatermarkIsNotWritten() throws IOException
    {
        try (Checkpoint c = Checkpoint.open(io, DIR, LOG_ID))
        {
            assertTrue(c.write(at(1, 20), 0));
            assertFalse(c.write(at(1, 10), 0), "lower offset, same epoch");
            assertFalse(c.write(at(0, 30), 0), "older epoch");
            assertFalse(c.write(at(1, 20), 0), "nothing new");
            assertTrue(c.write(at(2, 5), CheckpointDescriptor.FLAG_TRUNCATING), "a truncation's new epoch");
        }
        try (Checkpoint c = Checkpoint.open(io, DIR, LOG_ID))
        {
            assertEquals(5, c.state().offset());
            assertTrue(c.state().truncating());
        }
    }

    @Test
    void aCleanCloseSealsTheFile() throws IOException
    {
        try (Checkpoint c = Checkpoint.open(io, DIR, LOG_ID))
        {
            assertTrue(c.write(at(0, 10), CheckpointDescriptor.FLAG_CLEAN));
            assertFalse(c.write(at(0, 20), 0), "nothing after the clean close");
        }
        try (Checkpoint c = Checkpoint.open(io, DIR, LOG_ID))
        {
            assertTrue(c.state().clean());
            assertEquals(10, c.state().offset());
        }
    }

    @Test
    void aTornSlotLeavesThePreviousGeneration() throws IOException
    {
        final int block = io.blockAlignment();
        try (Checkpoint c = Checkpoint.open(io, DIR, LOG_ID))
        {
            c.write(at(0, 10), 0); // generation 1: slot 1
            c.write(at(0, 20), 0); // generation 2: slot 0
        }
        final PageMemory garbage = PageMemory.allocate(block, block);
        try (BlockFile f = io.open(DIR.resolve(SegmentFiles.CHECKPOINT_FILE), FileMode.DIRECT, false))
        {
            for (int i = 0; i < block; i += 8)
            {
                garbage.buffer().putLong(i, 0x5A5A5A5A5A5A5A5AL * (i + 1));
            }
            garbage.buffer().putLong(block / 2, 0); // a torn write: half new bytes
            f.write(garbage.byteBuffer(), 0, block, 0);
        }
        finally
        {
            garbage.free();
        }
        try (Checkpoint c = Checkpoint.open(io, DIR, LOG_ID))
        {
            assertEquals(1, c.validSlots());
            assertEquals(10, c.state().offset());
            assertEquals(1, c.state().generation());
            assertTrue(c.write(at(0, 30), 0), "writing goes on over the torn slot");
        }
        try (Checkpoint c = Checkpoint.open(io, DIR, LOG_ID))
        {
            assertEquals(30, c.state().offset());
        }
    }

    @Test
    void theCheckpointOfAnotherLogIsNotTaken() throws IOException
    {
        try (Checkpoint c = Checkpoint.open(io, DIR, LOG_ID))
        {
            c.write(at(0, 10), 0);
        }
        try (Checkpoint c = Checkpoint.open(io, DIR, LOG_ID + 1))
        {
            assertNull(c.state());
            assertEquals(0, c.validSlots());
        }
    }
}
