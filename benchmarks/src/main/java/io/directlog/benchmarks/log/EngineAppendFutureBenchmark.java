package io.directlog.benchmarks.log;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.benchmarks.Payloads;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
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
 * The same closed loop as {@link EngineAppendBenchmark} through the convenience API,
 * {@code log.append(byte[], Durability).join()}: what the {@code CompletableFuture} and its completion cost
 * (compare {@code gc.alloc.rate.norm} and the score with the callback path). One and sixteen producers.
 * <p>
 * Not thread-safe as a class; JMH gives each producer its own {@link Producer}.
 */
@BenchmarkMode({ Mode.Throughput, Mode.SampleTime })
@OutputTimeUnit(TimeUnit.SECONDS)
public class EngineAppendFutureBenchmark extends AbstractBenchmarkBase
{
    @Param({ "MEMORY", "DIRECT", "DSYNC" })
    public Durability durability;

    @Param({ "00100", "01024" })
    public String recordSize;

    Log log;
    private EngineFixture fixture;

    /** Opens a fresh store and log. */
    @Setup(Level.Trial)
    public void open()
    {
        fixture = new EngineFixture("engine-future", 512L * MIB, EngineAppendBenchmark.logConfig(durability));
        log = fixture.log();
    }

    /** Closes and deletes the store. */
    @TearDown(Level.Trial)
    public void close()
    {
        fixture.close();
    }

    /** One producer's seeded payload on the heap. */
    @State(Scope.Thread)
    public static class Producer
    {
        byte[] payload;

        /** @param bench the benchmark, for the record size. */
        @Setup(Level.Trial)
        public void init(final EngineAppendFutureBenchmark bench)
        {
            payload = Payloads.random(size(bench.recordSize));
        }
    }

    /** @param p the producer. @return the record's offset. */
    @Benchmark
    @Threads(1)
    public long producers01(final Producer p)
    {
        return log.append(p.payload, durability).join();
    }

    /** @param p the producer. @return the record's offset. */
    @Benchmark
    @Threads(16)
    public long producers16(final Producer p)
    {
        return log.append(p.payload, durability).join();
    }
}
