package io.directlog.benchmarks.log;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.storage.AppendWaiter;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import java.time.Duration;
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
 * the next (a closed loop: throughput is producers / latency), waiting with the engine's {@link AppendWaiter}.
 * Throughput gives ops/s (MB/s = ops/s x
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

    /** The store's memory budget; {@code ./directlog bench}'s engine-* rows use the same (issue 23). */
    public static final long MEMORY_BUDGET = 512L * MIB;

    Log log;
    private EngineFixture fixture;

    /** Opens a fresh store and log. */
    @Setup(Level.Trial)
    public void open()
    {
        fixture = new EngineFixture("engine-append", MEMORY_BUDGET, logConfig(durability));
        log = fixture.log();
    }

    /** Closes and deletes the store. */
    @TearDown(Level.Trial)
    public void close()
    {
        fixture.close();
    }

    /**
     * 64 MiB segments and 256 MiB of retention: a log in steady state, whose segment files come back from retention
     * a second or less after the trial starts (at 1-2 GB/s), as they do in a broker that has run for a while; with
     * more retention the first gigabytes go to new files that the preparer must zero-fill, which no long-running
     * log pays. For the same reason the first segment is full size: a new log starts at 128 KiB and grows its
     * segments by four up to 64 MiB (the ladder, {@code LogConfig.initialSegmentSize}), and while it climbs the
     * preparer zero-fills each next rung beside the appends; at DSYNC rates a few-second trial never leaves that
     * transient (about 43 MiB of zeros and as many device flushes), which measured a DSYNC producer 25% slower than
     * a log in steady state. {@code -Ddirectlog.bench.ladder=true} measures a new log as it comes.
     * {@code ./directlog bench}'s engine-* rows use the same settings (issue 23).
     *
     * @param durability the log's default durability.
     * @return the log's settings.
     */
    public static LogConfig logConfig(final Durability durability)
    {
        final LogConfig.Builder b = LogConfig.builder().segmentSize(64 * MIB).durability(durability)
            .retentionBytes(256 * MIB);
        return (Boolean.getBoolean(LADDER_PROP_NAME) ? b : b.initialSegmentSize(64 * MIB)).build();
    }

    /** System property: {@code true} starts the log at the default first segment size, as a new log does. */
    public static final String LADDER_PROP_NAME = "directlog.bench.ladder";

    /**
     * System property: how producers wait for their acknowledgement. {@code adaptive} (the default) is the engine's
     * {@link AppendWaiter} as it comes: it polls, yielding, for a budget adapted to its recent waits, then parks.
     * {@code park} parks at once ({@code new AppendWaiter(Duration.ZERO, Duration.ZERO)}), so that the writer
     * wakes every producer with a futex: the cost of a client that never polls.
     */
    public static final String WAITER_PROP_NAME = "directlog.bench.waiter";

    /** One producer: its seeded record in native memory and its reusable waiter. */
    @State(Scope.Thread)
    public static class Producer
    {
        UnsafeBuffer record;
        int length;
        AppendWaiter waiter;

        /** @param bench the benchmark, for the record size. */
        @Setup(Level.Trial)
        public void init(final EngineAppendBenchmark bench)
        {
            length = size(bench.recordSize);
            record = EngineFixture.directRecord(length);
            waiter = newWaiter();
        }

        long append(final Log log, final Durability durability)
        {
            return waiter.append(log, record, 0, length, durability);
        }
    }

    static AppendWaiter newWaiter()
    {
        final String kind = System.getProperty(WAITER_PROP_NAME, "adaptive");
        return switch (kind)
        {
            case "adaptive" -> new AppendWaiter();
            case "park" -> new AppendWaiter(Duration.ZERO, Duration.ZERO);
            default -> throw new IllegalArgumentException(WAITER_PROP_NAME + "=" + kind +
                ": expected adaptive or park");
        };
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
