package io.directlog.cli.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;

import io.directlog.nativeio.BlockDeviceInfo;
import io.directlog.nativeio.NativeFileSystem;

/**
 * The header of a bench run: what one needs to read the numbers. The JDK, kernel and CPUs; the directory, its
 * filesystem and block device (a volatile write cache without FUA is why DIRECT and DSYNC differ); whether O_DIRECT
 * works there; and the timing.
 * <p>
 * Every line degrades to "unknown (why)" rather than failing the run. Stateless; thread-safe.
 */
final class EnvironmentReport
{
    private EnvironmentReport()
    {
    }

    /**
     * @param directory where the bench writes.
     * @param options   the run's options.
     * @param directIo  the O_DIRECT probe of the directory.
     * @return the header, lines ending with a newline.
     */
    static String describe(final Path directory, final BenchOptions options, final DirectIoSupport directIo)
    {
        final StringBuilder sb = new StringBuilder()
            .append("DirectLog bench, ")
            .append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")))
            .append('\n');
        line(sb, "jdk", System.getProperty("java.runtime.version") + " (" + System.getProperty("java.vendor") + ", " +
            System.getProperty("java.vm.name") + ")");
        line(sb, "kernel", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " +
            System.getProperty("os.arch") + ", " + Runtime.getRuntime().availableProcessors() + " CPUs" + loadAverage());
        line(sb, "directory", directory + " (removed afterwards)");
        final String fileSystem = fileSystem(directory);
        line(sb, "filesystem", fileSystem);
        final Optional<BlockDeviceInfo> device = device(directory);
        line(sb, "device", device.map(EnvironmentReport::describeDevice).orElseGet(() -> unknownDevice(directory)));
        line(sb, "O_DIRECT", directIo.describe());
        line(sb, "timing", String.format(Locale.ROOT,
            "%.2f s warm-up (not recorded) + %.2f s measured per row; latency per operation in microseconds",
            options.warmupNanos() / 1e9, options.durationSeconds()));
        device.filter(BlockDeviceInfo::volatileWriteCache).filter(d -> !d.fua()).ifPresent(d -> line(sb, "reading",
            "write-back cache, no FUA: a DIRECT write may sit in the device's cache (not power-safe); " +
            "DSYNC adds a cache flush"));
        device.filter(BlockDeviceInfo::volatileWriteCache).filter(BlockDeviceInfo::fua).ifPresent(d -> line(sb,
            "reading", "write-back cache with FUA: DIRECT is not power-safe here; DSYNC writes are FUA writes"));
        if (fileSystem.equals("tmpfs"))
        {
            line(sb, "reading", "tmpfs is memory: these rows measure no disk, and nothing written there is durable");
        }
        final double load = loadAverageValue();
        final int cpus = Runtime.getRuntime().availableProcessors();
        if (load > cpus)
        {
            line(sb, "reading", String.format(Locale.ROOT,
                "load average %.1f on %d CPUs: other work is running, expect noisy numbers", load, cpus));
        }
        return sb.toString();
    }

    private static void line(final StringBuilder sb, final String name, final String value)
    {
        sb.append("  ").append(name).append(" ".repeat(Math.max(1, 12 - name.length()))).append(value).append('\n');
    }

    /** Other work on the machine skews every row; the load average at the start says whether there was some. */
    private static String loadAverage()
    {
        final double load = loadAverageValue();
        return Double.isNaN(load) ? "" : String.format(Locale.ROOT, ", load average %.2f (1 min)", load);
    }

    /** @return the 1-minute load average, or NaN where /proc/loadavg cannot be read. */
    private static double loadAverageValue()
    {
        try
        {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
        }
        catch (final IOException | RuntimeException ex)
        {
            return Double.NaN;
        }
    }

    private static String fileSystem(final Path directory)
    {
        final String unavailable = DirectIoSupport.nativeUnavailableReason();
        if (unavailable != null)
        {
            return "unknown (" + unavailable + ")";
        }
        try
        {
            return NativeFileSystem.statfs(directory).typeName();
        }
        catch (final Exception | LinkageError ex)
        {
            return "unknown (" + ex + ")";
        }
    }

    private static Optional<BlockDeviceInfo> device(final Path directory)
    {
        if (DirectIoSupport.nativeUnavailableReason() != null)
        {
            return Optional.empty();
        }
        try
        {
            return BlockDeviceInfo.forPath(directory);
        }
        catch (final Exception | LinkageError ex)
        {
            return Optional.empty();
        }
    }

    private static String unknownDevice(final Path directory)
    {
        final String unavailable = DirectIoSupport.nativeUnavailableReason();
        return unavailable != null ? "unknown (" + unavailable + ")" :
            "unknown (no block device behind " + directory + ": tmpfs, overlay or network?)";
    }

    static String describeDevice(final BlockDeviceInfo d)
    {
        return d.disk() + ": write cache \"" + d.writeCache() + "\", FUA " + yesNo(d.fua()) + ", rotational " +
            yesNo(d.rotational()) + ", logical/physical block " + d.logicalBlockSize() + "/" + d.physicalBlockSize() +
            " B";
    }

    private static String yesNo(final boolean b)
    {
        return b ? "yes" : "no";
    }
}
