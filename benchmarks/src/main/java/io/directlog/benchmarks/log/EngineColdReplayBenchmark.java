package io.directlog.benchmarks.log;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.benchmarks.BenchDirs;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
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
 * Cold sequential replay: at trial setup 2 GiB of 64 KiB records are written, the store is closed and reopened
 * with a 256 MiB memory budget, so almost nothing is resident; each operation then reads the next 1 MiB with
 * {@code log.read(next, 1 MiB)}, wrapping to the start at the end (by then the start has long been evicted).
 * {@link ReplayCounters#bytes} per second is the replay bandwidth (MB/s = bytes / 2^20). Smoke mode writes
 * 64 MiB and reopens with 16 MiB.
 * <p>
 * Not thread-safe; one thread.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
public class EngineColdReplayBenchmark extends AbstractBenchmarkBase
{
    /** Payload bytes per record. */
    public static final int RECORD_SIZE = 64 * KIB;
    /** Bytes per read. */
    public static final int READ_BYTES = MIB;
    /** The budget the log is written with. */
    public static final long WRITE_MEMORY_BUDGET = 512L * MIB;
    /** The budget it is reopened and read with: nothing resident, room for the default read-ahead. */
    public static final long READ_MEMORY_BUDGET = 256L * MIB;

    private EngineFixture fixture;
    private Log log;
    private long start;
    private long end;
    private long next;

    /** Writes the log and reopens the store with a small budget. */
    @Setup(Level.Trial)
    public void open()
    {
        final boolean smoke = BenchDirs.smoke();
        final LogConfig config = LogConfig.builder().segmentSize(smoke ? 16 * MIB : 64 * MIB)
            .durability(Durability.MEMORY).build();
        fixture = new EngineFixture("engine-replay", WRITE_MEMORY_BUDGET, config);
        fixture.fill(BenchDirs.choose(2 * GIB, 64L * MIB), RECORD_SIZE);
        fixture.reopen(BenchDirs.choose(READ_MEMORY_BUDGET, 16L * MIB));
        log = fixture.log();
        start = log.startOffset();
        end = log.visibleEndOffset();
        next = start;
    }

    /** Closes and deletes the store. */
    @TearDown(Level.Trial)
    public void close()
    {
        fixture.close();
    }

    /** Bytes replayed, per second. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class ReplayCounters
    {
        /** Record bytes read (headers and payloads). */
        public long bytes;

        /** Zeroes the counter. */
        @Setup(Level.Iteration)
        public void reset()
        {
            bytes = 0;
        }
    }

    /** @param c the counters. @param bh sink for the payloads. */
    @Benchmark
    public void replay(final ReplayCounters c, final Blackhole bh)
    {
        try (RecordBatch batch = log.read(next, READ_BYTES))
        {
            for (final Record record : batch)
            {
                bh.consume(record.payload().getLong(0));
            }
            c.bytes += batch.sizeInBytes();
            next = batch.nextOffset() >= end ? start : batch.nextOffset();
        }
    }
}
