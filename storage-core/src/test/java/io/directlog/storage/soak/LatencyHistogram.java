package io.directlog.storage.soak;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A small concurrent latency histogram: log-linear buckets (8 per power of two, so about 9 % resolution) over
 * nanoseconds. Enough for p50/p99 trends in the soak without adding HdrHistogram to storage-core's test classpath.
 * <p>
 * Thread-safe for {@link #record(long)}; the percentile reads are approximate while recording goes on.
 */
final class LatencyHistogram
{
    private static final int SUB_BITS = 3;
    private static final int BUCKETS = 64 << SUB_BITS;
    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);

    void record(final long nanos)
    {
        counts.incrementAndGet(index(Math.max(1, nanos)));
    }

    private static int index(final long value)
    {
        final int log2 = 63 - Long.numberOfLeadingZeros(value);
        if (log2 < SUB_BITS)
        {
            return (int)value;
        }
        final int sub = (int)(value >>> (log2 - SUB_BITS)) & ((1 << SUB_BITS) - 1);
        return (log2 - SUB_BITS + 1 << SUB_BITS) + sub;
    }

    private static long upperBound(final int index)
    {
        if (index < 1 << SUB_BITS)
        {
            return index;
        }
        final int log2 = (index >> SUB_BITS) + SUB_BITS - 1;
        final int sub = index & ((1 << SUB_BITS) - 1);
        return ((long)((1 << SUB_BITS) + sub + 1) << (log2 - SUB_BITS)) - 1;
    }

    long count()
    {
        long n = 0;
        for (int i = 0; i < BUCKETS; i++)
        {
            n += counts.get(i);
        }
        return n;
    }

    /**
     * @param percentile 0 to 100.
     * @return the bucket's upper bound in nanoseconds under which that share of values lies; 0 when empty.
     */
    long percentile(final double percentile)
    {
        final long total = count();
        if (total == 0)
        {
            return 0;
        }
        final long rank = (long)Math.ceil(total * percentile / 100.0);
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++)
        {
            seen += counts.get(i);
            if (seen >= rank)
            {
                return upperBound(i);
            }
        }
        return upperBound(BUCKETS - 1);
    }
}
