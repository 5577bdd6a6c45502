package io.directlog.kafka.baseline.load;

import org.HdrHistogram.Histogram;

/**
 * What one produce phase measured. Latencies are in microseconds; an open-loop phase measures each record from the
 * time it was due to be sent, so a stalled broker shows up as latency rather than as fewer sends.
 *
 * @param records   records acknowledged.
 * @param bytes     their value bytes.
 * @param seconds   from the first send to the last acknowledgement.
 * @param publish   send (or due time) to acknowledgement, in microseconds.
 * @param e2e       send (or due time) to the consumer's poll, in microseconds; empty when no consumer ran.
 * @param readBytes value bytes a backlog reader read meanwhile, 0 when none ran.
 * @param readSeconds how long that reader ran.
 * @param failures  sends that failed.
 */
public record PhaseResult(long records, long bytes, double seconds, Histogram publish, Histogram e2e, long readBytes,
                          double readSeconds, long failures)
{
    /** @return records per second. */
    public double msgsPerSec()
    {
        return seconds > 0 ? records / seconds : Double.NaN;
    }

    /** @return value megabytes (10^6) per second. */
    public double mbPerSec()
    {
        return seconds > 0 ? bytes / seconds / 1e6 : Double.NaN;
    }

    /** @return the backlog reader's megabytes per second, NaN when none ran. */
    public double readMbPerSec()
    {
        return readSeconds > 0 ? readBytes / readSeconds / 1e6 : Double.NaN;
    }
}
