package io.directlog.nativeio;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AlignedMemoryTest
{
    @BeforeEach
    void setUp()
    {
        NativeTestSupport.assumeNative();
    }

    @Test
    void addressIsAlignedAndMemoryStartsZeroed()
    {
        for (final int alignment : new int[] {8, 512, 4096, 65536})
        {
            try (AlignedMemory memory = AlignedMemory.allocate(alignment * 4L, alignment))
            {
                assertEquals(0, memory.address() % alignment);
                assertEquals(alignment * 4L, memory.size());
                assertEquals(alignment, memory.alignment());
                for (int i = 0; i < memory.size(); i++)
                {
                    assertEquals(0, memory.buffer().getByte(i));
                }
            }
        }
    }

    @Test
    void zeroClearsWrittenBytes()
    {
        try (AlignedMemory memory = AlignedMemory.allocate(8192, 4096))
        {
            NativeTestSupport.fill(memory, 3);
            memory.zero();
            for (int i = 0; i < memory.size(); i++)
            {
                assertEquals(0, memory.buffer().getByte(i));
            }
        }
    }

    @Test
    void viewsCoverTheWholeBlockAndAreCreatedOnce()
    {
        try (AlignedMemory memory = AlignedMemory.allocate(4096, 4096))
        {
            final UnsafeBuffer buffer = memory.buffer();
            assertSame(buffer, memory.buffer());
            assertEquals(memory.address(), buffer.addressOffset());
            assertEquals(4096, buffer.capacity());

            final ByteBuffer bb = memory.byteBuffer();
            assertSame(bb, memory.byteBuffer());
            assertTrue(bb.isDirect());
            assertEquals(4096, bb.capacity());
            buffer.putByte(100, (byte)0x5A);
            assertEquals(0x5A, bb.get(100));
            assertEquals(ByteOrder.nativeOrder(), bb.order());
            buffer.putLong(8, 0x0102030405060708L);
            assertEquals(0x0102030405060708L, bb.getLong(8));
        }
    }

    @Test
    void badAlignmentIsRejectedNamingTheValue()
    {
        final IllegalArgumentException notPowerOfTwo =
            assertThrows(IllegalArgumentException.class, () -> AlignedMemory.allocate(4096, 3000));
        assertTrue(notPowerOfTwo.getMessage().contains("3000"), notPowerOfTwo::getMessage);
        final IllegalArgumentException tooSmall =
            assertThrows(IllegalArgumentException.class, () -> AlignedMemory.allocate(4096, 4));
        assertTrue(tooSmall.getMessage().contains("power of two >= 8: 4"), tooSmall::getMessage);
    }

    @Test
    void badSizeIsRejectedNamingTheValue()
    {
        final IllegalArgumentException zero =
            assertThrows(IllegalArgumentException.class, () -> AlignedMemory.allocate(0, 4096));
        assertTrue(zero.getMessage().contains("positive: 0"), zero::getMessage);
        final IllegalArgumentException notMultiple =
            assertThrows(IllegalArgumentException.class, () -> AlignedMemory.allocate(5000, 4096));
        assertTrue(notMultiple.getMessage().contains("multiple of the alignment 4096: 5000"),
            notMultiple::getMessage);
    }

    @Test
    void hugeAllocationFailsWithNativeMemoryExceptionNotAnError()
    {
        final NativeMemoryException ex = assertThrows(NativeMemoryException.class,
            () -> AlignedMemory.allocate(1L << 62, 4096));
        assertEquals(Errno.ENOMEM, ex.errno());
        assertTrue(ex.getMessage().contains("mmap"), ex::getMessage); // large blocks are anonymous mappings
    }

    @Test
    void largeBlockIsPageAlignedZeroedAndWritable()
    {
        try (AlignedMemory m = AlignedMemory.allocate(64L << 20, 4096))
        {
            assertEquals(0, m.address() % 4096);
            assertEquals(0, m.buffer().getLong(0));
            assertEquals(0, m.buffer().getLong((64 << 20) - 8));
            m.buffer().putLong(32 << 20, 42);
            assertEquals(42, m.buffer().getLong(32 << 20));
            m.zero();
            assertEquals(0, m.buffer().getLong(32 << 20));
        }
    }

    @Test
    void accessAfterCloseThrowsAndDoubleCloseIsHarmless()
    {
        final AlignedMemory memory = AlignedMemory.allocate(4096, 4096);
        final UnsafeBuffer stale = memory.buffer();
        assertFalse(memory.isClosed());
        memory.close();
        memory.close();

        assertTrue(memory.isClosed());
        assertThrows(IllegalStateException.class, memory::address);
        assertThrows(IllegalStateException.class, memory::buffer);
        assertThrows(IllegalStateException.class, memory::byteBuffer);
        assertThrows(IllegalStateException.class, memory::zero);
        // The view handed out earlier no longer points at the freed block.
        assertThrows(IndexOutOfBoundsException.class, () -> stale.getByte(0));
    }

    @Test
    void concurrentClosesFreeOnce() throws Exception
    {
        for (int round = 0; round < 200; round++)
        {
            final AlignedMemory memory = AlignedMemory.allocate(4096, 4096);
            final Thread other = new Thread(memory::close);
            other.start();
            memory.close();
            other.join(10_000);
            assertTrue(memory.isClosed());
        }
    }

    @Test
    void discardZeroesTheRangeAndLeavesTheRestOfAMappedBlock()
    {
        try (AlignedMemory memory = AlignedMemory.allocate(4L << 20, 4096))
        {
            assertTrue(memory.isMapped());
            memory.buffer().setMemory(0, 4 << 20, (byte)7);

            memory.discard(4096, 2L << 20);

            assertEquals(7, memory.buffer().getByte(4095));
            for (int i = 4096; i < 4096 + (2 << 20); i += 512)
            {
                assertEquals(0, memory.buffer().getByte(i), "byte " + i);
            }
            assertEquals(7, memory.buffer().getByte(4096 + (2 << 20)));
            memory.buffer().putByte(8192, (byte)9); // a discarded range is writable again
            assertEquals(9, memory.buffer().getByte(8192));
        }
    }

    @Test
    void discardGivesAMappedBlocksMemoryBackToTheKernel() throws Exception
    {
        final int size = 64 << 20;
        try (AlignedMemory memory = AlignedMemory.allocate(size, 4096))
        {
            memory.buffer().setMemory(0, size, (byte)1);
            final long touched = residentBytes();

            memory.discard(0, size);

            final long after = residentBytes();
            assertTrue(touched - after >= size / 2, "resident " + touched + " -> " + after +
                " after discarding 64 MiB that were written");
        }
    }

    @Test
    void discardOfASmallBlockZeroesIt()
    {
        try (AlignedMemory memory = AlignedMemory.allocate(16384, 4096))
        {
            assertFalse(memory.isMapped());
            memory.buffer().setMemory(0, 16384, (byte)3);
            memory.discard(4096, 8192);
            assertEquals(3, memory.buffer().getByte(4095));
            assertEquals(0, memory.buffer().getByte(4096));
            assertEquals(0, memory.buffer().getByte(12287));
            assertEquals(3, memory.buffer().getByte(12288));
        }
    }

    @Test
    void discardRejectsRangesOutsideTheBlockOrOffThePageGrid()
    {
        try (AlignedMemory memory = AlignedMemory.allocate(4L << 20, 4096))
        {
            assertThrows(IllegalArgumentException.class, () -> memory.discard(0, 8L << 20));
            assertThrows(IllegalArgumentException.class, () -> memory.discard(-4096, 4096));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> memory.discard(100, 4096))
                .getMessage().contains("multiples of 4096"));
            assertThrows(IllegalArgumentException.class, () -> memory.discard(4096, 100));
        }
    }

    @Test
    void populateWriteMakesARangeResidentAndChangesNoByte() throws Exception
    {
        final int size = 64 << 20;
        try (AlignedMemory memory = AlignedMemory.allocate(size, 4096))
        {
            memory.buffer().setMemory(0, 8192, (byte)5); // what a writer copied before the populate
            final long before = residentBytes();

            final boolean populated = memory.populateWrite(4096, size - 4096);

            if (!AlignedMemory.populateSupported())
            {
                assertFalse(populated, "a kernel without MADV_POPULATE_WRITE: nothing done");
                return;
            }
            assertTrue(populated);
            final long after = residentBytes();
            assertTrue(after - before >= size / 2, "resident " + before + " -> " + after + " after populating 64 MiB");
            assertEquals(5, memory.buffer().getByte(4096), "a written byte is kept");
            assertEquals(5, memory.buffer().getByte(8191));
            for (int i = 8192; i < size; i += 4096)
            {
                assertEquals(0, memory.buffer().getLong(i), "byte " + i + " reads as zero");
            }
        }
    }

    @Test
    void populateWriteOfASmallBlockDoesNothingAndABadRangeIsRejected()
    {
        try (AlignedMemory small = AlignedMemory.allocate(16384, 4096))
        {
            assertFalse(small.populateWrite(0, 16384), "posix_memalign memory is resident already");
            assertEquals(0, small.buffer().getByte(0));
        }
        final AlignedMemory mapped = AlignedMemory.allocateMapped(16384, 4096);
        assertThrows(IllegalArgumentException.class, () -> mapped.populateWrite(0, 32768));
        assertThrows(IllegalArgumentException.class, () -> mapped.populateWrite(100, 4096));
        mapped.close();
        assertThrows(IllegalStateException.class, () -> mapped.populateWrite(0, 4096), "a closed block is refused");
    }

    @Test
    void aSmallMappedBlockIsAMappingThatCostsNothingUntilWritten() throws Exception
    {
        final long before = residentBytes();
        final AlignedMemory[] blocks = new AlignedMemory[256];
        try
        {
            for (int i = 0; i < blocks.length; i++)
            {
                blocks[i] = AlignedMemory.allocateMapped(256 << 10, 4096); // 64 MiB in all, below MMAP_THRESHOLD each
                assertTrue(blocks[i].isMapped());
                assertEquals(0, blocks[i].address() % 4096);
                assertEquals(0, blocks[i].buffer().getByte((256 << 10) - 1), "reads as zero");
            }
            final long after = residentBytes();
            assertTrue(after - before < 32 << 20, "64 MiB of untouched mappings made " + (after - before) +
                " bytes resident");
        }
        finally
        {
            for (final AlignedMemory b : blocks)
            {
                if (b != null)
                {
                    b.close();
                }
            }
        }
        assertThrows(IllegalArgumentException.class, () -> AlignedMemory.allocateMapped(1000, 4096));
        assertThrows(IllegalArgumentException.class, () -> AlignedMemory.allocateMapped(4096, 8192));
    }

    private static long residentBytes() throws java.io.IOException
    {
        for (final String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status")))
        {
            if (line.startsWith("VmRSS:"))
            {
                return Long.parseLong(line.substring(6).trim().split("\\s+")[0]) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
