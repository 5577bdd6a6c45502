package io.directlog.cli.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;

import io.directlog.storage.AppendWaiter;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;

/**
 * {@code many-logs-footprint}: what many small logs cost. One store with a 1 GiB budget gets 10,000 logs (default
 * log settings) of three 100 B DIRECT records each; it is closed, opened again, every log is opened and takes one
 * more append, and it is closed again. The row's ops/s is logs opened per second at the reopen, its latencies
 * those of opening one log; the note carries the three figures issue 18 sets targets for:
 * <ul>
 *   <li>resident memory of the process ({@code VmRSS}) with every log open and appended to, at most the budget
 *   plus 200 MiB;</li>
 *   <li>disk the store's directory allocates ({@code du}) beyond the records' payload bytes, under 2 GiB;</li>
 *   <li>the reopen (store and every log) after a clean close, under 5 s.</li>
 * </ul>
 * The process's resident memory includes the JVM and whatever earlier scenarios left: run it alone
 * ({@code --only many-logs-footprint}) for the figure the target means.
 * <p>
 * Immutable; {@link #run} is called by one thread at a time.
 */
final class ManyLogsFootprintScenario implements Scenario
{
    static final String NAME = "many-logs-footprint";
    static final int LOGS_DEFAULT = 10_000;
    static final int RECORDS_PER_LOG = 3;
    static final long RSS_SLACK_BYTES = 200L << 20;
    static final long DISK_TARGET_BYTES = 2L << 30;
    static final long REOPEN_TARGET_NANOS = 5_000_000_000L;

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public String summary()
    {
        return "10,000 logs of a few records in one 1 GiB store: memory, disk, reopen time (--logs N)";
    }

    @Override
    public int recordBytes()
    {
        return ManyLogs.RECORD_BYTES;
    }

    @Override
    public List<Integer> threadCounts()
    {
        return List.of(1);
    }

    @Override
    public void run(final BenchContext context, final RowSink rows) throws Exception
    {
        final int count = context.logs(LOGS_DEFAULT);
        final DiskGuard guard = DiskGuard.forDirectory(context.directory());
        final Path dir = context.scenarioDirectory(name());
        final LogConfig config = context.manyLogsConfig().build();
        final long rssBefore = ProcessMemory.residentBytes();

        context.progress(String.format(Locale.ROOT, "creating %,d logs of %d records", count, RECORDS_PER_LOG));
        final long createStart = System.nanoTime();
        final long rssCreated;
        final long budgetCreated;
        final long descriptorsCreated;
        try (LogStore store = EngineStores.open(dir, ManyLogs.MEMORY_BUDGET))
        {
            try
            {
                ManyLogs.openAndAppend(store, count, config, RECORDS_PER_LOG, Durability.DIRECT, guard);
            }
            catch (final IllegalStateException | IOException ex)
            {
                context.progress("at the failure: " + figures(dir, rssBefore) + ", " + descriptorsUnder(dir) +
                    " descriptors open on the store's files");
                throw ex;
            }
            rssCreated = ProcessMemory.residentBytes();
            budgetCreated = store.cacheStats().usedBytes();
            descriptorsCreated = descriptorsUnder(dir);
        }
        final long createNanos = System.nanoTime() - createStart;
        final long diskClosed = DiskUsage.allocatedBytes(dir);
        context.progress(String.format(Locale.ROOT, "created and closed in %.1f s: RSS %s with all open, disk %s",
            createNanos / 1e9, mib(rssCreated), gb(diskClosed)));

        final Histogram openLatency = Measurement.newLatencyHistogram();
        final long reopenNanos;
        final long rssReopened;
        final long budgetReopened;
        final long budgetAppended;
        final long firstAppendNanos;
        final long descriptors;
        final long descriptorsReopened;
        final String idle;
        final long reopenStart = System.nanoTime();
        try (LogStore store = EngineStores.open(dir, ManyLogs.MEMORY_BUDGET))
        {
            final List<Log> logs = new ArrayList<>(count);
            final Set<String> names = store.logNames();
            for (final String name : names)
            {
                final long start = System.nanoTime();
                logs.add(store.log(name));
                openLatency.recordValue(System.nanoTime() - start);
            }
            reopenNanos = System.nanoTime() - reopenStart;
            budgetReopened = store.cacheStats().usedBytes();
            descriptorsReopened = descriptorsUnder(dir);
            if (names.size() != count)
            {
                throw new IllegalStateException("the store reopened with " + names.size() + " logs, not " + count);
            }
            final long appendStart = System.nanoTime();
            appendOneMore(logs, guard);
            firstAppendNanos = System.nanoTime() - appendStart;
            descriptors = descriptorsUnder(dir);
            rssReopened = ProcessMemory.residentBytes();
            budgetAppended = store.cacheStats().usedBytes();
            idle = descriptorsOnceIdle(dir, store.config().pageIdleRelease().toNanos(), descriptorsReopened);
        }
        final long diskEnd = DiskUsage.allocatedBytes(dir);
        final long payload = (long)count * (RECORDS_PER_LOG + 1) * ManyLogs.RECORD_BYTES;
        final long rss = Math.max(rssCreated, rssReopened);
        final long disk = Math.max(diskClosed, diskEnd) - payload;
        final String note = String.format(Locale.ROOT,
            "%,d logs of %s segments, budget 1 GiB: RSS %s (target <=%s: %s; %s before the store), disk %s beyond the records " +
                "(target <%s: %s), reopen %.2f s (target <5 s: %s); budget in use %s with all open, %s reopened, " +
                "%s after one more append each",
            count, mib(config.segmentSize()), mib(rss), mib(ManyLogs.MEMORY_BUDGET + RSS_SLACK_BYTES),
            verdict(rss >= 0 && rss <= ManyLogs.MEMORY_BUDGET + RSS_SLACK_BYTES), mib(rssBefore), mib(disk),
            mib(DISK_TARGET_BYTES), verdict(disk < DISK_TARGET_BYTES), reopenNanos / 1e9, verdict(reopenNanos < REOPEN_TARGET_NANOS),
            mib(budgetCreated), mib(budgetReopened), mib(budgetAppended));
        context.progress(String.format(Locale.ROOT, "one more append to each reopened log (the first use of each): " +
            "%.2f s; then %,d descriptors open on the store's files, %.2f a log", firstAppendNanos / 1e9, descriptors,
            descriptors / (double)count));
        context.progress(String.format(Locale.ROOT, "descriptors on the store's files: %,d with every log created " +
            "and appended to, %,d with every log reopened, %,d after one more append each, %s",
            descriptorsCreated, descriptorsReopened, descriptors, idle));
        context.progress(note);
        rows.add(1, new Measurement(count, 0, reopenNanos, openLatency), note);
    }

