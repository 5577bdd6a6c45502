package io.directlog.nativeio;

import org.agrona.concurrent.UnsafeBuffer;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Filesystem-level calls: statfs, direct I/O alignment, directory fsync, rename, syncfs.
 *
 * <p>Stateless; thread-safe.
 */
public final class NativeFileSystem
{
    // struct statfs on LP64 Linux (x86-64 and asm-generic aarch64 agree): every field is 8 bytes.
    private static final int STATFS_SIZE = 128;
    private static final int F_TYPE_OFFSET = 0;
    private static final int F_BSIZE_OFFSET = 8;
    private static final int F_BLOCKS_OFFSET = 16;
    private static final int F_BFREE_OFFSET = 24;
    private static final int F_BAVAIL_OFFSET = 32;
    private static final int F_FRSIZE_OFFSET = 72;

    private static final int DEFAULT_ALIGNMENT = 4096;

    private NativeFileSystem()
    {
    }

    /**
     * {@code statfs(2)} on a path.
     *
     * @param path any existing path on the filesystem.
     * @return type, block sizes and space.
     * @throws NativeIoException             if statfs fails.
     * @throws UnsupportedOperationException if native I/O is unavailable.
     */
    public static FileSystemInfo statfs(final Path path) throws NativeIoException
    {
        NativeIo.ensureAvailable();
        final byte[] bytes = NativeIo.pathBytes(path);
        try (AlignedMemory memory = AlignedMemory.allocate(STATFS_SIZE, 8))
        {
            int rc;
            int errno = 0;
            do
            {
                rc = LibC.statfs(bytes, memory.address());
            }
            while (rc == -1 && (errno = NativeIo.errno()) == Errno.EINTR);
            if (rc == -1)
            {
                throw new NativeIoException("statfs", path, errno, -1, -1);
            }
            final UnsafeBuffer b = memory.buffer();
            // f_type is a signed long holding a 32-bit magic; mask so that 0x9123683E (btrfs) stays positive
            // whatever sign extension the kernel applied.
            final long magic = b.getLong(F_TYPE_OFFSET) & 0xFFFFFFFFL;
            final long blockSize = b.getLong(F_BSIZE_OFFSET);
            final long frsize = b.getLong(F_FRSIZE_OFFSET);
            // The block counts are in f_frsize units (what statvfs/df use); the kernel fills f_frsize with
            // f_bsize when a filesystem leaves it 0, but guard anyway.
            final long unit = frsize > 0 ? frsize : blockSize;
            return new FileSystemInfo(
                FileSystemInfo.nameOf(magic),
                magic,
                blockSize,
                unit,
                b.getLong(F_BLOCKS_OFFSET) * unit,
                b.getLong(F_BFREE_OFFSET) * unit,
                b.getLong(F_BAVAIL_OFFSET) * unit);
        }
    }

    /**
     * The O_DIRECT alignment for a file: {@code statx(STATX_DIOALIGN)} when the kernel reports it (Linux 6.1+,
     * regular files on filesystems that implement it, e.g. ext4 and XFS), else the logical block size of the
     * device under the file (the rule before per-file reporting), else 4096.
     *
     * <p>statx reports 0/0 when the file does not support direct I/O at all (e.g. ext4 with data=journal); that is
     * treated as "not reported" here, and {@link DirectIoProbe} is the way to find out whether O_DIRECT works.
     *
     * @param file an existing file (for a directory, ext4 does not report STATX_DIOALIGN).
     * @return the alignment and where it came from.
     * @throws NativeIoException             if statx fails (ENOENT for a missing file).
     * @throws UnsupportedOperationException if native I/O is unavailable.
     */
    public static DirectIoAlignment directIoAlignment(final Path file) throws NativeIoException
    {
        NativeIo.ensureAvailable();
        final Statx stat = Statx.ofPath(file, LibC.STATX_DIOALIGN | LibC.STATX_TYPE);
        if ((stat.mask & LibC.STATX_DIOALIGN) != 0 && stat.dioMemAlign > 0 && stat.dioOffsetAlign > 0)
        {
            return new DirectIoAlignment(stat.dioMemAlign, stat.dioOffsetAlign, DirectIoAlignment.SOURCE_STATX);
        }
        final Optional<BlockDeviceInfo> device =
            BlockDeviceInfo.forDevice(BlockDeviceInfo.SYS_DEV_BLOCK, stat.devMajor, stat.devMinor);
        if (device.isPresent())
        {
            final int logical = device.get().logicalBlockSize();
            return new DirectIoAlignment(logical, logical, DirectIoAlignment.SOURCE_LOGICAL_BLOCK_SIZE);
        }
        return new DirectIoAlignment(DEFAULT_ALIGNMENT, DEFAULT_ALIGNMENT, DirectIoAlignment.SOURCE_DEFAULT);
    }

