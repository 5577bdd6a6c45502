package io.directlog.benchmarks.peers;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.benchmarks.BenchDirs;
import io.directlog.benchmarks.Payloads;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * Append into a memory-mapped file and {@code force} (msync MS_SYNC) the pages the record touched before
 * acknowledging. The ranged {@code force(index, length)} is used rather than {@code force()} of the whole map:
 * it does the same durable work for the record and is the best a mapped log can do. The file is sparse, so the
 * first msync of each page also allocates its blocks; the position wraps to 0 at the end of the map.
 * <p>
 * Not thread-safe as a class; producers share the map under {@link #lock}.
 */
@BenchmarkMode({ Mode.Throughput, Mode.SampleTime })
@OutputTimeUnit(TimeUnit.SECONDS)
public class MappedBufferAppendBenchmark extends AbstractBenchmarkBase
{
    @Param({ "00032", "00100", "01024", "16384" })
    public String recordSize;

    private final Object lock = new Object();
    private Path dir;
    private FileChannel channel;
    private MappedByteBuffer map;
    private int position;

    /** Creates and maps the file. @throws IOException when it cannot. */
    @Setup(Level.Trial)
    public void open() throws IOException
    {
        dir = BenchDirs.create("mapped");
        channel = FileChannel.open(dir.resolve("log"), StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE);
        map = channel.map(FileChannel.MapMode.READ_WRITE, 0, BenchDirs.choose(1L << 30, 64L << 20));
    }

    /** Unmaps (when collected) and deletes the file. @throws IOException when closing fails. */
    @TearDown(Level.Trial)
    public void close() throws IOException
    {
        map = null;
        channel.close();
        BenchDirs.delete(dir);
    }

    /** One producer's payload. */
    @State(Scope.Thread)
    public static class Producer
    {
        byte[] payload;

        /** @param bench the benchmark, for the record size. */
        @Setup(Level.Trial)
        public void init(final MappedBufferAppendBenchmark bench)
        {
            payload = Payloads.random(size(bench.recordSize));
        }
    }

    int append(final Producer p)
    {
        final byte[] payload = p.payload;
        final int length = Integer.BYTES + payload.length;
        synchronized (lock)
        {
            if (position + length > map.capacity())
            {
                position = 0;
            }
            final int start = position;
            map.putInt(start, payload.length);
            map.put(start + Integer.BYTES, payload, 0, payload.length);
            map.force(start, length);
            position += length;
            return start;
        }
    }

    /** @param p the producer. @return the record's position. */
    @Benchmark
    @Threads(1)
    public int producers01(final Producer p)
    {
        return append(p);
    }

    /** @param p the producer. @return the record's position. */
    @Benchmark
    @Threads(4)
    public int producers04(final Producer p)
    {
        return append(p);
    }

    /** @param p the producer. @return the record's position. */
    @Benchmark
    @Threads(16)
    public int producers16(final Producer p)
    {
        return append(p);
    }

    /** @param p the producer. @return the record's position. */
    @Benchmark
    @Threads(64)
    public int producers64(final Producer p)
    {
        return append(p);
    }
}
