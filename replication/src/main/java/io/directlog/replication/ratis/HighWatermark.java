package io.directlog.replication.ratis;

import java.time.Duration;

/**
 * The offset below which a replica's records are committed: advanced by the state machine's apply thread, read by
 * consumers, waited on by long polls. It never moves back: Raft never truncates a committed entry.
 * <p>
 * Thread-safe: one writer (the apply thread), any number of readers and waiters, under this object's monitor.
 */
final class HighWatermark
{
    private volatile long value;

    HighWatermark(final long initial)
    {
        value = initial;
    }

    long value()
    {
        return value;
    }

    synchronized void advanceTo(final long offset)
    {
        if (offset > value)
        {
            value = offset;
            notifyAll();
        }
    }

    /** @return true once offset is below the high watermark; false after timeout. */
    synchronized boolean awaitAbove(final long offset, final Duration timeout) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (value <= offset)
        {
            final long leftNanos = deadline - System.nanoTime();
            if (leftNanos <= 0)
            {
                return false;
            }
            final long millis = Math.max(1, leftNanos / 1_000_000);
            wait(millis);
        }
        return true;
    }
}