    /**
     * Opens a directory and fsyncs it: what makes a created, renamed or deleted entry durable.
     *
     * @param dir the directory.
     * @throws NativeIoException             if open or fsync fails.
     * @throws UnsupportedOperationException if native I/O is unavailable.
     */
    public static void fsyncDirectory(final Path dir) throws NativeIoException
    {
        try (NativeFile file = NativeFile.openDirectory(dir))
        {
            file.sync();
        }
    }

    /**
     * {@code rename(2)}: atomically replaces {@code to} if it exists. Both must be on the same filesystem (EXDEV
     * otherwise). Not durable until the directory (both directories, if they differ) is fsynced.
     *
     * @param from the existing path.
     * @param to   the new path.
     * @throws NativeIoException             if rename fails.
     * @throws UnsupportedOperationException if native I/O is unavailable.
     */
    public static void rename(final Path from, final Path to) throws NativeIoException
    {
        NativeIo.ensureAvailable();
        final byte[] fromBytes = NativeIo.pathBytes(from);
        final byte[] toBytes = NativeIo.pathBytes(to);
        int rc;
        int errno = 0;
        do
        {
            rc = LibC.rename(fromBytes, toBytes);
        }
        while (rc == -1 && (errno = NativeIo.errno()) == Errno.EINTR);
        if (rc == -1)
        {
            throw new NativeIoException("rename", from, errno, -1, -1, Errno.name(errno) + " (" +
                Errno.describe(errno) + ") renaming to " + to);
        }
    }

    /**
     * {@code renameat(2)} with names relative to two open directories, so that neither directory can be swapped
     * for another (by a concurrent rename of a parent) between resolving and renaming.
     *
     * @param fromDir  directory holding the existing entry.
     * @param fromName the existing entry's name in {@code fromDir}.
     * @param toDir    directory to hold the new entry.
     * @param toName   the new entry's name in {@code toDir}.
     * @throws NativeIoException             if opening a directory or renameat fails.
     * @throws UnsupportedOperationException if native I/O is unavailable.
     */
    public static void renameAt(final Path fromDir, final String fromName, final Path toDir, final String toName)
        throws NativeIoException
    {
        try (NativeFile from = NativeFile.openDirectory(fromDir);
            NativeFile to = NativeFile.openDirectory(toDir))
        {
            final byte[] fromBytes = NativeIo.cString(fromName);
            final byte[] toBytes = NativeIo.cString(toName);
            int rc;
            int errno = 0;
            do
            {
                rc = LibC.renameat(from.fd(), fromBytes, to.fd(), toBytes);
            }
            while (rc == -1 && (errno = NativeIo.errno()) == Errno.EINTR);
            if (rc == -1)
            {
                throw new NativeIoException("renameat", fromDir.resolve(fromName), errno, -1, -1,
                    Errno.name(errno) + " (" + Errno.describe(errno) + ") renaming to " + toDir.resolve(toName));
            }
        }
    }

    /**
     * {@code syncfs(2)}: writes back and flushes the whole filesystem holding a path. Since Linux 5.8 it reports
     * write-back errors that occurred since the descriptor was opened.
     *
     * @param anyPathOnFs any existing file or directory on the filesystem.
     * @throws NativeIoException             if open or syncfs fails.
     * @throws UnsupportedOperationException if native I/O is unavailable.
     */
    public static void syncfs(final Path anyPathOnFs) throws NativeIoException
    {
        try (NativeFile file = NativeFile.open(anyPathOnFs, OpenFlags.READ_ONLY | OpenFlags.CLOEXEC, 0))
        {
            NativeIo.beforeSync("syncfs");
            int rc;
            int errno = 0;
            do
            {
                rc = LibC.syncfs(file.fd());
            }
            while (rc == -1 && (errno = NativeIo.errno()) == Errno.EINTR);
            if (rc == -1)
            {
                throw new NativeIoException("syncfs", anyPathOnFs, errno, -1, -1);
            }
        }
    }
}
