package io.directlog.storage.log;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.directlog.storage.spi.BlockFile;

/**
 * One pass of the store's syncer over its logs, sharing device flushes among the logs whose files are on one flush
 * domain ({@code BlockIo.flushDomain}: the block device on ext4 and XFS). Issue 18: a log synced alone costs two
 * device flushes (the fdatasync of its segment, then its checkpoint slot written with O_DSYNC), so 10,000 logs
 * touched after a restart cost 20,000 flushes in the syncer alone, one log after the other. A round costs two per
 * domain, whatever the number of logs in it:
 * <ol>
 *   <li>each log, under its tick lock, takes its watermark, holds its acknowledgements back and syncs its rolled
 *       segments, exactly as a tick alone does, and counts its active segment's writes as synced;</li>
 *   <li>one fdatasync, through the first open active-segment descriptor of the round (or a checkpoint file when
 *       none is open), makes every write of the domain that completed before it durable: the segments are
 *       pre-zeroed and synced before any writer took them, so their writes are overwrites that need no metadata,
 *       and any fdatasync in the domain ends in a cache flush of the whole device (the argument of
 *       {@code SharedFlush} in the writer package);</li>
 *   <li>each log writes its watermark to its checkpoint slot with plain O_DIRECT (a slot write is an overwrite of a
 *       written, synced file too), and one fdatasync through the last slot's descriptor makes them all durable;</li>
 *   <li>each log lets its acknowledgements go and does its index, retention and descriptor work.</li>
 * </ol>
 * The order is a tick alone's: every watermark names only writes that completed before the first fdatasync began,
 * and its slot is written after that fdatasync returned. Failures fail-stop as a tick alone's do, never retried:
 * a failed first fdatasync fails every log of the group (none of their writes is known durable), a failed slot
 * write its own log, a failed second fdatasync every log whose slot it was to make durable.
 * <p>
 * A log joins when its sync is due, and also, when some log of its domain is due, if its own falls due within
 * {@link #earlyWindow} and its writer wrote since its last sync: logs first used one after the other (a broker
 * after a restart) fall due one after the other, and without the window each would be a round of its own. So a
 * log is synced at most {@link #earlyWindow} earlier than its {@code syncInterval}, never later.
 * <p>
 * A group holds at most {@value #GROUP_MAX} logs' tick locks and acknowledgements at once (the lock order allows
 * it: only the syncer takes more than one tick lock, and holds nothing else while it takes them).
 * <p>
 * Not thread-safe; one per pass, on the syncer thread.
 */
public final class SyncerRound
{
    /** Logs per group: their acknowledgements wait for the group's slot writes, about 50 us a log. */
    static final int GROUP_MAX = 128;
    private static final System.Logger LOG = System.getLogger(DefaultLog.class.getName());
    private static final long EARLY_WINDOW_MAX_NANOS = 250_000_000L;

    private final long nowNanos;
    private final Map<Object, List<LogSyncer>> due = new LinkedHashMap<>();
    private final Map<Object, List<LogSyncer>> early = new HashMap<>();

    /** @param nowNanos the pass's time. */
    public SyncerRound(final long nowNanos)
    {
        this.nowNanos = nowNanos;
    }

    /**
     * @param intervalNanos a log's {@code syncInterval}.
     * @return how much earlier than due a log may be synced with a round of its domain: a quarter of its interval,
     * at most 250 ms.
     */
    static long earlyWindow(final long intervalNanos)
    {
        return Math.min(intervalNanos / 4, EARLY_WINDOW_MAX_NANOS);
    }

    /** A log's tick joins the round (see {@link LogSyncer#offerTick}). */
    void join(final Object domain, final LogSyncer log, final boolean isDue)
    {
        (isDue ? due : early).computeIfAbsent(domain, d -> new ArrayList<>()).add(log);
    }

    /** Syncs the logs that joined: per domain with a due log, groups of at most {@value #GROUP_MAX}. */
    public void run()
    {
        for (final Map.Entry<Object, List<LogSyncer>> e : due.entrySet())
        {
            final List<LogSyncer> members = new ArrayList<>(e.getValue());
            members.addAll(early.getOrDefault(e.getKey(), List.of()));
            for (int from = 0; from < members.size(); from += GROUP_MAX)
            {
                final List<LogSyncer> group = members.subList(from, Math.min(members.size(), from + GROUP_MAX));
                lockAndRun(group, 0);
            }
        }
    }

