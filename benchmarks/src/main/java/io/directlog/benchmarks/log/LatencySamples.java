package io.directlog.benchmarks.log;

import java.util.Arrays;

/**
 * Latencies of one round of one side of a pair, in nanoseconds, kept whole so that percentiles are exact.
 * Capacity is fixed up front: a round that would record more stops recording (and says so through
 * {@link #full()}), so the measuring loop never allocates.
 * <p>
 * Not thread-safe: one measuring thread records, then reads.
 */
final class LatencySamples
{
    private final long[] nanos;
    private int count;

    /** @param capacity the most samples one round keeps. */
    LatencySamples(final int capacity)
    {
        nanos = new long[capacity];
    }

    /** Forgets the previous round. */
    void clear()
    {
        count = 0;
    }

    /** @param latencyNanos one operation's latency. */
    void record(final long latencyNanos)
    {
        if (count < nanos.length)
        {
            nanos[count++] = latencyNanos;
        }
    }

    /** @return true when the round filled the capacity and later samples were dropped. */
    boolean full()
    {
        return count == nanos.length;
    }

    /** @return samples recorded this round. */
    int count()
    {
        return count;
    }

    /** Sorts the round's samples; call before {@link #percentile}. */
    void sort()
    {
        Arrays.sort(nanos, 0, count);
    }

    /**
     * @param fraction in [0, 1], e.g. 0.5 for the median.
     * @return the nearest-rank percentile of the sorted samples, in nanoseconds.
     * @throws IllegalStateException when the round recorded nothing.
     */
    long percentile(final double fraction)
    {
        if (count == 0)
        {
            throw new IllegalStateException("no samples recorded in this round");
        }
        final int rank = (int)Math.ceil(fraction * count);
        return nanos[Math.max(0, Math.min(count - 1, rank - 1))];
    }
}
