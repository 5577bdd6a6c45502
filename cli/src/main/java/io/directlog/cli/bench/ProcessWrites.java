package io.directlog.cli.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Bytes this process has sent to the block layer ({@code write_bytes} in /proc/self/io), direct writes included: how
 * {@link BenchContext#settle()} tells that a new store's segment preparer has finished zero-filling its first
 * segments, whatever the machine's load, and how the rows can say what a scenario wrote per operation.
 * <p>
 * Stateless; thread-safe.
 */
final class ProcessWrites
{
    private static final Path IO = Path.of("/proc/self/io");
    private static final String FIELD = "write_bytes:";

    private ProcessWrites()
    {
    }

    /** @return bytes written so far by every thread of this process, or -1 where /proc/self/io is missing. */
    static long bytesWritten()
    {
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(IO);
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            return -1;
        }
        return parse(lines);
    }

    /**
     * @param lines the lines of a /proc/PID/io file.
     * @return its write_bytes, or -1 when absent or malformed.
     */
    static long parse(final List<String> lines)
    {
        for (final String line : lines)
        {
            if (line.startsWith(FIELD))
            {
                try
                {
                    return Long.parseLong(line.substring(FIELD.length()).trim());
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
