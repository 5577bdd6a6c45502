package io.directlog.kafka.baseline.load;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of a process: another one's from {@code /proc/<pid>/stat} (utime + stime, fields 14 and 15, in clock ticks
 * of 1/100 s, the value of {@code getconf CLK_TCK} on Linux x86-64 and arm64), this JVM's from the platform MXBean.
 * Stateless; thread-safe.
 */
public final class ProcessCpu
{
    static final double TICKS_PER_SECOND = 100.0;

    private ProcessCpu()
    {
    }

    /**
     * @param pid a live process.
     * @return its user plus system CPU seconds so far, or NaN where {@code /proc} cannot be read.
     */
    public static double seconds(final long pid)
    {
        try
        {
            return parseStat(Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII));
        }
        catch (final IOException | RuntimeException ex)
        {
            return Double.NaN;
        }
    }

    /** @return this JVM's CPU seconds so far, or NaN when the platform does not say. */
    public static double selfSeconds()
    {
        final java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun)
        {
            final long nanos = sun.getProcessCpuTime();
            return nanos < 0 ? Double.NaN : nanos / 1e9;
        }
        return Double.NaN;
    }

    /**
     * @param stat the text of {@code /proc/<pid>/stat}.
     * @return utime + stime in seconds.
     */
    static double parseStat(final String stat)
    {
        // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
        final String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        // f[0] is field 3 (state), so field 14 (utime) is f[11] and field 15 (stime) is f[12].
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
    }
}
