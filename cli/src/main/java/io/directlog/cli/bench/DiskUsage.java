package io.directlog.cli.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The disk a directory takes: the blocks its files have allocated, as {@code du -s -B1} counts them. File sizes
 * would not do: a preallocated segment is allocated in full whatever its records fill, and that is the cost to
 * measure. Where {@code du} is missing the apparent sizes rounded up to 4 KiB stand in (said in {@link #method}).
 * <p>
 * Stateless; thread-safe.
 */
final class DiskUsage
{
    private static final long DU_TIMEOUT_SECONDS = 120;

    private DiskUsage()
    {
    }

    /**
     * @param directory a directory.
     * @return bytes allocated by everything under it.
     * @throws IOException when neither du nor a walk of the directory works.
     */
    static long allocatedBytes(final Path directory) throws IOException
    {
        final long du = du(directory);
        return du >= 0 ? du : apparentBytes(directory);
    }

    /** @return how {@link #allocatedBytes} counts on this machine. */
    static String method(final Path directory)
    {
        return du(directory) >= 0 ? "du -s -B1" : "file sizes rounded up to 4 KiB (du not available)";
    }

    private static long du(final Path directory)
    {
        try
        {
            final Process p = new ProcessBuilder("du", "-s", "-B1", directory.toString())
                .redirectErrorStream(true).start();
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(DU_TIMEOUT_SECONDS, TimeUnit.SECONDS) || p.exitValue() != 0)
            {
                p.destroy();
                return -1;
            }
            return Long.parseLong(out.trim().split("\\s+")[0]);
        }
        catch (final IOException | NumberFormatException ex)
        {
            return -1;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static long apparentBytes(final Path directory) throws IOException
    {
        try (Stream<Path> files = Files.walk(directory))
        {
            long total = 0;
            for (final Path f : (Iterable<Path>)files::iterator)
            {
                if (Files.isRegularFile(f))
                {
                    total += (Files.size(f) + 4095) & ~4095L;
                }
            }
            return total;
        }
    }
}
