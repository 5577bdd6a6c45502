package io.directlog.broker.topic;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One-shot wake-ups for a partition's next acknowledged append (parked Fetch requests): each listener runs once,
 * on the thread that acknowledged the append, and must only hand work to another thread.
 * <p>
 * Thread-safe.
 */
final class AppendListeners
{
    private final ConcurrentLinkedQueue<Runnable> waiting = new ConcurrentLinkedQueue<>();

    void add(final Runnable listener)
    {
        waiting.add(listener);
    }

    void remove(final Runnable listener)
    {
        waiting.remove(listener);
    }

    /** Runs and forgets every listener registered so far. */
    void wakeAll()
    {
        Runnable r;
        while ((r = waiting.poll()) != null)
        {
            r.run();
        }
    }
}
