package io.directlog.benchmarks.log;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
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
 * The engine's append on the allocation-free path: each producer appends one record with
 * {@code log.append(DirectBuffer, int, int, Durability, AppendCallback)} and waits for its own callback before
 * the next (a closed loop: throughput is producers / latency). Throughput gives ops/s (MB/s = ops/s x
 * recordSize); SampleTime gives the latency percentiles. Run with {@code -prof gc}: {@code gc.alloc.rate.norm}
 * should be about 0 B/op.
 * <p>
 * One log, its default durability the one measured (so visibility follows it), 64 MiB segments, size retention
 * of 1 GiB so long runs stay bounded on disk.
 * <p>
 * Not thread-safe as a class; JMH gives each producer its own {@link Producer}.
 */
@BenchmarkMode({ Mode.Throughput, Mode.SampleTime })
@OutputTimeUnit(TimeUnit.SECONDS)
public class EngineAppendBenchmark extends AbstractBenchmarkBase
{
    @Param({ "MEMORY", "DIRECT", "DSYNC" })
    public Durability durability;

    @Param({ "00032", "00100", "01024", "16384" })
    public String recordSize;

    Log log;
    private EngineFixture fixture;

    /** Opens a fresh store and log. */
    @Setup(Level.Trial)
    public void open()
    {
        fixture = new EngineFixture("engine-append", 512L * MIB, logConfig(durability));
        log = fixture.log();
    }

    /** Closes and deletes the store. */
    @TearDown(Level.Trial)
    public void close()
    {
        fixture.close();
    }

    static LogConfig logConfig(final Durability durability)
    {
        return LogConfig.builder().segmentSize(64 * MIB).durability(durability).retentionBytes(GIB).build();
    }

    /** One producer: its seeded record in native memory and its reusable completion. */
    @State(Scope.Thread)
    public static class Producer
    {
        UnsafeBuffer record;
        int length;
        Completion completion;

        /**
         * @param bench  the benchmark, for the record size.
         * @param params the run's settings, for the producer count (which decides how the producer waits).
         */
        @Setup(Level.Trial)
        public void init(final EngineAppendBenchmark bench, final org.openjdk.jmh.infra.BenchmarkParams params)
        {
            length = size(bench.recordSize);
            record = EngineFixture.directRecord(length);
            completion = new Completion(params.getThreads()); // owned by this producer's thread
        }

        long append(final Log log, final Durability durability)
        {
            completion.arm();
            log.append(record, 0, length, durability, completion);
            return completion.await();
        }
    }

    /** @param p the producer. @return the record's offset. */
    @Benchmark
    @Threads(1)
    public long producers01(final Producer p)
    {
        return p.append(log, durability);
    }

    /** @param p the producer. @return the record's offset. */
    @Benchmark
    @Threads(4)
    public long producers04(final Producer p)
    {
        return p.append(log, durability);
    }

    /** @param p the producer. @return the record's offset. */
    @Benchmark
    @Threads(16)
    public long producers16(final Producer p)
    {
        return p.append(log, durability);
    }

    /** @param p the producer. @return the record's offset. */
    @Benchmark
    @Threads(64)
    public long producers64(final Producer p)
    {
        return p.append(log, durability);
    }
}
