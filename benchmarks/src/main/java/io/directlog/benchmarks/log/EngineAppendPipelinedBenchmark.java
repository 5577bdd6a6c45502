package io.directlog.benchmarks.log;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.storage.AppendCallback;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
 * The callback path as a producer of a message queue uses it: append, and go on to the next record without
 * waiting for this one's callback, with at most {@link #WINDOW} appends unacknowledged (then it waits for the
 * callbacks to catch up). This measures how many appends per second the engine takes from one producer, which is
 * what Chronicle Queue's {@code writeBytes} (synchronous, no callback) is compared with; the closed-loop
 * {@link EngineAppendBenchmark} measures the latency of one append instead.
 * <p>
 * The op is one {@code append} call. At the end of each iteration the producer waits until every append it made
 * was acknowledged, so no iteration counts work it left to the next; the window bounds how many appends of an
 * iteration's count may still be in flight when its clock stops (at most {@value #WINDOW}, against millions).
 * <p>
 * Not thread-safe as a class; JMH gives each producer its own {@link Producer}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class EngineAppendPipelinedBenchmark extends AbstractBenchmarkBase
{
    /** Appends a producer may have unacknowledged. */
    public static final int WINDOW = 8192;

    @Param({ "MEMORY", "DIRECT", "DSYNC" })
    public Durability durability;

    @Param({ "00032", "00100", "01024" })
    public String recordSize;

    Log log;
    private EngineFixture fixture;

    /** Opens a fresh store and log. */
    @Setup(Level.Trial)
    public void open()
    {
        fixture = new EngineFixture("engine-append-pipelined", 512L * MIB,
            EngineAppendBenchmark.logConfig(durability));
        log = fixture.log();
    }

    /** Closes and deletes the store. */
    @TearDown(Level.Trial)
    public void close()
    {
        fixture.close();
    }

    /** One producer: its record, and a callback counting what was acknowledged. */
    @State(Scope.Thread)
    public static class Producer implements AppendCallback
    {
        UnsafeBuffer record;
        int length;
        long sent;
        /** What this producer last read of {@link #acknowledged}: it reads the shared counter only at the window. */
        private long acknowledgedSeen;
        private final AtomicLong acknowledged = new AtomicLong();
        private volatile Throwable error;

        /** Prepares the record: {@code recordSize} of the pipelined suite, 100 B when another suite uses it. */
        @Setup(Level.Trial)
        public void init(final org.openjdk.jmh.infra.BenchmarkParams params)
        {
            final String param = params.getParam("recordSize");
            length = param == null ? EngineTailReadBenchmark.RECORD_SIZE : size(param);
            record = EngineFixture.directRecord(length);
        }

        @Override
        public void onComplete(final long offset, final Throwable failure)
        {
            if (failure != null)
            {
                error = failure;
            }
            // one writer thread calls back, in order: a plain increment published with a release store
            acknowledged.lazySet(acknowledged.get() + 1);
        }

        long append(final Log log, final Durability durability)
        {
            // the writer moves the counter's cache line on every callback: reading it per append would pull that
            // line across cores each time, a cost of this harness and not of the engine
            if (sent - acknowledgedSeen >= WINDOW)
            {
                acknowledgedSeen = acknowledged.get();
                if (sent - acknowledgedSeen >= WINDOW)
                {
                    awaitAcknowledged(sent - WINDOW / 2);
                }
            }
            log.append(record, 0, length, durability, this);
            return ++sent;
        }

        /** Waits until every append of the iteration was acknowledged. */
        @TearDown(Level.Iteration)
        public void drain()
        {
            awaitAcknowledged(sent);
        }

        private void awaitAcknowledged(final long count)
        {
            final long deadline = System.nanoTime() + EngineFixture.ACK_TIMEOUT_NANOS;
            while (acknowledged.get() < count)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    throw new IllegalStateException("appends not acknowledged within 30 s: " + acknowledged.get() +
                        " of " + count);
                }
                Thread.yield(); // a spinning producer would take the core the writer needs on a small machine
            }
            acknowledgedSeen = acknowledged.get();
            final Throwable failed = error;
            if (failed != null)
            {
                throw new IllegalStateException("append failed: " + failed, failed);
            }
        }
    }

    /** @param p the producer. @return appends it made. */
    @Benchmark
    @Threads(1)
    public long producers01(final Producer p)
    {
        return p.append(log, durability);
    }

    /** @param p the producer. @return appends it made. */
    @Benchmark
    @Threads(4)
    public long producers04(final Producer p)
    {
        return p.append(log, durability);
    }

    /**
     * Sixteen producers, each with its window in flight: the bandwidth row (16 KiB records, DIRECT) compares this
     * with the raw device's 1 MiB sequential write.
     *
     * @param p the producer. @return appends it made.
     */
    @Benchmark
    @Threads(16)
    public long producers16(final Producer p)
    {
        return p.append(log, durability);
    }
}
