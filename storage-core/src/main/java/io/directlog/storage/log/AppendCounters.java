package io.directlog.storage.log;

/**
 * What one log's writer counts for {@link io.directlog.storage.LogStats}: written by the writer thread only, read
 * racily by stats() (plain fields: a reader may see a slightly old count, never a torn one on 64-bit JVMs).
 */
final class AppendCounters
{
    private long flushes;
    private long flushedRecords;
    private long flushNanos;
    private long rolls;
    private long stalls;

    /** A write of {@code records} records. Writer. */
    void onFlush(final int records)
    {
        flushes++;
        flushedRecords += records;
    }

    /** Time spent in a write (and its fdatasync, when it needed one). Writer. */
    void addFlushNanos(final long nanos)
    {
        flushNanos += nanos;
    }

    /** A roll to a new segment. Writer. */
    void onRoll()
    {
        rolls++;
    }

    /** A roll that found no prepared segment and waited. Writer. */
    void onStall()
    {
        stalls++;
    }

    long flushes()
    {
        return flushes;
    }

    long flushedRecords()
    {
        return flushedRecords;
    }

    long flushNanos()
    {
        return flushNanos;
    }

    long rolls()
    {
        return rolls;
    }

    long stalls()
    {
        return stalls;
    }
}
