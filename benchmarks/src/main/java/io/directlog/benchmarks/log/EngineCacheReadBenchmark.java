package io.directlog.benchmarks.log;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.benchmarks.BenchDirs;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.Blackhole;

/**
 * How fast one consumer reads records that are in the cache: the tail a consumer catches up on after a pause,
 * or the records right behind the writer. A log of 100 B records (256 MiB of payload, resident in a 1 GiB budget)
 * is written at setup; each op is one {@code log.read(next, 64 KiB)}, whose records are iterated (offset, count,
 * one payload byte each); at the end the reader starts again from the first offset. {@code records} (an aux
 * counter) is records read per second.
 * <p>
 * Why not only {@link EngineTailReadBenchmark}: a reader right behind a live writer can read no faster than the
 * writer appends, so that suite measures the writer; this one measures the read path.
 * <p>
 * Not thread-safe as a class; one reader.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class EngineCacheReadBenchmark extends AbstractBenchmarkBase
{
    /** Payload bytes per record. */
    public static final int RECORD_SIZE = 100;
    /** Bytes per read. */
    public static final int READ_BYTES = 64 * KIB;

    Log log;
    long start;
    long end;
    private EngineFixture fixture;

    /** Writes the log; it stays resident. */
    @Setup(Level.Trial)
    public void open()
    {
        // no retention: all 256 MiB stay readable (the append suites' 256 MiB of retention would drop the first
        // segments while this reads them)
        fixture = new EngineFixture("engine-cache-read", GIB, EngineAppendBenchmark.logConfig(Durability.MEMORY)
            .toBuilder().retentionBytes(io.directlog.storage.LogConfig.RETENTION_BYTES_NONE).build());
        log = fixture.log();
        end = fixture.fill(BenchDirs.choose(256L * MIB, 8L * MIB), RECORD_SIZE);
        start = log.startOffset();
    }

    /** Closes and deletes the store. */
    @TearDown(Level.Trial)
    public void close()
    {
        fixture.close();
    }

    /** The reader's position. */
    @State(Scope.Thread)
    public static class Reader
    {
        long next = -1;
    }

    /** Records read per second. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class ReadCounters
    {
        /** Records read. */
        public long records;

        /** Zeroes the counter. */
        @Setup(Level.Iteration)
        public void reset()
        {
            records = 0;
        }
    }

    /**
     * @param r  the reader's position.
     * @param c  its counter.
     * @param bh sink for what was read.
     */
    @Benchmark
    @Threads(1)
    public void read(final Reader r, final ReadCounters c, final Blackhole bh)
    {
        if (r.next < start || r.next >= end)
        {
            r.next = start;
        }
        try (RecordBatch batch = log.read(r.next, READ_BYTES))
        {
            long n = 0;
            for (final Record record : batch)
            {
                bh.consume(record.offset());
                bh.consume(record.payload().getByte(0));
                n += record.recordCount();
            }
            c.records += n;
            r.next = batch.nextOffset();
        }
    }
}
