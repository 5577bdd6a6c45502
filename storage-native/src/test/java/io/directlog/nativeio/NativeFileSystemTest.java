package io.directlog.nativeio;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import static io.directlog.nativeio.NativeTestSupport.assumeNative;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class NativeFileSystemTest
{
    private Path dir;

    @BeforeEach
    void setUp()
    {
        assumeNative();
        dir = NativeTestSupport.newDir("fs");
    }

    @AfterEach
    void tearDown()
    {
        NativeTestSupport.deleteTree(dir);
    }

    @Test
    void statfsNamesExt4ForTheTestDirectory() throws Exception
    {
        final FileSystemInfo info = NativeFileSystem.statfs(dir);
        assumeTrue(info.magic() == 0xEF53L, () -> "test directory is not on ext4: " + info);
        assertEquals("ext4", info.typeName());
        assertFalse(info.isCopyOnWrite());
        assertTrue(info.blockSize() >= 1024);
        assertTrue(info.totalBytes() >= info.freeBytes() && info.freeBytes() >= info.availableBytes(), info::toString);
        assertEquals(Files.getFileStore(dir).getTotalSpace(), info.totalBytes());
    }

    @Test
    void statfsOfProcAndMissingPath() throws Exception
    {
        assertEquals("proc", NativeFileSystem.statfs(Paths.get("/proc")).typeName());
        final NativeIoException ex =
            assertThrows(NativeIoException.class, () -> NativeFileSystem.statfs(dir.resolve("missing")));
        assertEquals(Errno.ENOENT, ex.errno());
        assertEquals("statfs", ex.call());
    }

    @Test
    void fileSystemNamesFromMagic()
    {
        assertEquals("xfs", FileSystemInfo.nameOf(0x58465342L));
        assertEquals("btrfs", FileSystemInfo.nameOf(0x9123683EL));
        assertEquals("tmpfs", FileSystemInfo.nameOf(0x01021994L));
        assertEquals("unknown(0x1234)", FileSystemInfo.nameOf(0x1234));
        assertTrue(new FileSystemInfo("btrfs", 0x9123683EL, 4096, 4096, 0, 0, 0).isCopyOnWrite());
        assertTrue(new FileSystemInfo("zfs", 0x2FC12FC1L, 4096, 4096, 0, 0, 0).isCopyOnWrite());
        assertTrue(new FileSystemInfo("bcachefs", 0xCA451A4EL, 4096, 4096, 0, 0, 0).isCopyOnWrite());
    }

    @Test
    void directIoAlignmentComesFromStatxOnThisKernel() throws Exception
    {
        final FileSystemInfo info = NativeFileSystem.statfs(dir);
        assumeTrue(info.typeName().equals("ext4") || info.typeName().equals("xfs"),
            () -> "STATX_DIOALIGN is reported by ext4/xfs on Linux 6.1+; this is " + info.typeName());
        final Path file = Files.createFile(dir.resolve("aligned.dat"));
        final DirectIoAlignment alignment = NativeFileSystem.directIoAlignment(file);
        assertEquals("statx", alignment.source(), alignment::toString);
        assertTrue(alignment.memoryAlignment() >= 4 && Integer.bitCount(alignment.memoryAlignment()) == 1);
        assertTrue(alignment.offsetAlignment() >= 512 && Integer.bitCount(alignment.offsetAlignment()) == 1);
    }

    @Test
    void directIoAlignmentFallsBackToTheDeviceForADirectory() throws Exception
    {
        // ext4 reports STATX_DIOALIGN for regular files only.
        final DirectIoAlignment alignment = NativeFileSystem.directIoAlignment(dir);
        assertTrue(alignment.offsetAlignment() >= 512, alignment::toString);
        assertTrue(alignment.source().equals("statx") || alignment.source().equals("logical-block-size") ||
            alignment.source().equals("default"), alignment::toString);
    }

    @Test
    void renameReplacesTargetAndFsyncDirectoryWorks() throws Exception
    {
        final Path from = Files.write(dir.resolve("a.tmp"), "new".getBytes(StandardCharsets.US_ASCII));
        final Path to = Files.write(dir.resolve("a"), "old".getBytes(StandardCharsets.US_ASCII));
        final CallCounts before = NativeIo.callCounts();
        NativeFileSystem.rename(from, to);
        NativeFileSystem.fsyncDirectory(dir);
        final CallCounts made = NativeIo.callCounts().minus(before);

        assertFalse(Files.exists(from));
        assertEquals("new", Files.readString(to));
        assertEquals(1, made.fsync());
        assertEquals(1, made.open());
        assertEquals(1, made.close());
    }

    @Test
    void renameOfMissingFileFailsWithEnoentNamingBothPaths()
    {
        final Path from = dir.resolve("missing");
        final Path to = dir.resolve("target");
        final NativeIoException ex = assertThrows(NativeIoException.class, () -> NativeFileSystem.rename(from, to));
        assertEquals(Errno.ENOENT, ex.errno());
        assertEquals("rename", ex.call());
        assertEquals(from, ex.path());
        assertTrue(ex.getMessage().contains(to.toString()), ex::getMessage);
    }

    @Test
    void renameAtMovesBetweenDirectories() throws Exception
    {
        final Path sub = Files.createDirectory(dir.resolve("sub"));
        Files.write(dir.resolve("x"), new byte[] {1});
        NativeFileSystem.renameAt(dir, "x", sub, "y");
        assertFalse(Files.exists(dir.resolve("x")));
        assertTrue(Files.exists(sub.resolve("y")));

        final NativeIoException ex =
            assertThrows(NativeIoException.class, () -> NativeFileSystem.renameAt(dir, "x", sub, "z"));
        assertEquals(Errno.ENOENT, ex.errno());
        assertEquals("renameat", ex.call());
    }

    @Test
    void syncfsAndFsyncDirectoryOfMissingDirectory() throws Exception
    {
        NativeFileSystem.syncfs(dir);
        final NativeIoException ex = assertThrows(NativeIoException.class,
            () -> NativeFileSystem.fsyncDirectory(dir.resolve("missing")));
        assertEquals(Errno.ENOENT, ex.errno());
    }
}
