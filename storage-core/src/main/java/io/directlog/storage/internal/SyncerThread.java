package io.directlog.storage.internal;

import io.directlog.storage.log.DefaultLog;
import io.directlog.storage.log.SyncerRound;

/**
 * The store's syncer thread: a timer that gives each open log a tick every {@value #PERIOD_MILLIS} ms, in which
 * the log's own syncer decides whether to fdatasync what its writer wrote; the logs that share a flush domain are
 * synced together, with two device flushes a pass ({@link SyncerRound}), not two a log.
 * <p>
 * Thread-safe: started once; stopped once, by the store's close after its logs are closed (an interrupt during a
 * log's sync could close that log's file channel under it).
 */
final class SyncerThread
{
    private static final long PERIOD_MILLIS = 20;

    private final LogRegistry logs;
    private final Thread thread;

    private SyncerThread(final LogRegistry logs)
    {
        this.logs = logs;
        this.thread = new Thread(this::run, "directlog-syncer");
        this.thread.setDaemon(true);
    }

    /**
     * @param logs the logs to tick while the store is open.
     * @return the started thread.
     */
    static SyncerThread start(final LogRegistry logs)
    {
        final SyncerThread syncer = new SyncerThread(logs);
        syncer.thread.start();
        return syncer;
    }

    private void run()
    {
        while (logs.isOpen())
        {
            final long now = System.nanoTime();
            final SyncerRound round = new SyncerRound(now);
            for (final DefaultLog log : logs.openLogs().values())
            {
                log.onSyncerTick(now, round); // a log on a flush domain joins the round when due; others tick now
            }
            round.run();
            try
            {
                Thread.sleep(PERIOD_MILLIS); // a period, not a wait for another thread: the syncer is a timer
            }
            catch (final InterruptedException e)
            {
                return;
            }
        }
    }

    /** Ends the loop (it also ends once the store is marked closed, after its current tick). */
    void stop()
    {
        thread.interrupt();
    }
}
