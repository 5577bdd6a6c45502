package io.directlog.cli.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.agrona.concurrent.UnsafeBuffer;

import io.directlog.storage.AppendWaiter;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;

/**
 * What the two many-logs scenarios share: one store with a 1 GiB memory budget (issue 18's goal), logs named
 * {@code log-00000} on, and a way to open many of them that fails early and clearly. Each log is opened and given
 * its first appends before the next one opens, and the disk guard is asked in between: an engine that cannot hold
 * that many logs fails at the first log it cannot serve (say, a {@code MemoryBudgetExceededException} at log 16),
 * not after preparing files for thousands of logs at once.
 * <p>
 * Stateless; thread-safe.
 */
final class ManyLogs
{
    /** The store's memory budget: 1 GiB. */
    static final long MEMORY_BUDGET = 1L << 30;
    /** Payload bytes of every record. */
    static final int RECORD_BYTES = 100;
    /**
     * Logs created by one {@link LogStore#logs} call: how a broker creates a topic's partitions, and what anybody
     * creating thousands of logs would call (one at a time, each new log pays its own directory and file syncs).
     */
    static final int CREATE_BATCH = 500;

    private ManyLogs()
    {
    }

    /**
     * @param index from 0.
     * @return the log's name; zero-padded so that names sort as they were made.
     */
    static String name(final int index)
    {
        return String.format(Locale.ROOT, "log-%05d", index);
    }

    /** @return a record of {@link #RECORD_BYTES} bytes with a recognisable pattern. */
    static UnsafeBuffer payload(final int seed)
    {
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[RECORD_BYTES]);
        payload.setMemory(0, RECORD_BYTES, (byte)('a' + Math.floorMod(seed, 26)));
        return payload;
    }

    /**
     * Opens (creating) logs {@code 0..count-1} and appends {@code records} records to each, waiting for each.
     *
     * @param store      the store.
     * @param count      how many logs.
     * @param config     their settings.
     * @param records    records to append to each (at least 1: a log that never took an append costs no write page).
     * @param durability how they are acknowledged.
     * @param guard      asked before each batch of logs is created.
     * @return the logs, in index order.
     * @throws IOException           when the disk guard tripped.
     * @throws IllegalStateException naming the log that could not be opened or could not take an append.
     */
    static List<Log> openAndAppend(final LogStore store, final int count, final LogConfig config, final int records,
        final Durability durability, final DiskGuard guard) throws IOException
    {
        final List<Log> logs = new ArrayList<>(count);
        final UnsafeBuffer payload = payload(0);
        final AppendWaiter waiter = new AppendWaiter();
        for (int first = 0; first < count; first += CREATE_BATCH)
        {
            final int end = Math.min(count, first + CREATE_BATCH);
            final String doing = "opening logs " + (first + 1) + " to " + end + " of " + count;
            guard.check(doing);
            final List<String> names = new ArrayList<>(end - first);
            for (int i = first; i < end; i++)
            {
                names.add(name(i));
            }
            final List<Log> batch;
            try
            {
                batch = store.logs(names, config);
            }
            catch (final RuntimeException ex)
            {
                throw new IllegalStateException(doing + " failed, with " + first + " logs open and appended to: " +
                    BenchRunner.reason(ex), ex);
            }
            for (int i = 0; i < batch.size(); i++)
            {
                final Log log = batch.get(i);
                try
                {
                    for (int r = 0; r < records; r++)
                    {
                        waiter.append(log, payload, 0, RECORD_BYTES, durability);
                    }
                }
                catch (final RuntimeException ex)
                {
                    throw new IllegalStateException("log " + (first + i + 1) + " of " + count + " (" + log.name() +
                        ") failed, with " + (first + i) + " logs open and appended to: " + BenchRunner.reason(ex), ex);
                }
                logs.add(log);
            }
        }
        return logs;
    }
}
