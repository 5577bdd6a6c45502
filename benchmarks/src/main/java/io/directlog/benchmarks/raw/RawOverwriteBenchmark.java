package io.directlog.benchmarks.raw;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.benchmarks.BenchDirs;
import io.directlog.benchmarks.Payloads;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
 * The physical limit of a durable 4 KiB append: one 4 KiB O_DIRECT pwrite (DIRECT) or O_DIRECT|O_DSYNC pwrite
 * (DSYNC) per operation, overwriting a file that was pre-zeroed by real writes and fdatasync'ed, at the next
 * 4 KiB block (wrapping at the end), as the engine's writer does with a segment. With several producers each
 * write takes the next block, so the device sees a queue of that depth.
 * <p>
 * Not thread-safe as a class; each producer writes from its own {@link Producer#block}.
 */
@BenchmarkMode({ Mode.Throughput, Mode.SampleTime })
@OutputTimeUnit(TimeUnit.SECONDS)
public class RawOverwriteBenchmark extends AbstractBenchmarkBase
{
    /** Bytes per write. */
    public static final int BLOCK_SIZE = 4096;

    @Param({ "nativeio", "jdk" })
    public String impl;

    @Param({ "DIRECT", "DSYNC" })
    public String sync;

    private final AtomicLong nextBlock = new AtomicLong();
    private Path dir;
    private RawFile file;
    private long blocks;

    /** Creates and pre-zeroes the file. @throws IOException when O_DIRECT or a write fails. */
    @Setup(Level.Trial)
    public void open() throws IOException
    {
        dir = BenchDirs.create("raw-overwrite");
        final long length = BenchDirs.choose(256L << 20, 8L << 20);
        file = RawFile.open(impl, dir.resolve("segment"), "DSYNC".equals(sync));
        file.preZero(length);
        blocks = length / BLOCK_SIZE;
    }

    /** Closes and deletes the file. @throws IOException when closing fails. */
    @TearDown(Level.Trial)
    public void close() throws IOException
    {
        file.close();
        BenchDirs.delete(dir);
    }

    /** One producer's seeded 4 KiB block. */
    @State(Scope.Thread)
    public static class Producer
    {
        RawFile.Block block;

        /** @param bench the benchmark, for the file. */
        @Setup(Level.Trial)
        public void init(final RawOverwriteBenchmark bench)
        {
            block = bench.file.allocate(BLOCK_SIZE);
            block.buffer().put(Payloads.random(BLOCK_SIZE));
        }

        /** Frees the block. */
        @TearDown(Level.Trial)
        public void close()
        {
            block.close();
        }
    }

    long write(final Producer p) throws IOException
    {
        final long position = (nextBlock.getAndIncrement() % blocks) * BLOCK_SIZE;
        file.write(p.block, position);
        return position;
    }

    /** @param p the producer. @return the position written. @throws IOException when the write fails. */
    @Benchmark
    @Threads(1)
    public long producers01(final Producer p) throws IOException
    {
        return write(p);
    }

    /** @param p the producer. @return the position written. @throws IOException when the write fails. */
    @Benchmark
    @Threads(4)
    public long producers04(final Producer p) throws IOException
    {
        return write(p);
    }

    /** @param p the producer. @return the position written. @throws IOException when the write fails. */
    @Benchmark
    @Threads(16)
    public long producers16(final Producer p) throws IOException
    {
        return write(p);
    }
}
