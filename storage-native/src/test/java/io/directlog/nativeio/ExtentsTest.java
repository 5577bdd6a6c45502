package io.directlog.nativeio;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static io.directlog.nativeio.NativeTestSupport.assumeDirectIo;
import static io.directlog.nativeio.NativeTestSupport.assumeNative;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * FIEMAP as the oracle for "really pre-zeroed": the engine's central invariant is that a segment handed to the
 * writer has no unwritten extent, because an O_DIRECT overwrite of a written extent needs no metadata to be read
 * back after a crash, while one into an unwritten extent reads back as zeros until the conversion is committed.
 */
class ExtentsTest
{
    private static final int MIB = 1 << 20;

    private Path dir;

    @BeforeEach
    void setUp() throws Exception
    {
        assumeNative();
        dir = NativeTestSupport.newDir("extents");
        final String fs = NativeFileSystem.statfs(dir).typeName();
        // ext4 and XFS mark preallocated extents unwritten; other filesystems (tmpfs: no FIEMAP; btrfs) differ.
        assumeTrue(fs.equals("ext4") || fs.equals("xfs"), () -> "unwritten-extent tests need ext4 or xfs, not " + fs);
    }

    @AfterEach
    void tearDown()
    {
        NativeTestSupport.deleteTree(dir);
    }

    @Test
    void plainFallocateLeavesEveryExtentUnwritten() throws Exception
    {
        try (NativeFile file = NativeFile.open(dir.resolve("falloc.dat"), OpenFlags.READ_WRITE | OpenFlags.CREATE))
        {
            file.fallocate(FallocateMode.DEFAULT, 0, MIB);
            file.datasync();

            final List<Extent> extents = file.extents(0, MIB);
            assertFalse(extents.isEmpty());
            assertTrue(extents.stream().allMatch(Extent::unwritten), extents::toString);
            assertTrue(extents.get(extents.size() - 1).last(), extents::toString);
            assertEquals(MIB, covered(extents));
            assertEquals(MIB, file.size());
        }
    }

    @Test
    void zeroFillingWithDirectWritesAndFdatasyncLeavesNoUnwrittenExtent() throws Exception
    {
        assumeDirectIo(dir);
        final Path path = dir.resolve("prezeroed.dat");
        try (NativeFile file = NativeFile.open(path, OpenFlags.READ_WRITE | OpenFlags.CREATE | OpenFlags.DIRECT);
            AlignedMemory zeros = AlignedMemory.allocate(256 * 1024, 4096))
        {
            file.fallocate(FallocateMode.DEFAULT, 0, MIB);
            file.datasync();
            for (long position = 0; position < MIB; position += zeros.size())
            {
                file.writeFully(zeros.address(), zeros.size(), position);
            }
            file.datasync();

            final List<Extent> extents = file.extents(0, MIB, true);
            assertFalse(extents.isEmpty());
            assertTrue(extents.stream().noneMatch(Extent::unwritten), extents::toString);
            assertEquals(MIB, covered(extents));
            assertTrue(extents.stream().allMatch(e -> e.physical() > 0), extents::toString);
        }
    }

    /** Documents the trap: FALLOC_FL_ZERO_RANGE on ext4 converts written blocks back to unwritten extents. */
    @Test
    void zeroRangeLeavesUnwrittenExtentsSoItIsNotPreZeroing() throws Exception
    {
        assumeDirectIo(dir);
        final Path path = dir.resolve("zero-range.dat");
        try (NativeFile file = NativeFile.open(path, OpenFlags.READ_WRITE | OpenFlags.CREATE | OpenFlags.DIRECT);
            AlignedMemory zeros = AlignedMemory.allocate(MIB, 4096))
        {
            file.writeFully(zeros.address(), MIB, 0);
            file.datasync();
            assertTrue(file.extents(0, MIB).stream().noneMatch(Extent::unwritten));

            file.fallocate(FallocateMode.ZERO_RANGE, 0, MIB);
            file.datasync();

            final List<Extent> extents = file.extents(0, MIB, true);
            assertTrue(extents.stream().anyMatch(Extent::unwritten), extents::toString);
        }
    }

    @Test
    void emptyFileAndHoleHaveNoExtents() throws Exception
    {
        try (NativeFile file = NativeFile.open(dir.resolve("sparse.dat"), OpenFlags.READ_WRITE | OpenFlags.CREATE))
        {
            assertTrue(file.extents(0, MIB).isEmpty());
            file.truncate(MIB);
            assertTrue(file.extents(0, MIB, true).isEmpty());
        }
    }

    @Test
    void manyExtentsAreFetchedInSeveralBatches() throws Exception
    {
        // 300 separate 4 KiB allocations with holes between them: more extents than one FIEMAP batch (128).
        try (NativeFile file = NativeFile.open(dir.resolve("fragmented.dat"), OpenFlags.READ_WRITE | OpenFlags.CREATE))
        {
            final int count = 300;
            for (int i = 0; i < count; i++)
            {
                file.fallocate(FallocateMode.DEFAULT, i * 8192L, 4096);
            }
            final List<Extent> extents = file.extents(0, Long.MAX_VALUE);
            assertEquals(count, extents.size());
            for (int i = 0; i < count; i++)
            {
                assertEquals(i * 8192L, extents.get(i).logical());
                assertEquals(4096, extents.get(i).length());
            }
            assertTrue(extents.get(count - 1).last());
        }
    }

    private static long covered(final List<Extent> extents)
    {
        return extents.stream().mapToLong(Extent::length).sum();
    }
}
