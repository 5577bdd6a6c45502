package io.directlog.nativeio;

import org.agrona.concurrent.UnsafeBuffer;

import java.nio.file.Path;

/**
 * Reads {@code struct statx}, whose layout is the same on every architecture (unlike {@code struct stat}):
 * <pre>
 *   0 u32 stx_mask          4 u32 stx_blksize       8 u64 stx_attributes
 *  16 u32 stx_nlink        20 u32 stx_uid          24 u32 stx_gid          28 u16 stx_mode
 *  32 u64 stx_ino          40 u64 stx_size         48 u64 stx_blocks       56 u64 stx_attributes_mask
 *  64 4 x statx_timestamp (16 bytes each: atime, btime, ctime, mtime)
 * 128 u32 stx_rdev_major  132 u32 stx_rdev_minor  136 u32 stx_dev_major   140 u32 stx_dev_minor
 * 144 u64 stx_mnt_id      152 u32 stx_dio_mem_align  156 u32 stx_dio_offset_align
 * 160 ... spare up to 256
 * </pre>
 *
 * <p>Stateless; thread-safe (each call allocates its own buffer).
 */
final class Statx
{
    static final int SIZE = 256;
    static final int MASK_OFFSET = 0;
    static final int BLKSIZE_OFFSET = 4;
    static final int MODE_OFFSET = 28;
    static final int INO_OFFSET = 32;
    static final int SIZE_OFFSET = 40;
    static final int BLOCKS_OFFSET = 48;
    static final int DEV_MAJOR_OFFSET = 136;
    static final int DEV_MINOR_OFFSET = 140;
    static final int DIO_MEM_ALIGN_OFFSET = 152;
    static final int DIO_OFFSET_ALIGN_OFFSET = 156;

    private static final byte[] EMPTY_PATH = {0};

    int mask;
    int blockSize;
    int mode;
    long inode;
    long size;
    long blocks;
    int devMajor;
    int devMinor;
    int dioMemAlign;
    int dioOffsetAlign;

    private Statx()
    {
    }

    /** statx on an open descriptor (AT_EMPTY_PATH), i.e. fstat. */
    static Statx ofFd(final int fd, final int mask, final Path pathForErrors) throws NativeIoException
    {
        return call(fd, EMPTY_PATH, LibC.AT_EMPTY_PATH, mask, pathForErrors);
    }

    /** statx on a path, following symbolic links. */
    static Statx ofPath(final Path path, final int mask) throws NativeIoException
    {
        return call(LibC.AT_FDCWD, NativeIo.pathBytes(path), 0, mask, path);
    }

    private static Statx call(final int dirFd, final byte[] path, final int flags, final int mask, final Path errPath)
        throws NativeIoException
    {
        try (AlignedMemory memory = AlignedMemory.allocate(SIZE, 8))
        {
            int rc;
            do
            {
                rc = LibC.statx(dirFd, path, flags, mask, memory.address());
            }
            while (rc == -1 && NativeIo.errno() == Errno.EINTR);
            if (rc == -1)
            {
                throw new NativeIoException("statx", errPath, NativeIo.errno(), -1, -1);
            }
            final UnsafeBuffer b = memory.buffer();
            final Statx s = new Statx();
            s.mask = b.getInt(MASK_OFFSET);
            s.blockSize = b.getInt(BLKSIZE_OFFSET);
            s.mode = b.getShort(MODE_OFFSET) & 0xFFFF;
            s.inode = b.getLong(INO_OFFSET);
            s.size = b.getLong(SIZE_OFFSET);
            s.blocks = b.getLong(BLOCKS_OFFSET);
            s.devMajor = b.getInt(DEV_MAJOR_OFFSET);
            s.devMinor = b.getInt(DEV_MINOR_OFFSET);
            s.dioMemAlign = b.getInt(DIO_MEM_ALIGN_OFFSET);
            s.dioOffsetAlign = b.getInt(DIO_OFFSET_ALIGN_OFFSET);
            return s;
        }
    }

    FileStat toFileStat()
    {
        return new FileStat(size, blocks, blockSize, makedev(devMajor, devMinor), devMajor, devMinor, inode, mode);
    }

    /** glibc's gnu_dev_makedev encoding of a 64-bit dev_t. */
    static long makedev(final int major, final int minor)
    {
        final long ma = major & 0xFFFFFFFFL;
        final long mi = minor & 0xFFFFFFFFL;
        return ((ma & 0xFFFFF000L) << 32) | ((ma & 0xFFFL) << 8) | ((mi & 0xFFFFFF00L) << 12) | (mi & 0xFFL);
    }
}
