package io.directlog.storage.io;

import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.BlockWriteBatch;
import io.directlog.storage.spi.FileMode;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.directlog.storage.page.PageMemory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the engine relies on from every {@link BlockIo}, run against each implementation (native O_DIRECT, the
 * buffered fallback, the simulated device of the crash tests): positional writes read back, reads past the end are
 * short and zero-free, allocate and truncate set the size, a missing file is not created unless asked, rename and
 * delete move and remove directory entries, and a direct implementation refuses misaligned I/O.
 */
abstract class BlockIoContract
{
    private final List<PageMemory> memory = new ArrayList<>();
    private final List<BlockFile> files = new ArrayList<>();
    protected BlockIo io;
    protected Path dir;
    private int block;

    /** @return the implementation under test. @throws IOException when it cannot be made. */
    abstract BlockIo newIo() throws IOException;

    /** @return a directory path the implementation may create. @throws IOException when none can be made. */
    abstract Path newDirectory() throws IOException;

    @BeforeEach
    void setUp() throws IOException
    {
        io = newIo();
        dir = newDirectory().resolve("contract");
        io.createDirectories(dir);
        block = io.blockAlignment();
    }

    @AfterEach
    void tearDown() throws IOException
    {
        for (final BlockFile file : files)
        {
            file.close();
        }
        memory.forEach(PageMemory::free);
    }

    private BlockFile open(final String name, final FileMode mode, final boolean create) throws IOException
    {
        final BlockFile file = io.open(dir.resolve(name), mode, create);
        files.add(file);
        return file;
    }

    private ByteBuffer filled(final int length, final int seed)
    {
        final PageMemory page = PageMemory.allocate(length, block);
        memory.add(page);
        final ByteBuffer buffer = page.byteBuffer();
        for (int i = 0; i < length; i++)
        {
            buffer.put(i, (byte)(seed + i * 7));
        }
        return buffer;
    }

    private static byte[] bytes(final ByteBuffer buffer, final int index, final int length)
    {
        final byte[] out = new byte[length];
        buffer.get(index, out, 0, length);
        return out;
    }

    @Test
    void aBlockWrittenAtAPositionReadsBack() throws IOException
    {
        final BlockFile file = open("a.log", FileMode.DIRECT, true);
        final ByteBuffer source = filled(2 * block, 3);
        file.write(source, block, block, 3L * block);
        final ByteBuffer target = filled(block, 0);
        assertEquals(block, file.read(target, 0, block, 3L * block));
        assertArrayEquals(bytes(source, block, block), bytes(target, 0, block));
        assertEquals(4L * block, file.size());
    }

    @Test
    void theHoleBeforeAWriteReadsAsZeros() throws IOException
    {
        final BlockFile file = open("hole.log", FileMode.DIRECT, true);
        file.write(filled(block, 9), 0, block, 2L * block);
        final ByteBuffer target = filled(block, 1);
        assertEquals(block, file.read(target, 0, block, block));
        assertArrayEquals(new byte[block], bytes(target, 0, block));
    }

    @Test
    void aReadPastTheEndIsShortAndAtTheEndReadsNothing() throws IOException
    {
        final BlockFile file = open("short.log", FileMode.DIRECT, true);
        file.write(filled(block, 5), 0, block, 0);
        final ByteBuffer target = filled(2 * block, 1);
        assertEquals(block, file.read(target, 0, 2 * block, 0));
        assertEquals(0, file.read(target, 0, block, block));
    }

    @Test
    void allocateGrowsTheFileWithZerosAndNeverShrinksIt() throws IOException
    {
        final BlockFile file = open("alloc.log", FileMode.DIRECT, true);
        file.allocate(4L * block);
        assertEquals(4L * block, file.size());
        final ByteBuffer target = filled(block, 1);
        assertEquals(block, file.read(target, 0, block, 3L * block));
        assertArrayEquals(new byte[block], bytes(target, 0, block));
        file.allocate(block);
        assertEquals(4L * block, file.size(), "allocate never shrinks");
    }

    @Test
    void truncateCutsTheFileAndWhatWasBeyondIsGone() throws IOException
    {
        final BlockFile file = open("cut.log", FileMode.DIRECT, true);
        file.write(filled(2 * block, 4), 0, 2 * block, 0);
        file.truncate(block);
        assertEquals(block, file.size());
        file.truncate(2L * block);
        final ByteBuffer target = filled(block, 1);
        assertEquals(block, file.read(target, 0, block, block));
        assertArrayEquals(new byte[block], bytes(target, 0, block), "bytes cut off do not come back");
    }

    @Test
    void writesReachTheFileThroughEveryModeAndSurviveReopening() throws IOException
    {
        for (final FileMode mode : new FileMode[] { FileMode.DIRECT, FileMode.DIRECT_DSYNC })
        {
            final BlockFile file = open(mode + ".log", mode, true);
            final ByteBuffer source = filled(block, mode.ordinal());
            file.write(source, 0, block, 0);
            file.datasync();
            final BlockFile reader = open(mode + ".log", FileMode.READ, false);
            final ByteBuffer target = filled(block, 0);
            assertEquals(block, reader.read(target, 0, block, 0));
            assertArrayEquals(bytes(source, 0, block), bytes(target, 0, block), mode.toString());
        }
    }

    @Test
    void openingAMissingFileWithoutCreateFailsAndCreatesNothing() throws IOException
    {
        assertThrows(IOException.class, () -> open("missing.log", FileMode.READ, false));
        assertFalse(io.exists(dir.resolve("missing.log")));
        assertFalse(io.list(dir).contains(dir.resolve("missing.log")));
    }

