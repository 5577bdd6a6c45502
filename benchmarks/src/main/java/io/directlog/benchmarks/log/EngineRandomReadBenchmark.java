package io.directlog.benchmarks.log;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.benchmarks.BenchDirs;
import io.directlog.benchmarks.Payloads;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * Random point reads of 1 KiB records, {@code log.read(offset, 1)} at seeded random offsets, as latency
 * percentiles. {@code cached}: a 64 MiB log under a 512 MiB budget, every read a hit after warmup. {@code cold}:
 * a 1 GiB log reopened under a 64 MiB budget, about 94% of reads go to the device. Smoke mode shrinks both.
 * <p>
 * Not thread-safe as a class; each thread has its own {@link Cursor}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
public class EngineRandomReadBenchmark extends AbstractBenchmarkBase
{
    /** Payload bytes per record. */
    public static final int RECORD_SIZE = KIB;

    @Param({ "cached", "cold" })
    public String residency;

    Log log;
    long start;
    long end;
    private EngineFixture fixture;

    /** Writes the log and, for {@code cold}, reopens it under a small budget. */
    @Setup(Level.Trial)
    public void open()
    {
        final boolean cold = "cold".equals(residency);
        final LogConfig config = LogConfig.builder().segmentSize(BenchDirs.smoke() ? 8 * MIB : 64 * MIB)
            .durability(Durability.MEMORY).build();
        fixture = new EngineFixture("engine-random", 512L * MIB, config);
        final long bytes = cold ? BenchDirs.choose(GIB, 64L * MIB) : BenchDirs.choose(64L * MIB, 16L * MIB);
        fixture.fill(bytes, RECORD_SIZE);
        fixture.reopen(cold ? BenchDirs.choose(64L * MIB, 16L * MIB) : 512L * MIB);
        log = fixture.log();
        start = log.startOffset();
        end = log.visibleEndOffset();
    }

    /** Closes and deletes the store. */
    @TearDown(Level.Trial)
    public void close()
    {
        fixture.close();
    }

    /** A thread's seeded random source. */
    @State(Scope.Thread)
    public static class Cursor
    {
        final SplittableRandom random = new SplittableRandom(Payloads.SEED);
    }

    /** @param cursor the random source. @return the first payload byte read. */
    @Benchmark
    public long pointRead(final Cursor cursor)
    {
        final long offset = cursor.random.nextLong(start, end);
        try (RecordBatch batch = log.read(offset, 1))
        {
            long sum = 0;
            for (final Record record : batch)
            {
                sum += record.payload().getByte(0);
                break;
            }
            return sum;
        }
    }
}
