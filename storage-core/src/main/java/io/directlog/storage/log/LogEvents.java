package io.directlog.storage.log;

/**
 * What a log tells its store's meters as it happens: the latencies whose distribution matters (a sum cannot give a
 * percentile) and the rare events an operator alerts on. A log's running totals stay in its own counters
 * ({@link DefaultLog#stats()}); these calls are for what cannot be read from them later.
 * <p>
 * Called on the log's writer thread (flushes, refusals), the syncer thread (syncs) or an appending thread
 * (timeouts, fail-stops): implementations are thread-safe, do not block, and never throw.
 */
public interface LogEvents
{
    /** No meters: every call does nothing. */
    LogEvents NONE = new LogEvents()
    {
    };

    /**
     * A flush (the pwrite of a group commit, with the fdatasync that follows it where one does) succeeded.
     *
     * @param log   the log.
     * @param nanos how long it took.
     */
    default void flushed(final DefaultLog log, final long nanos)
    {
    }

    /**
     * A background fdatasync round of the syncer succeeded.
     *
     * @param log   the log.
     * @param nanos how long it took.
     */
    default void synced(final DefaultLog log, final long nanos)
    {
    }

    /** @param log the log that stopped taking writes after an I/O failure (once per failure). */
    default void failStopped(final DefaultLog log)
    {
    }

    /** @param log the log that refused an append because it had no prepared segment to roll to. */
    default void refusedFull(final DefaultLog log)
    {
    }

    /** @param log the log whose append or command timed out waiting for room in the writer queue. */
    default void appendTimedOut(final DefaultLog log)
    {
    }
}
