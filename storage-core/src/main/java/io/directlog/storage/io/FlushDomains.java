package io.directlog.storage.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.directlog.nativeio.NativeFileSystem;

/**
 * Decides whether the logs of a directory may share one fdatasync as their DSYNC flush (see
 * {@link io.directlog.storage.spi.BlockIo#flushDomain}), and names what it flushes: the block device, st_dev.
 * <p>
 * Yes on ext4 and XFS, whose fdatasync ends in a cache flush of the whole device even when the file has nothing
 * to commit (see {@link NativeBlockIo#flushDomain}); no on every other filesystem, and no on ext4 mounted with
 * {@code data=journal}: there O_DIRECT falls back to buffered writes, whose data an fdatasync of another file
 * leaves in the page cache. The mount's options are read once per device from {@code /proc/self/mountinfo}.
 * <p>
 * Thread-safe: logs open on several threads.
 */
final class FlushDomains
{
    private static final Path MOUNT_INFO = Path.of("/proc/self/mountinfo");
    /** Per st_dev: true when the device's filesystem is one whose fdatasync flushes the device. */
    private final Map<Long, Boolean> sharedByDevice = new ConcurrentHashMap<>();

    /** @return the st_dev of {@code dir} when its logs may share one flush, else null. */
    Object of(final Path dir) throws IOException
    {
        final String type = NativeFileSystem.statfs(dir).typeName();
        if (!"ext4".equals(type) && !"xfs".equals(type))
        {
            return null;
        }
        final Long device = (Long)Files.getAttribute(dir, "unix:dev");
        Boolean shared = sharedByDevice.get(device);
        if (shared == null)
        {
            shared = !journalsData(device);
            sharedByDevice.put(device, shared);
        }
        return shared ? device : null;
    }

    /** @return true when the mount of {@code device} journals file data (ext4 data=journal), or is not found. */
    private static boolean journalsData(final long device) throws IOException
    {
        // glibc's gnu_dev_major and gnu_dev_minor, as mountinfo prints them
        final long major = (device >>> 8 & 0xfff) | (device >>> 32 & ~0xfffL);
        final long minor = (device & 0xff) | (device >>> 12 & ~0xffL);
        final String id = " " + major + ":" + minor + " ";
        final List<String> lines = Files.readAllLines(MOUNT_INFO);
        for (final String line : lines)
        {
            final int separator = line.indexOf(" - ");
            if (line.contains(id) && line.indexOf(id) < separator)
            {
                final String superOptions = line.substring(separator + 3);
                return superOptions.contains("data=journal");
            }
        }
        return true; // cannot tell: the safe answer
    }
}
