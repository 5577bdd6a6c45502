package io.directlog.storage;

/**
 * What the store found under its directory, and what follows for durability.
 *
 * @param fileSystemType      the filesystem (ext4, xfs, btrfs, tmpfs, overlay...).
 * @param device              the block device's disk name (vda, nvme0n1), or "unknown".
 * @param volatileWriteCache  true when the device reports a write-back cache ("write back").
 * @param fua                 true when the device supports Force Unit Access writes.
 * @param rotational          true for a spinning disk.
 * @param logicalBlockSize    the device's logical block size, 0 when unknown.
 * @param physicalBlockSize   the device's physical block size, 0 when unknown.
 * @param directIo            true when O_DIRECT works in the directory (probed with a real write).
 * @param alignment           direct-I/O alignment in bytes.
 * @param copyOnWrite         true when overwrites allocate new blocks (btrfs, or unknown): DIRECT becomes DSYNC.
 * @param io                  the I/O layer in use.
 */
public record DeviceInfo(String fileSystemType, String device, boolean volatileWriteCache, boolean fua,
    boolean rotational, int logicalBlockSize, int physicalBlockSize, boolean directIo, int alignment,
    boolean copyOnWrite, String io)
{
    /** @return true when DIRECT appends survive power loss: no volatile cache, and a direct, overwrite-in-place store. */
    public boolean directIsPowerSafe()
    {
        return directIo && !volatileWriteCache && !copyOnWrite;
    }
}