    @Test
    void renameMovesTheEntryAndDeleteRemovesIt() throws IOException
    {
        final BlockFile file = open("from.tmp", FileMode.DIRECT, true);
        final ByteBuffer source = filled(block, 6);
        file.write(source, 0, block, 0);
        file.datasync();
        io.rename(dir.resolve("from.tmp"), dir.resolve("to.log"));
        io.syncDirectory(dir);
        assertFalse(io.exists(dir.resolve("from.tmp")));
        assertTrue(io.exists(dir.resolve("to.log")));
        assertEquals(List.of(dir.resolve("to.log")), io.list(dir));
        final ByteBuffer target = filled(block, 0);
        assertEquals(block, open("to.log", FileMode.READ, false).read(target, 0, block, 0));
        assertArrayEquals(bytes(source, 0, block), bytes(target, 0, block));

        io.delete(dir.resolve("to.log"));
        io.delete(dir.resolve("to.log")); // deleting what is gone is no error
        io.syncDirectory(dir);
        assertFalse(io.exists(dir.resolve("to.log")));
        assertTrue(io.list(dir).isEmpty());
    }

    @Test
    void listShowsFilesAndListDirectoriesShowsDirectories() throws IOException
    {
        open("f.log", FileMode.DIRECT, true);
        io.createDirectories(dir.resolve("sub"));
        assertEquals(List.of(dir.resolve("f.log")), io.list(dir));
        assertEquals(List.of(dir.resolve("sub")), io.listDirectories(dir));
        assertTrue(io.listDirectories(dir.resolve("absent")).isEmpty());
    }

    @Test
    void theAlignmentIsAPowerOfTwoAndTheEngineUsesAtLeastFourKiB()
    {
        assertTrue(Integer.bitCount(io.alignment()) == 1, "alignment " + io.alignment());
        assertTrue(io.blockAlignment() >= BlockIo.MIN_BLOCK_ALIGNMENT);
        assertFalse(io.describe().isBlank());
    }

    /** The buffered fallback accepts any position (the engine aligns anyway); a direct layer must refuse. */
    @Test
    void aDirectLayerRefusesAMisalignedWrite() throws IOException
    {
        assumeTrue(io.isDirect(), "only direct layers enforce alignment");
        final BlockFile file = open("misaligned.log", FileMode.DIRECT, true);
        final ByteBuffer source = filled(2 * block, 2);
        assertThrows(IOException.class, () -> file.write(source, 0, block, 100));
        assertThrows(IOException.class, () -> file.write(source, 0, 100, 0));
        assertEquals(0, file.size(), "nothing written");
    }

    /** A batch writes every file it was given; the next batch on the same object writes again. */
    @Test
    void aWriteBatchWritesEveryFileItWasGivenAndTakesTheNextBatch() throws IOException
    {
        final List<BlockFile> written = new ArrayList<>();
        final List<ByteBuffer> sources = new ArrayList<>();
        try (BlockWriteBatch batch = io.newWriteBatch())
        {
            for (int round = 0; round < 2; round++)
            {
                for (int i = 0; i < 20; i++)
                {
                    final BlockFile file = round == 0 ? open("batch-" + i + ".log", FileMode.DIRECT, true) :
                        written.get(i);
                    final ByteBuffer source = filled(2 * block, round * 100 + i);
                    if (round == 0)
                    {
                        written.add(file);
                    }
                    sources.add(source);
                    assertEquals(i, batch.add(file, source, (i % 2) * block, block, (long)round * block));
                }
                assertEquals(20, batch.size());
                batch.writeAll();
                for (int i = 0; i < 20; i++)
                {
                    assertEquals(null, batch.failure(i), "write " + i);
                }
                batch.clear();
                assertEquals(0, batch.size());
            }
        }
        for (int round = 0; round < 2; round++)
        {
            for (int i = 0; i < 20; i++)
            {
                final ByteBuffer target = filled(block, 0);
                assertEquals(block, written.get(i).read(target, 0, block, (long)round * block));
                assertArrayEquals(bytes(sources.get(round * 20 + i), (i % 2) * block, block), bytes(target, 0, block),
                    "file " + i + " round " + round);
            }
        }
    }

    /** A write that fails (to a closed file) fails alone: the writes around it are made. */
    @Test
    void aFailedWriteInABatchFailsThatWriteAlone() throws IOException
    {
        final BlockFile a = open("a.log", FileMode.DIRECT, true);
        final BlockFile closed = open("closed.log", FileMode.DIRECT, true);
        closed.close();
        final BlockFile c = open("c.log", FileMode.DIRECT, true);
        final ByteBuffer source = filled(block, 9);
        try (BlockWriteBatch batch = io.newWriteBatch())
        {
            batch.add(a, source, 0, block, 0);
            batch.add(closed, source, 0, block, 0);
            batch.add(c, source, 0, block, block);
            batch.writeAll();
            assertEquals(null, batch.failure(0));
            assertTrue(batch.failure(1) instanceof IOException, "the closed file's write: " + batch.failure(1));
            assertEquals(null, batch.failure(2));
            assertThrows(IndexOutOfBoundsException.class, () -> batch.failure(3));
        }
        final ByteBuffer target = filled(block, 0);
        assertEquals(block, c.read(target, 0, block, block));
        assertArrayEquals(bytes(source, 0, block), bytes(target, 0, block));
        assertEquals(block, a.size());
    }
}
