package io.directlog.benchmarks.raw;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.benchmarks.BenchDirs;
import io.directlog.benchmarks.Payloads;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * O_DIRECT sequential bandwidth with 1 MiB requests at queue depth 1: writes over a pre-zeroed file and reads of
 * it, wrapping at the end. MB/s is the score (ops/s) times 1 MiB. {@code write256k} writes the same MiB per op as
 * four 256 KiB requests, one after another: the most a closed loop of 16 producers of 16 KiB records can hand the
 * device in one write, so it is the reference for that row, as {@code write1m} is for pipelined producers. The file is 2 GiB (32 MiB in smoke mode) and
 * O_DIRECT bypasses the page cache, so reads come from the device.
 * <p>
 * Not thread-safe; one thread.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
public class RawSequentialBenchmark extends AbstractBenchmarkBase
{
    /** Bytes per request. */
    public static final int REQUEST_SIZE = 1 << 20;
    /** Bytes per request of {@link #write256k()}. */
    public static final int SMALL_REQUEST_SIZE = 256 << 10;

    @Param({ "nativeio", "jdk" })
    public String impl;

    private Path dir;
    private RawFile file;
    private RawFile.Block block;
    private RawFile.Block smallBlock;
    private long length;
    private long writePosition;
    private long readPosition;

    /** Creates and pre-zeroes the file. @throws IOException when O_DIRECT or a write fails. */
    @Setup(Level.Trial)
    public void open() throws IOException
    {
        dir = BenchDirs.create("raw-sequential");
        length = BenchDirs.choose(2L << 30, 32L << 20);
        file = RawFile.open(impl, dir.resolve("data"), false);
        file.preZero(length);
        block = file.allocate(REQUEST_SIZE);
        block.buffer().put(Payloads.random(REQUEST_SIZE));
        smallBlock = file.allocate(SMALL_REQUEST_SIZE);
        smallBlock.buffer().put(Payloads.random(SMALL_REQUEST_SIZE));
    }

    /** Frees the buffer, closes and deletes the file. @throws IOException when closing fails. */
    @TearDown(Level.Trial)
    public void close() throws IOException
    {
        block.close();
        smallBlock.close();
        file.close();
        BenchDirs.delete(dir);
    }

    /** @return the position written. @throws IOException when the write fails. */
    @Benchmark
    public long write1m() throws IOException
    {
        final long position = writePosition;
        file.write(block, position);
        writePosition = position + REQUEST_SIZE == length ? 0 : position + REQUEST_SIZE;
        return position;
    }

    /** @return the position written last. @throws IOException when a write fails. */
    @Benchmark
    public long write256k() throws IOException
    {
        long position = writePosition;
        for (int i = 0; i < REQUEST_SIZE / SMALL_REQUEST_SIZE; i++)
        {
            file.write(smallBlock, position);
            position += SMALL_REQUEST_SIZE;
        }
        writePosition = position == length ? 0 : position;
        return position;
    }

    /** @return the position read. @throws IOException when the read fails. */
    @Benchmark
    public long read1m() throws IOException
    {
        final long position = readPosition;
        file.read(block, position);
        readPosition = position + REQUEST_SIZE == length ? 0 : position + REQUEST_SIZE;
        return position;
    }
}