    /** Every reopened log takes one more record: it must still accept appends, and takes its write page again. */
    private static void appendOneMore(final List<Log> logs, final DiskGuard guard) throws IOException
    {
        final UnsafeBuffer payload = ManyLogs.payload(1);
        final AppendWaiter waiter = new AppendWaiter();
        for (int i = 0; i < logs.size(); i++)
        {
            if (i % 100 == 0)
            {
                guard.check("appending to reopened log " + (i + 1) + " of " + logs.size());
            }
            final Log log = logs.get(i);
            try
            {
                final long offset = waiter.append(log, payload, 0, ManyLogs.RECORD_BYTES, Durability.DIRECT);
                if (offset != RECORDS_PER_LOG)
                {
                    throw new IllegalStateException("reopened log " + log.name() + " took its next record at offset " +
                        offset + ", not " + RECORDS_PER_LOG);
                }
            }
            catch (final RuntimeException ex)
            {
                throw new IllegalStateException("reopened log " + (i + 1) + " of " + logs.size() + " (" + log.name() +
                    ") failed: " + BenchRunner.reason(ex), ex);
            }
        }
    }

    private static String figures(final Path dir, final long rssBefore)
    {
        String disk;
        try
        {
            disk = gb(DiskUsage.allocatedBytes(dir));
        }
        catch (final IOException | RuntimeException ex)
        {
            // the failure being reported may be the reason (out of descriptors: du cannot start, a walk fails):
            // say so rather than hide that failure behind this one
            disk = "unknown (" + BenchRunner.reason(ex) + ")";
        }
        return "RSS " + mib(ProcessMemory.residentBytes()) + " (" + mib(rssBefore) + " before the store), disk " + disk;
    }

    /**
     * Waits (at most the idle period and 30 s more) for the logs' descriptors to close as idle (issue 18), down to
     * {@code floor}: what the store held with every log reopened and none used (its lock file).
     *
     * @return what was left, and after how long.
     */
    private static String descriptorsOnceIdle(final Path dir, final long idleNanos, final long floor)
        throws InterruptedException
    {
        final long start = System.nanoTime();
        long n = descriptorsUnder(dir);
        while (n > floor && System.nanoTime() - start < idleNanos + 30_000_000_000L)
        {
            Thread.sleep(100);
            n = descriptorsUnder(dir);
        }
        return String.format(Locale.ROOT, "%,d once idle (%.1f s later, idle period %.1f s)", n,
            (System.nanoTime() - start) / 1e9, idleNanos / 1e9);
    }

    private static String verdict(final boolean met)
    {
        return met ? "met" : "missed";
    }

    static String mib(final long bytes)
    {
        return bytes < 0 ? "unknown" : String.format(Locale.ROOT, "%,.0f MiB", bytes / 1048576.0);
    }

    static String gb(final long bytes)
    {
        return String.format(Locale.ROOT, "%.2f GB", bytes / 1e9);
    }

    /** @return descriptors of this process open on files below {@code dir} (Linux /proc), or -1 without /proc. */
    private static long descriptorsUnder(final Path dir)
    {
        final Path root = dir.toAbsolutePath().normalize();
        long n = 0;
        try (java.util.stream.Stream<Path> fds = java.nio.file.Files.list(java.nio.file.Paths.get("/proc/self/fd")))
        {
            for (final Path fd : (Iterable<Path>)fds::iterator)
            {
                try
                {
                    n += java.nio.file.Files.readSymbolicLink(fd).startsWith(root) ? 1 : 0;
                }
                catch (final IOException ex)
                {
                    // closed since the listing
                }
            }
        }
        catch (final IOException ex)
        {
            return -1;
        }
        return n;
    }
}
