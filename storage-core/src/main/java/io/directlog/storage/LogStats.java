package io.directlog.storage;

/**
 * A snapshot of one log's counters, read without stopping the writer.
 *
 * @param appends          appends acknowledged.
 * @param appendedBytes    payload bytes acknowledged.
 * @param flushes          pwrite calls on the log's segments (group commits).
 * @param flushedRecords   appends covered by those writes (records per flush = flushedRecords / flushes).
 * @param flushNanos       time spent in those writes, in nanoseconds (mean flush latency = flushNanos / flushes).
 * @param segmentRolls     segments rolled.
 * @param preparerStalls   times the writer had to wait for a prepared segment.
 * @param syncs            background fdatasync health probes.
 * @param cacheHits        reads served from a resident page.
 * @param cacheMisses      reads that went to disk.
 * @param preparedAhead    prepared segments ready ahead of the write head now.
 * @param callbackErrors   times an {@link AppendCallback} of this log threw (caught, logged, and the writer went on).
 */
public record LogStats(long appends, long appendedBytes, long flushes, long flushedRecords, long flushNanos,
    long segmentRolls, long preparerStalls, long syncs, long cacheHits, long cacheMisses, int preparedAhead,
    long callbackErrors)
{
    /** @return mean time of a write in microseconds, 0 before the first write. */
    public double meanFlushMicros()
    {
        return flushes == 0 ? 0 : flushNanos / 1e3 / flushes;
    }

    /** @return mean appends per write, 0 before the first write. */
    public double recordsPerFlush()
    {
        return flushes == 0 ? 0 : (double)flushedRecords / flushes;
    }
}
