package io.directlog.nativeio;

/**
 * What {@code statx(2)} says about an open file.
 *
 * <p>Immutable; thread-safe.
 *
 * @param size        st_size in bytes.
 * @param blocks      st_blocks: allocated space in 512-byte units (whatever the filesystem block size).
 * @param blockSize   st_blksize: the preferred I/O size, not the direct I/O alignment.
 * @param device      st_dev as glibc's {@code makedev(major, minor)}.
 * @param deviceMajor major number of the device holding the file (0 for tmpfs, overlay, btrfs subvolumes...).
 * @param deviceMinor minor number of that device.
 * @param inode       st_ino.
 * @param mode        st_mode: file type and permission bits.
 */
public record FileStat(
    long size, long blocks, int blockSize, long device, int deviceMajor, int deviceMinor, long inode, int mode)
{
    /**
     * @return whether the file is a regular file (S_IFREG).
     */
    public boolean isRegularFile()
    {
        return (mode & 0170000) == 0100000;
    }

    /**
     * @return whether the file is a directory (S_IFDIR).
     */
    public boolean isDirectory()
    {
        return (mode & 0170000) == 0040000;
    }
}
