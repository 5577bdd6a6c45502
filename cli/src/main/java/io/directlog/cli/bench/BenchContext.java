package io.directlog.cli.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.AtomicBuffer;

import io.directlog.storage.AppendWaiter;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.buffer.Buffers;

/**
 * What every scenario of one run shares: the run's directory, the timing, the progress stream, and the O_DIRECT
 * probe of the directory (done once).
 * <p>
 * Used by the runner's thread; the scenarios' worker threads only read the timing.
 */
final class BenchContext
{
    /** See {@link #settle()}: a few times what preparing three 64 MiB segments takes on a 1 GB/s device. */
    static final long SETTLE_NANOS = 500_000_000L;
    /** See {@link #settle()}: no bytes written for this long means the preparer is done. */
    static final long QUIET_NANOS = 200_000_000L;
    /** See {@link #settle()}: the longest it waits for quiet; a row on a busy disk then starts anyway. */
    static final long SETTLE_MAX_NANOS = 15_000_000_000L;
    /** The one record {@link #settle(Log, Durability)} appends. */
    static final int PRIMING_RECORD_BYTES = 100;

    private final Path directory;
    private final BenchOptions options;
    private final PrintStream progress;
    private final DirectIoSupport directIo;

    /**
     * @param directory the run's own directory (removed after the run).
     * @param options   the parsed options.
     * @param progress  where progress lines go (stderr).
     * @param directIo  whether raw O_DIRECT I/O works in {@code directory}.
     */
    BenchContext(final Path directory, final BenchOptions options, final PrintStream progress,
        final DirectIoSupport directIo)
    {
        this.directory = directory;
        this.options = options;
        this.progress = progress;
        this.directIo = directIo;
    }

    Path directory()
    {
        return directory;
    }

    long warmupNanos()
    {
        return options.warmupNanos();
    }

    long measureNanos()
    {
        return options.measureNanos();
    }

    long coldReadBytes()
    {
        return options.coldReadBytes();
    }

    /**
     * @param scenarioDefault the scenario's own count.
     * @return the logs a many-logs scenario opens: --logs when given, else its default.
     */
    int logs(final int scenarioDefault)
    {
        return options.logs() > 0 ? options.logs() : scenarioDefault;
    }

    /** @return settings of the many-logs scenarios' logs: the engine's defaults, or --segment-size. */
    io.directlog.storage.LogConfig.Builder manyLogsConfig()
    {
        final io.directlog.storage.LogConfig.Builder b = io.directlog.storage.LogConfig.builder();
        return options.segmentSize() > 0 ? b.segmentSize(options.segmentSize()) : b;
    }

    DirectIoSupport directIo()
    {
        return directIo;
    }

    /**
     * A fresh, empty directory for one scenario's files; the runner deletes it when the scenario ends.
     *
     * @param scenario the scenario's name.
     * @return the directory.
     * @throws IOException when it cannot be created.
     */
    Path scenarioDirectory(final String scenario) throws IOException
    {
        final Path dir = directory.resolve(scenario);
        BenchDirectory.delete(dir);
        return Files.createDirectories(dir);
    }

    /**
     * A directory for files several scenarios use (the 256 MiB sequential file); removed with the run's directory.
     *
     * @return the directory.
     * @throws IOException when it cannot be created.
     */
    Path sharedDirectory() throws IOException
    {
        return Files.createDirectories(directory.resolve("shared"));
    }

    /**
     * Waits, on the scenario's own thread, for work a scenario started in the background to settle before its first
     * row: a new log's segment preparer writes and syncs its first segments (some 200 MiB of zeros with 64 MiB
     * segments), and those writes would otherwise compete with the first row's appends and flushes. Waits at least
     * {@link #SETTLE_NANOS}, then until this process has written nothing for {@link #QUIET_NANOS} (at most
     * {@link #SETTLE_MAX_NANOS}): a fixed wait assumed the zero-fill's speed, which on a loaded machine is a fraction
     * of a quiet one's.
     */
    void settle()
    {
        final long start = System.nanoTime();
        pause(SETTLE_NANOS);
        long written = ProcessWrites.bytesWritten();
        while (written >= 0 && System.nanoTime() - start < SETTLE_MAX_NANOS)
        {
            pause(QUIET_NANOS);
            final long now = ProcessWrites.bytesWritten();
            if (now == written)
            {
                return;
            }
            written = now;
        }
    }

    /**
     * {@link #settle()} for a log about to be measured: first one append, waited for, since a new log's first append
     * is what sets its preparer zero-filling the next segment. Settling before it measured 9-24 KB written per
     * 100 B DSYNC append in the first row of a fresh store (the 64 MiB of zeros, in the window; 14 runs), against
     * 0.5-1.6 KB once primed or after an earlier row (18 runs).
     *
     * @param log        the log the row appends to.
     * @param durability what the row's appends ask for.
     */
    void settle(final Log log, final Durability durability)
    {
        final AtomicBuffer record = Buffers.wrap(new byte[PRIMING_RECORD_BYTES]); // works in a JVM without options too
        new AppendWaiter().append(log, record, 0, PRIMING_RECORD_BYTES, durability);
        settle();
    }

    private static void pause(final long nanos)
    {
        final long deadline = System.nanoTime() + nanos;
        long remaining;
        while ((remaining = deadline - System.nanoTime()) > 0)
        {
            LockSupport.parkNanos(remaining);
        }
    }

    /**
     * Prints a progress detail under the scenario's start line.
     *
     * @param message what is happening, such as "writing 512 MiB".
     */
    void progress(final String message)
    {
        progress.println("      " + message);
        progress.flush();
    }
}
