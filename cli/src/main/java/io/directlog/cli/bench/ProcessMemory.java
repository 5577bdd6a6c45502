package io.directlog.cli.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * This process's resident memory as the kernel counts it ({@code VmRSS} and {@code VmHWM} in /proc/self/status):
 * heap, native pages, thread stacks and code together, which is what a memory budget has to be held against. JMX
 * would give the heap alone and miss the engine's pages, which are native.
 * <p>
 * Stateless; thread-safe.
 */
final class ProcessMemory
{
    private static final Path STATUS = Path.of("/proc/self/status");

    private ProcessMemory()
    {
    }

    /** @return resident bytes now, or -1 where /proc/self/status is missing (not Linux). */
    static long residentBytes()
    {
        return field("VmRSS:");
    }

    /** @return the most resident bytes this process ever had, or -1 where /proc/self/status is missing. */
    static long peakResidentBytes()
    {
        return field("VmHWM:");
    }

    private static long field(final String name)
    {
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(STATUS);
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            return -1;
        }
        return parse(lines, name);
    }

    /**
     * @param lines the lines of a /proc/PID/status file.
     * @param name  a field such as "VmRSS:".
     * @return its value in bytes (the file says kB), or -1 when absent or malformed.
     */
    static long parse(final List<String> lines, final String name)
    {
        for (final String line : lines)
        {
            if (line.startsWith(name))
            {
                final String[] parts = line.substring(name.length()).trim().split("\\s+");
                try
                {
                    return Long.parseLong(parts[0]) * 1024;
                }
                catch (final NumberFormatException ex)
                {
                    return -1;
                }
            }
        }
        return -1;
    }
}
