package io.directlog.storage.log;

/**
 * Keeps a log's acknowledgements apart from the syncer's background fdatasync, so that nothing is acknowledged
 * after a failed sync: an O_DIRECT write into a failed filesystem still returns success, and only the sync tells.
 * Without the gate the writer could acknowledge appends in the microseconds between the sync's error and the
 * sticky failure becoming visible.
 * <p>
 * Dekker's handshake on two volatile flags (Java's volatile accesses are sequentially consistent): the writer
 * raises {@code acking} and then looks at {@code syncing}; the syncer raises {@code syncing} and then waits for
 * {@code acking} to fall. At most one of them goes on. A writer that finds a sync in flight leaves its
 * acknowledgements pending (its writes are done) and returns to its other logs; the syncer wakes it when the
 * sync has ended, and by then a failure is visible. The cost: acknowledgements that fall inside a sync wait for
 * it, once per {@code syncInterval}.
 * <p>
 * Design note: a lock would make the writer block for the length of an fdatasync while it serves other logs; the
 * flags let it skip the acknowledgements and come back.
 * <p>
 * Thread-safety: {@link #tryEnterAcks()} and {@link #exitAcks()} are called by the log's writer thread only,
 * {@link #enterSync()} and {@link #exitSync()} by one syncer thread at a time.
 */
final class AckSyncGate
{
    private volatile boolean acking;
    private volatile boolean syncing;

    /** @return true when the writer may acknowledge now (then call {@link #exitAcks()}); false during a sync. */
    boolean tryEnterAcks()
    {
        acking = true;
        if (syncing)
        {
            acking = false;
            return false;
        }
        return true;
    }

    /** Ends the writer's acknowledgements. */
    void exitAcks()
    {
        acking = false;
    }

    /** @return true while the syncer is inside its sync (a hint for the writer: deferred acknowledgements wait). */
    boolean isSyncing()
    {
        return syncing;
    }

    /** Starts a sync: waits until acknowledgements in progress (callbacks included) have ended. */
    void enterSync()
    {
        syncing = true;
        for (int spins = 0; acking; spins++)
        {
            if (spins < 100)
            {
                Thread.onSpinWait();
            }
            else
            {
                Thread.yield(); // a callback can take a while; the writer needs the core on a small machine
            }
        }
    }

    /** Ends the sync; a failure it found must be published before this. */
    void exitSync()
    {
        syncing = false;
    }
}
