package io.directlog.nativeio;

/**
 * What {@code statfs(2)} says about the filesystem holding a path.
 *
 * <p>Immutable; thread-safe.
 *
 * @param typeName       name derived from the magic number: {@code "ext4"} (ext2, ext3 and ext4 share 0xEF53),
 *                       {@code "xfs"}, {@code "btrfs"}, {@code "tmpfs"}, {@code "overlay"}, {@code "zfs"},
 *                       {@code "nfs"}, {@code "fuse"}, {@code "f2fs"}, {@code "bcachefs"}, {@code "squashfs"},
 *                       {@code "proc"}, {@code "sysfs"}, else {@code "unknown(0x...)"}.
 * @param magic          f_type.
 * @param blockSize      f_bsize: the optimal transfer size.
 * @param fragmentSize   f_frsize: the unit of the byte counts below.
 * @param totalBytes     size of the filesystem.
 * @param freeBytes      free bytes, including those reserved for root.
 * @param availableBytes free bytes available to unprivileged users.
 */
public record FileSystemInfo(
    String typeName, long magic, long blockSize, long fragmentSize, long totalBytes, long freeBytes,
    long availableBytes)
{
    static final long EXT4_MAGIC = 0xEF53L;
    static final long XFS_MAGIC = 0x58465342L;
    static final long BTRFS_MAGIC = 0x9123683EL;
    static final long TMPFS_MAGIC = 0x01021994L;
    static final long OVERLAY_MAGIC = 0x794C7630L;
    static final long ZFS_MAGIC = 0x2FC12FC1L;
    static final long NFS_MAGIC = 0x6969L;
    static final long FUSE_MAGIC = 0x65735546L;
    static final long F2FS_MAGIC = 0xF2F52010L;
    static final long BCACHEFS_MAGIC = 0xCA451A4EL;
    static final long SQUASHFS_MAGIC = 0x73717368L;
    static final long PROC_MAGIC = 0x9FA0L;
    static final long SYSFS_MAGIC = 0x62656572L;

    /**
     * Whether overwrites allocate new blocks (btrfs, ZFS, bcachefs): then a "pre-zeroed" file gives no guarantee
     * that an O_DIRECT overwrite needs no metadata, because the new location is itself metadata.
     *
     * @return true for btrfs, zfs and bcachefs.
     */
    public boolean isCopyOnWrite()
    {
        return magic == BTRFS_MAGIC || magic == ZFS_MAGIC || magic == BCACHEFS_MAGIC;
    }

    static String nameOf(final long magic)
    {
        if (magic == EXT4_MAGIC)
        {
            return "ext4";
        }
        if (magic == XFS_MAGIC)
        {
            return "xfs";
        }
        if (magic == BTRFS_MAGIC)
        {
            return "btrfs";
        }
        if (magic == TMPFS_MAGIC)
        {
            return "tmpfs";
        }
        if (magic == OVERLAY_MAGIC)
        {
            return "overlay";
        }
        if (magic == ZFS_MAGIC)
        {
            return "zfs";
        }
        if (magic == NFS_MAGIC)
        {
            return "nfs";
        }
        if (magic == FUSE_MAGIC)
        {
            return "fuse";
        }
        if (magic == F2FS_MAGIC)
        {
            return "f2fs";
        }
        if (magic == BCACHEFS_MAGIC)
        {
            return "bcachefs";
        }
        if (magic == SQUASHFS_MAGIC)
        {
            return "squashfs";
        }
        if (magic == PROC_MAGIC)
        {
            return "proc";
        }
        if (magic == SYSFS_MAGIC)
        {
            return "sysfs";
        }
        return "unknown(0x" + Long.toHexString(magic) + ")";
    }
}