    /** Takes the group's tick locks one after the other (close takes a log's too: it frees what a tick writes). */
    private void lockAndRun(final List<LogSyncer> group, final int next)
    {
        if (next == group.size())
        {
            runGroup(group);
            return;
        }
        synchronized (group.get(next).tickLock())
        {
            lockAndRun(group, next + 1);
        }
    }

    private void runGroup(final List<LogSyncer> group)
    {
        final List<LogSyncer> in = new ArrayList<>(group.size());
        for (final LogSyncer log : group)
        {
            if (log.beginRoundSync(nowNanos))
            {
                in.add(log); // holds its acknowledgements back until finishRoundSync
            }
        }
        final Map<LogSyncer, Throwable> failures = new HashMap<>();
        final Map<LogSyncer, String> failed = new HashMap<>();
        try
        {
            try
            {
                syncData(in);
            }
            catch (final IOException | RuntimeException e)
            {
                failAll(in, "fdatasync shared by the syncer's round of " + in.size() + " logs", e, failures, failed);
                return;
            }
            writeCheckpoints(in, failures, failed);
        }
        finally
        {
            finishAll(in, failures, failed);
        }
    }

    /**
     * Step 4 for every log of the group, each on its own: an error escaping one log's (a metrics listener, say)
     * must not leave the next ones' acknowledgements held back for good, nor end the syncer thread.
     */
    private void finishAll(final List<LogSyncer> in, final Map<LogSyncer, Throwable> failures,
        final Map<LogSyncer, String> failed)
    {
        for (final LogSyncer log : in)
        {
            try
            {
                log.finishRoundSync(nowNanos, failed.get(log), failures.get(log));
            }
            catch (final RuntimeException e)
            {
                LOG.log(System.Logger.Level.WARNING, "log '" + log.name() + "': the end of its syncer round failed: " +
                    e);
            }
        }
    }

    /** The round's first fdatasync, when a log of the group had writes to sync. */
    private static void syncData(final List<LogSyncer> in) throws IOException
    {
        boolean wrote = false;
        for (final LogSyncer log : in)
        {
            wrote |= log.roundWrote();
        }
        if (!wrote)
        {
            return;
        }
        for (final LogSyncer log : in)
        {
            if (log.roundSyncThroughActive())
            {
                return;
            }
        }
        in.get(0).roundSyncThroughCheckpoint(); // every write descriptor closed meanwhile (idle logs)
    }

    /** Every log's slot without O_DSYNC, then one fdatasync through the last one written. */
    private static void writeCheckpoints(final List<LogSyncer> in, final Map<LogSyncer, Throwable> failures,
        final Map<LogSyncer, String> failed)
    {
        final List<LogSyncer> wrote = new ArrayList<>(in.size());
        BlockFile last = null;
        try
        {
            for (final LogSyncer log : in)
            {
                try
                {
                    final BlockFile slot = log.writeRoundCheckpoint();
                    if (slot != null)
                    {
                        closeQuietly(last); // its write is done; the last one's fdatasync covers it
                        last = slot;
                        wrote.add(log);
                    }
                }
                catch (final IOException | RuntimeException e)
                {
                    failures.put(log, e);
                    failed.put(log, "checkpoint write");
                }
            }
            if (last != null)
            {
                last.datasync();
                for (final LogSyncer log : wrote)
                {
                    log.roundCheckpointSynced(); // their next slot write need not sync first
                }
            }
        }
        catch (final IOException | RuntimeException e)
        {
            failAll(wrote, "fdatasync of the checkpoints written by the syncer's round of " + wrote.size() + " logs",
                e, failures, failed);
        }
        finally
        {
            closeQuietly(last);
        }
    }

    /** Closes a slot's descriptor (an O_DIRECT descriptor: closing it changes no data), if any. */
    private static void closeQuietly(final BlockFile file)
    {
        if (file != null)
        {
            RecoveryScope.closeQuietly(file);
        }
    }

    private static void failAll(final List<LogSyncer> logs, final String what, final Throwable cause,
        final Map<LogSyncer, Throwable> failures, final Map<LogSyncer, String> failed)
    {
        for (final LogSyncer log : logs)
        {
            failures.putIfAbsent(log, cause);
            failed.putIfAbsent(log, what);
        }
    }
}
