package io.directlog.storage.writer;

import java.util.Arrays;

/**
 * Which of the writer's logs get a turn ({@link WriterClient#onDutyCycle}) in a duty cycle: the busy ones, and
 * every log in a sweep once per {@link #SWEEP_INTERVAL_NANOS}. A log is busy from the message the writer handled for
 * it (an append, a command) until it says it needs no more turns ({@link WriterClient#needsDutyCycles}: nothing
 * it copied is left unwritten, no append of it waits). A writer serving a thousand mostly quiet logs runs
 * thousands of cycles a second; visiting every log in each took a large share of its time (issue 18), while what a
 * quiet log needs from its turn comes with time only (the idle release of its page, after seconds), which the sweep
 * gives it.
 * <p>
 * Allocates only when a slot beyond its arrays is listed.
 * <p>
 * Not thread-safe; owned by the writer thread.
 */
final class ClientTurns
{
    /**
     * How often every log gets a turn, busy or not: a bound on how late a quiet log sees what only time brings (its
     * page's idle release, seconds away), and what an idle writer wakes for at most anyway (see
     * {@link WriterIdleStrategy#MAX_PARK_NANOS}).
     */
    static final long SWEEP_INTERVAL_NANOS = WriterIdleStrategy.MAX_PARK_NANOS;

    private final LogWriterAgent writer;
    /** The busy logs' slots, each once, in the order they became busy; {@link #listed} says which are here. */
    private int[] busy = new int[64];
    private boolean[] listed = new boolean[64];
    private int count;
    private long lastSweepNanos;
    private boolean swept;

    ClientTurns(final LogWriterAgent writer)
    {
        this.writer = writer;
    }

    /** The writer handled a message (an append, a command) for the log of {@code slot}: it is busy. */
    void onMessage(final int slot)
    {
        if (slot >= listed.length)
        {
            listed = Arrays.copyOf(listed, Math.max(slot + 1, listed.length * 2));
        }
        if (listed[slot])
        {
            return;
        }
        if (count == busy.length)
        {
            busy = Arrays.copyOf(busy, count * 2);
        }
        listed[slot] = true;
        busy[count++] = slot;
    }

    /**
     * Gives the busy logs their turn, or every log when a sweep is due, and keeps busy those that still need turns.
     *
     * @param clients the writer's logs by slot (null where one was deregistered).
     * @param nowNanos the time.
     * @return the work done.
     */
    int give(final WriterClient[] clients, final long nowNanos)
    {
        return !swept || nowNanos - lastSweepNanos >= SWEEP_INTERVAL_NANOS ? sweep(clients, nowNanos) :
            busyTurns(clients, nowNanos);
    }

    private int sweep(final WriterClient[] clients, final long nowNanos)
    {
        swept = true;
        lastSweepNanos = nowNanos;
        unlistFrom(0);
        int work = 0;
        for (int slot = 0; slot < clients.length; slot++)
        {
            final WriterClient client = clients[slot];
            if (client != null)
            {
                work += writer.dutyCycleOf(client, nowNanos);
                if (stillBusy(client))
                {
                    onMessage(slot);
                }
            }
        }
        return work;
    }

    private int busyTurns(final WriterClient[] clients, final long nowNanos)
    {
        int work = 0;
        int kept = 0;
        final int n = count; // nothing is listed during the walk: messages are read before it
        for (int i = 0; i < n; i++)
        {
            final int slot = busy[i];
            final WriterClient client = clients[slot];
            if (client != null)
            {
                work += writer.dutyCycleOf(client, nowNanos);
                if (stillBusy(client))
                {
                    busy[i] = busy[kept]; // every slot before i stays listed or moved to the back: a swap keeps both
                    busy[kept++] = slot;
                }
            }
        }
        unlistFrom(kept);
        return work;
    }

    /** Unlists the slots from position {@code from} on. */
    private void unlistFrom(final int from)
    {
        for (int i = from; i < count; i++)
        {
            listed[busy[i]] = false;
        }
        count = from;
    }

    /** What a log's own code throws here keeps it busy: its next turn fails it, as any throw of its turn does. */
    private static boolean stillBusy(final WriterClient client)
    {
        try
        {
            return client.needsDutyCycles();
        }
        catch (final RuntimeException | Error e)
        {
            return true;
        }
    }

    /**
     * @param clients the writer's logs by slot.
     * @param nowNanos the time.
     * @return nanoseconds until the earliest background flush of a busy log is due, or until the next sweep (only
     * a busy log has copied what is not written yet, and so a flush deadline).
     */
    long nanosToNextDeadline(final WriterClient[] clients, final long nowNanos)
    {
        long nanos = lastSweepNanos + SWEEP_INTERVAL_NANOS - nowNanos;
        for (int i = 0; i < count; i++)
        {
            final WriterClient client = clients[busy[i]];
            if (client != null)
            {
                nanos = Math.min(nanos, client.nextDeadlineNanos(nowNanos) - nowNanos);
            }
        }
        return nanos;
    }

    /** @return logs busy now (tests). */
    int busyCount()
    {
        return count;
    }
}
