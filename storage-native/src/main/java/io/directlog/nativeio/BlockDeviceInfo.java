package io.directlog.nativeio;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;

/**
 * Facts about the block device under a file, read from sysfs. They decide whether a completed O_DIRECT write is
 * durable without a flush: only when the device has no volatile write cache ({@code write_cache} = "write through")
 * or has power-loss protection, which sysfs cannot tell. With a volatile cache and no FUA, durability needs
 * fdatasync (a cache flush).
 *
 * <p>Immutable; thread-safe.
 *
 * @param disk               the whole-disk device name, e.g. {@code "vda"}, {@code "nvme0n1"}, {@code "dm-0"}.
 * @param major              major number of the device holding the filesystem (the partition's, if any).
 * @param minor              minor number of that device.
 * @param partition          the partition name, e.g. {@code "vda1"}, or null if the filesystem is on the whole disk.
 * @param volatileWriteCache whether {@code queue/write_cache} says "write back" (true also when unreadable, the
 *                           safe assumption).
 * @param writeCache         the raw text of {@code queue/write_cache}, or {@code "unknown"} when unreadable.
 * @param fua                whether {@code queue/fua} is 1 (the device honours Force Unit Access writes).
 * @param rotational         whether {@code queue/rotational} is 1.
 * @param logicalBlockSize   {@code queue/logical_block_size} (512 when unreadable).
 * @param physicalBlockSize  {@code queue/physical_block_size} (the logical size when unreadable).
 */
public record BlockDeviceInfo(
    String disk, int major, int minor, String partition, boolean volatileWriteCache, String writeCache, boolean fua,
    boolean rotational, int logicalBlockSize, int physicalBlockSize)
{
    static final Path SYS_DEV_BLOCK = Paths.get("/sys/dev/block");

    /**
     * Finds the disk under a path: st_dev of the path, then {@code /sys/dev/block/MAJ:MIN}, then its parent disk
     * if that is a partition, then the disk's {@code queue/} attributes. Missing attributes take the documented
     * defaults.
     *
     * @param path an existing file or directory.
     * @return the device, or empty when there is none (tmpfs, overlay, btrfs and other major-0 devices), the path
     *         does not exist, or sysfs is not mounted. Works without the native layer.
     */
    public static Optional<BlockDeviceInfo> forPath(final Path path)
    {
        final long dev;
        try
        {
            // The JDK's own stat(2) gives st_dev, so this works even when the JNA layer is unavailable.
            dev = ((Number)Files.getAttribute(path, "unix:dev")).longValue();
        }
        catch (final IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException ex)
        {
            return Optional.empty();
        }
        return forDevice(SYS_DEV_BLOCK, major(dev), minor(dev));
    }

    /** glibc's gnu_dev_major: the inverse of {@link Statx#makedev}. */
    static int major(final long dev)
    {
        return (int)(((dev >>> 32) & 0xFFFFF000L) | ((dev >>> 8) & 0xFFFL));
    }

    /** glibc's gnu_dev_minor. */
    static int minor(final long dev)
    {
        return (int)(((dev >>> 12) & 0xFFFFFF00L) | (dev & 0xFFL));
    }

    /** Package-private so tests can point it at a fake sysfs tree. */
    static Optional<BlockDeviceInfo> forDevice(final Path sysDevBlock, final int major, final int minor)
    {
        if (major == 0)
        {
            // Major 0 is the "unnamed" device class: tmpfs, overlay, proc, btrfs subvolumes. No queue to read.
            return Optional.empty();
        }
        final Path device;
        try
        {
            device = sysDevBlock.resolve(major + ":" + minor).toRealPath();
        }
        catch (final IOException | SecurityException ex)
        {
            return Optional.empty();
        }
        final boolean isPartition = Files.exists(device.resolve("partition"));
        final Path disk = isPartition ? device.getParent() : device;
        if (disk == null || disk.getFileName() == null)
        {
            return Optional.empty();
        }
        final Path queue = disk.resolve("queue");
        final String writeCache = readAttribute(queue.resolve("write_cache"));
        final int logical = parseInt(readAttribute(queue.resolve("logical_block_size")), 512);
        final int physical = parseInt(readAttribute(queue.resolve("physical_block_size")), logical);
        return Optional.of(new BlockDeviceInfo(
            disk.getFileName().toString(),
            major,
            minor,
            isPartition ? device.getFileName().toString() : null,
            writeCache == null || !writeCache.startsWith("write through"),
            writeCache == null ? "unknown" : writeCache,
            "1".equals(readAttribute(queue.resolve("fua"))),
            "1".equals(readAttribute(queue.resolve("rotational"))),
            logical,
            physical));
    }

    private static String readAttribute(final Path file)
    {
        try
        {
            return new String(Files.readAllBytes(file), StandardCharsets.US_ASCII).trim();
        }
        catch (final IOException | SecurityException ex)
        {
            return null;
        }
    }

    private static int parseInt(final String text, final int defaultValue)
    {
        if (text == null)
        {
            return defaultValue;
        }
        try
        {
            final int value = Integer.parseInt(text);
            return value > 0 ? value : defaultValue;
        }
        catch (final NumberFormatException ex)
        {
            return defaultValue;
        }
    }
}
