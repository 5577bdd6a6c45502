package io.directlog.nativeio;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static io.directlog.nativeio.NativeTestSupport.assumeDirectIo;
import static io.directlog.nativeio.NativeTestSupport.assumeNative;
import static io.directlog.nativeio.NativeTestSupport.fill;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NativeFileTest
{
    private static final int DIRECT_RW = OpenFlags.READ_WRITE | OpenFlags.CREATE | OpenFlags.DIRECT | OpenFlags.CLOEXEC;

    private Path dir;

    @BeforeEach
    void setUp()
    {
        assumeNative();
        dir = NativeTestSupport.newDir("native-file");
    }

    @AfterEach
    void tearDown()
    {
        NativeTestSupport.deleteTree(dir);
    }

    @Test
    void directWriteThenDirectReadReturnsTheSameBytes() throws Exception
    {
        assumeDirectIo(dir);
        final Path path = dir.resolve("roundtrip.dat");
        try (NativeFile file = NativeFile.open(path, DIRECT_RW);
            AlignedMemory out = AlignedMemory.allocate(16384, 4096);
            AlignedMemory in = AlignedMemory.allocate(16384, 4096))
        {
            fill(out, 42);
            final CallCounts before = NativeIo.callCounts();
            file.writeFully(out.address(), out.size(), 8192);
            file.datasync();
            assertEquals(out.size(), file.readFully(in.address(), in.size(), 8192));
            final CallCounts made = NativeIo.callCounts().minus(before);

            assertEquals(out.buffer(), in.buffer());
            assertEquals(8192 + 16384, file.size());
            assertTrue(made.pwrite() >= 1 && made.pread() >= 1 && made.fdatasync() >= 1, made::toString);
        }
    }

    @Test
    void misalignedDirectWriteFailsWithEinvalNamingCallAndPath() throws Exception
    {
        assumeDirectIo(dir);
        final Path path = dir.resolve("misaligned.dat");
        try (NativeFile file = NativeFile.open(path, DIRECT_RW);
            AlignedMemory memory = AlignedMemory.allocate(8192, 4096))
        {
            final NativeIoException badLength =
                assertThrows(NativeIoException.class, () -> file.write(memory.address(), 100, 0));
            assertEquals("EINVAL", badLength.errnoName());
            assertEquals(Errno.EINVAL, badLength.errno());
            assertEquals("pwrite", badLength.call());
            assertEquals(path, badLength.path());
            assertEquals(0, badLength.offset());
            assertEquals(100, badLength.length());
            assertEquals("pwrite(" + path + ", offset=0, length=100) failed: EINVAL (Invalid argument)",
                badLength.getMessage());

            final NativeIoException badAddress =
                assertThrows(NativeIoException.class, () -> file.write(memory.address() + 8, 4096, 0));
            assertEquals("EINVAL", badAddress.errnoName());
            assertTrue(badAddress.getMessage().contains(path.toString()), badAddress::getMessage);
        }
    }

    @Test
    void openOfMissingFileFailsWithEnoent()
    {
        final Path missing = dir.resolve("does-not-exist");
        final NativeIoException ex =
            assertThrows(NativeIoException.class, () -> NativeFile.open(missing, OpenFlags.READ_ONLY));
        assertEquals(Errno.ENOENT, ex.errno());
        assertEquals("ENOENT", ex.errnoName());
        assertEquals("open", ex.call());
        assertEquals(missing, ex.path());
        assertEquals(-1, ex.offset());
        assertEquals(-1, ex.length());
        assertEquals("open(" + missing + ") failed: ENOENT (No such file or directory)", ex.getMessage());
    }

    @Test
    void exclusiveCreateOfExistingFileFailsWithEexist() throws Exception
    {
        final Path path = Files.createFile(dir.resolve("exists"));
        final NativeIoException ex = assertThrows(NativeIoException.class,
            () -> NativeFile.open(path, OpenFlags.READ_WRITE | OpenFlags.CREATE | OpenFlags.EXCLUSIVE));
        assertEquals(Errno.EEXIST, ex.errno());
    }

    @Test
    void callsAfterCloseFailWithEbadfWithoutReachingTheKernel() throws Exception
    {
        final Path path = dir.resolve("closed.dat");
        final NativeFile file = NativeFile.open(path, OpenFlags.READ_WRITE | OpenFlags.CREATE);
        final int fd = file.fd();
        assertTrue(fd >= 0);
        file.close();
        file.close(); // idempotent

        assertFalse(file.isOpen());
        assertEquals(-1, file.fd());
        // Open another file: the kernel hands out the lowest free number, typically the one just released.
        // The closed NativeFile must not write into it.
        try (NativeFile other = NativeFile.open(dir.resolve("other.dat"), OpenFlags.READ_WRITE | OpenFlags.CREATE);
            AlignedMemory memory = AlignedMemory.allocate(4096, 4096))
        {
            final CallCounts before = NativeIo.callCounts();
            final NativeIoException ex =
                assertThrows(NativeIoException.class, () -> file.write(memory.address(), 4096, 0));
            assertEquals(Errno.EBADF, ex.errno());
            assertEquals("pwrite", ex.call());
            assertEquals(0, NativeIo.callCounts().minus(before).pwrite());
            assertThrows(NativeIoException.class, file::datasync);
            assertThrows(NativeIoException.class, file::size);
            assertEquals(0, other.size());
        }
    }

    @Test
    @Timeout(30)
    void closeDuringConcurrentReadsReleasesTheDescriptorExactlyOnce() throws Exception
    {
        final Path path = dir.resolve("concurrent.dat");
        Files.write(path, new byte[4096]);
        final NativeFile file = NativeFile.open(path, OpenFlags.READ_ONLY);
        final AtomicLong reads = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final CallCounts before = NativeIo.callCounts();
        try (AlignedMemory memory = AlignedMemory.allocate(4096, 4096))
        {
            final Thread reader = new Thread(() ->
            {
                try
                {
                    while (true)
                    {
                        file.read(memory.address(), 4096, 0);
                        reads.incrementAndGet();
                    }
                }
                catch (final NativeIoException ex)
                {
                    if (ex.errno() != Errno.EBADF)
                    {
                        failure.set(ex);
                    }
                }
            });
            reader.start();
            while (reads.get() < 1000)
            {
                Thread.onSpinWait();
            }
            file.close();
            reader.join();
        }
        assertNull(failure.get());
        assertEquals(1, NativeIo.callCounts().minus(before).close());
        assertFalse(file.isOpen());
    }

    @Test
    void libcCallOnInvalidDescriptorSetsEbadf()
    {
        assertEquals(-1, LibC.fsync(-1));
        assertEquals(Errno.EBADF, NativeIo.errno());
        assertEquals(-1, LibC.pwrite(-1, 0, 0, 0));
        assertEquals(Errno.EBADF, NativeIo.errno());
    }

    @Test
    void readFullyStopsAtEndOfFileAndReadReturnsZeroThere() throws Exception
    {
        final Path path = dir.resolve("short.dat");
        Files.write(path, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
        try (NativeFile file = NativeFile.open(path, OpenFlags.READ_ONLY);
            AlignedMemory memory = AlignedMemory.allocate(4096, 4096))
        {
            assertEquals(10, file.readFully(memory.address(), 4096, 0));
            assertEquals(4, file.readFully(memory.address(), 4096, 6));
            assertEquals(7, memory.buffer().getByte(0));
            assertEquals(0, file.read(memory.address(), 4096, 10));
            assertEquals(0, file.readFully(memory.address(), 4096, 100));
        }
    }

    @Test
    void bufferedWriteFullyThenStatReportsSizeAndBlocks() throws Exception
    {
        final Path path = dir.resolve("stat.dat");
        try (NativeFile file = NativeFile.open(path, OpenFlags.READ_WRITE | OpenFlags.CREATE | OpenFlags.CLOEXEC);
            AlignedMemory memory = AlignedMemory.allocate(8192, 8))
        {
            fill(memory, 7);
            file.writeFully(memory.address(), 5000, 0);
            file.sync();
            final FileStat stat = file.stat();
            assertEquals(5000, stat.size());
            assertTrue(stat.isRegularFile());
            assertTrue(stat.blocks() > 0);
            assertTrue(stat.inode() > 0);
            assertEquals(Files.getAttribute(path, "unix:ino"), stat.inode());
            assertEquals(Files.getAttribute(path, "unix:dev"), stat.device());
            assertEquals(0, stat.mode() & 0777 & ~0644, "created with mode 0644 less the umask");

            final byte[] onDisk = Files.readAllBytes(path);
            for (int i = 0; i < 5000; i++)
            {
                assertEquals(memory.buffer().getByte(i), onDisk[i]);
            }
        }
    }

    @Test
    void truncateFadviseAndSyncFileRangeWork() throws Exception
    {
        final Path path = dir.resolve("misc.dat");
        try (NativeFile file = NativeFile.open(path, OpenFlags.READ_WRITE | OpenFlags.CREATE))
        {
            file.truncate(1 << 20);
            assertEquals(1 << 20, file.size());
            file.fadvise(0, 0, Fadvise.SEQUENTIAL);
            file.fadvise(0, 0, Fadvise.DONTNEED);
            file.syncFileRange(0, 0, SyncFileRange.WAIT_BEFORE | SyncFileRange.WRITE | SyncFileRange.WAIT_AFTER);
            file.truncate(10);
            assertEquals(10, file.size());

            final NativeIoException ex = assertThrows(NativeIoException.class, () -> file.fadvise(0, 0, 99));
            assertEquals(Errno.EINVAL, ex.errno());
            assertEquals("posix_fadvise", ex.call());
        }
    }

    @Test
    void syncListenerSeesEachSyncCallOnTheCallingThread() throws Exception
    {
        final Path path = dir.resolve("listener.dat");
        final StringBuilder seen = new StringBuilder();
        final Thread caller = Thread.currentThread();
        NativeIo.setSyncListener(call ->
        {
            if (Thread.currentThread() == caller)
            {
                seen.append(call).append(' ');
            }
        });
        try (NativeFile file = NativeFile.open(path, OpenFlags.READ_WRITE | OpenFlags.CREATE))
        {
            file.datasync();
            file.sync();
            file.syncFileRange(0, 0, SyncFileRange.WRITE);
            NativeFileSystem.syncfs(dir);
        }
        finally
        {
            NativeIo.setSyncListener(null);
        }
        assertEquals("fdatasync fsync sync_file_range syncfs ", seen.toString());
    }

    @Test
    void openDirectoryRejectsRegularFileWithEnotdir() throws Exception
    {
        final Path path = Files.createFile(dir.resolve("plain"));
        final NativeIoException ex = assertThrows(NativeIoException.class, () -> NativeFile.openDirectory(path));
        assertEquals(Errno.ENOTDIR, ex.errno());
        try (NativeFile d = NativeFile.openDirectory(dir))
        {
            assertTrue(d.stat().isDirectory());
            d.sync();
        }
    }

    @Test
    void exceptionWithoutErrnoSaysWhatHappened()
    {
        final NativeIoException ex = new NativeIoException("pwrite", null, 0, 4096, 100, "wrote 0 bytes after 0");
        assertEquals("pwrite(offset=4096, length=100) failed: wrote 0 bytes after 0", ex.getMessage());
        assertNull(ex.path());
        assertEquals(0, ex.errno());
    }
}
