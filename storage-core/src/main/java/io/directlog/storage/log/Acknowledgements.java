package io.directlog.storage.log;

import io.directlog.storage.AppendCallback;
import io.directlog.storage.Durability;
import io.directlog.storage.LogClosedException;
import io.directlog.storage.writer.CallbackGuard;

/**
 * The appends one log's writer copied but has not acknowledged yet, and when it may: in order, once a completed
 * write covers them, never while the syncer's fdatasync is in flight (it may find the filesystem failed, see
 * {@link AckSyncGate}), and all failed at once when the log fails.
 * <p>
 * Threads: the writer thread, except the gate it shares with the syncer and the counters stats() reads racily.
 */
final class Acknowledgements
{
    private final LogLifecycle lifecycle;
    private final Visibility visibility;
    private final AckSyncGate ackGate;
    private final PendingAcks acks;
    private final CallbackGuard callbacks;
    /** Acknowledgements held back by a sync in flight. */
    private boolean acksDeferred;
    private boolean failedAcksDrained;

    Acknowledgements(final LogLifecycle lifecycle, final Visibility visibility, final AckSyncGate ackGate,
        final CallbackGuard callbacks)
    {
        this.lifecycle = lifecycle;
        this.visibility = visibility;
        this.ackGate = ackGate;
        this.acks = new PendingAcks(callbacks);
        this.callbacks = callbacks;
    }

    /**
     * @param log the log's name, for the message.
     * @return true when the log failed or is closed: the append is completed with why (and must not be copied).
     */
    boolean refusedAsStopped(final AppendCallback callback, final String log)
    {
        final Throwable failed = lifecycle.failure();
        if (failed != null)
        {
            drainOnFailure(failed);
            callbacks.complete(callback, -1, failed);
            return true;
        }
        if (lifecycle.isClosed())
        {
            callbacks.complete(callback, -1, new LogClosedException("log '" + log + "' is closed"));
            return true;
        }
        return false;
    }

    /** Queues the append of {@code length} bytes at {@code offset}. */
    void add(final AppendCallback callback, final long offset, final Durability durability, final int length)
    {
        acks.add(callback, offset, durability, length);
    }

    /** @return pending appends that wait for a write (DIRECT or DSYNC). */
    int durable()
    {
        return acks.durable();
    }

    /** @return pending DSYNC appends. */
    int dsync()
    {
        return acks.dsync();
    }

    boolean isEmpty()
    {
        return acks.isEmpty();
    }

    /** @return true when held-back acknowledgements may go now (the sync that held them ended). */
    boolean deferredAndFree()
    {
        return acksDeferred && !ackGate.isSyncing();
    }

    /**
     * Completes the pending appends that may be acknowledged (MEMORY ones, and DIRECT or DSYNC ones a completed
     * write covered), in order, unless the syncer's fdatasync is in flight: then they wait for it (their writes
     * are done), and a failure it finds fails them instead (see {@link AckSyncGate}).
     *
     * @param writtenEndOffset the offset after the last record a completed write covered.
     */
    void acknowledge(final long writtenEndOffset)
    {
        if (!ackGate.tryEnterAcks())
        {
            acksDeferred = true;
            return;
        }
        try
        {
            final Throwable failed = lifecycle.failure();
            if (failed != null)
            {
                drainOnFailure(failed);
            }
            else
            {
                // held-back acknowledgements come back after more records were copied: only what was written goes
                acks.completeUpTo(writtenEndOffset);
            }
            acksDeferred = false;
        }
        finally
        {
            ackGate.exitAcks();
        }
    }

    /** Acknowledges what is pending now, waiting out a sync in flight (close and truncation must not defer). */
    void acknowledgeNow(final long writtenEndOffset)
    {
        acknowledge(writtenEndOffset);
        while (acksDeferred)
        {
            Thread.yield();
            acknowledge(writtenEndOffset);
        }
    }

    /**
     * Fails every pending append with the log's failure (once, and again when more came since).
     *
     * @return 1 when it did work, else 0.
     */
    int drainOnFailure(final Throwable failed)
    {
        if (!failedAcksDrained || !acks.isEmpty())
        {
            failedAcksDrained = true;
            acks.failAll(failed);
            visibility.signalWaiters();
            lifecycle.logFailure(failed); // after the pending appends were failed: logging a stack trace takes time
            return 1;
        }
        return 0;
    }

    /** @return true when {@code callback} is pending (a failure's path: see {@link PendingAcks#holds}). */
    boolean holds(final AppendCallback callback)
    {
        return acks.holds(callback);
    }

    /** Fails whatever is still pending (close). */
    void failAll(final Throwable cause)
    {
        acks.failAll(cause);
    }

    long completed()
    {
        return acks.completed();
    }

    long completedBytes()
    {
        return acks.completedBytes();
    }
}
