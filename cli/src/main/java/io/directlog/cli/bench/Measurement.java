package io.directlog.cli.bench;

import org.HdrHistogram.Histogram;

/**
 * What one row measured: operations and payload bytes completed in a window, and the latency of each operation.
 * <p>
 * Latencies are recorded in nanoseconds with 3 significant digits and reported in microseconds: recording whole
 * microseconds would flatten the sub-microsecond differences between MEMORY appends.
 * <p>
 * Not thread-safe; built by one thread once the measuring threads have stopped.
 */
final class Measurement
{
    /** Significant digits of every latency histogram. */
    static final int SIGNIFICANT_DIGITS = 3;

    private final long operations;
    private final long bytes;
    private final long elapsedNanos;
    private final Histogram latencyNanos;

    /**
     * @param operations   operations completed in the window.
     * @param bytes        payload bytes those operations moved.
     * @param elapsedNanos the window's length.
     * @param latencyNanos one value per operation, in nanoseconds.
     */
    Measurement(final long operations, final long bytes, final long elapsedNanos, final Histogram latencyNanos)
    {
        if (elapsedNanos <= 0)
        {
            throw new IllegalArgumentException("elapsedNanos must be positive: " + elapsedNanos);
        }
        this.operations = operations;
        this.bytes = bytes;
        this.elapsedNanos = elapsedNanos;
        this.latencyNanos = latencyNanos;
    }

    /** @return a histogram fit for one row's latencies, in nanoseconds. */
    static Histogram newLatencyHistogram()
    {
        return new Histogram(SIGNIFICANT_DIGITS);
    }

    long operations()
    {
        return operations;
    }

    long bytes()
    {
        return bytes;
    }

    double opsPerSec()
    {
        return operations * 1e9 / elapsedNanos;
    }

    /** @return payload megabytes (10^6 bytes) per second. */
    double mbPerSec()
    {
        return bytes * 1e3 / elapsedNanos;
    }

    /**
     * @param percentile such as 99.9.
     * @return the latency at that percentile in microseconds, or NaN when nothing was recorded.
     */
    double percentileMicros(final double percentile)
    {
        if (latencyNanos.getTotalCount() == 0)
        {
            return Double.NaN;
        }
        return latencyNanos.getValueAtPercentile(percentile) / 1000.0;
    }
}
