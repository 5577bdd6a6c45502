package io.directlog.benchmarks.log;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.OffsetOutOfRangeException;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * A consumer following the tail from the cache: one {@code @Group} thread appends 100 B MEMORY records as fast
 * as the engine takes them (pipelined, as {@link EngineAppendPipelinedBenchmark}), one reads behind it with {@code log.read(next, 64 KiB)} and, when caught up,
 * {@code log.awaitAppend(next, 1 ms)}. The read side's {@link ReadCounters} give records read per second
 * ({@code records}) and reads that found nothing new ({@code emptyPolls}).
 * <p>
 * Not thread-safe as a class; JMH gives the writer and the reader their own thread state.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class EngineTailReadBenchmark extends AbstractBenchmarkBase
{
    /** Payload bytes per record. */
    public static final int RECORD_SIZE = 100;
    /** Bytes per read. */
    public static final int READ_BYTES = 64 * KIB;
    private static final Duration POLL_WAIT = Duration.ofMillis(1);

    Log log;
    private EngineFixture fixture;

    /** Opens a fresh MEMORY log. */
    @Setup(Level.Trial)
    public void open()
    {
        fixture = new EngineFixture("engine-tail", 512L * MIB, EngineAppendBenchmark.logConfig(Durability.MEMORY));
        log = fixture.log();
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
        long next;
    }

    /** What the reader did, per second. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class ReadCounters
    {
        /** Records read. */
        public long records;
        /** Reads that found nothing new and waited. */
        public long emptyPolls;
        /** Times retention removed records before the reader got to them. */
        public long skipped;

        /** Zeroes the counters. */
        @Setup(Level.Iteration)
        public void reset()
        {
            records = 0;
            emptyPolls = 0;
            skipped = 0;
        }
    }

    /** @param w the writer's state. @return appends it made. */
    @Benchmark
    @Group("tail")
    @GroupThreads(1)
    public long writer(final EngineAppendPipelinedBenchmark.Producer w)
    {
        return w.append(log, Durability.MEMORY);
    }

    /**
     * @param r  the reader's position.
     * @param c  the reader's counters.
     * @param bh sink for the payload bytes.
     * @throws InterruptedException when interrupted while waiting for an append.
     */
    @Benchmark
    @Group("tail")
    @GroupThreads(1)
    public void reader(final Reader r, final ReadCounters c, final Blackhole bh) throws InterruptedException
    {
        final RecordBatch batch;
        try
        {
            batch = log.read(r.next, READ_BYTES);
        }
        catch (final OffsetOutOfRangeException ex)
        {
            c.skipped++;
            r.next = log.startOffset();
            return;
        }
        try (batch)
        {
            if (batch.isEmpty())
            {
                c.emptyPolls++;
                log.awaitAppend(r.next, POLL_WAIT);
                return;
            }
            for (final Record record : batch)
            {
                bh.consume(record.payload().getByte(0));
                c.records += record.recordCount();
            }
            r.next = batch.nextOffset();
        }
    }
}
