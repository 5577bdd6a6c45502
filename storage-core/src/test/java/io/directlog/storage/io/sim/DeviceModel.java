package io.directlog.storage.io.sim;

/**
 * What a completed write means on the simulated device at a power loss.
 */
public enum DeviceModel
{
    /**
     * A drive without a volatile cache or with power-loss protection: a completed write to a written
     * (pre-zeroed, synced) extent inside the durable file size is durable. Writes that need metadata (an
     * unwritten extent's conversion, a size change) still need fdatasync or O_DSYNC, as on ext4 and XFS.
     */
    WRITE_THROUGH,
    /**
     * A drive with a volatile write cache: a completed write is durable only after fdatasync of its file, or
     * when it went through an O_DSYNC descriptor. O_DSYNC is modelled as FUA: durable for its own blocks only,
     * never a flush of the rest of the cache (the safe model; on a drive without FUA the kernel issues a full
     * flush instead, which is stronger).
     */
    VOLATILE_CACHE
}
