package io.directlog.benchmarks.peers;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.benchmarks.BenchDirs;
import io.directlog.benchmarks.Payloads;
import java.io.IOException;
import java.nio.ByteBuffer;
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
 * The textbook durable log: under one lock, write a length-prefixed record at the end of a growing file, then
 * {@code force(false)} (fdatasync) before acknowledging. Because the file grows, every fdatasync also commits the
 * new file size to the journal: that is the cost pre-zeroed segments avoid. No group commit: the lock is held
 * across the force, as a naive log would.
 * <p>
 * The file is truncated at each iteration's start so the run's disk use stays bounded.
 * <p>
 * Not thread-safe as a class; producers share the channel under {@link #lock}.
 */
@BenchmarkMode({ Mode.Throughput, Mode.SampleTime })
@OutputTimeUnit(TimeUnit.SECONDS)
public class FileChannelAppendBenchmark extends AbstractBenchmarkBase
{
    @Param({ "00032", "00100", "01024", "16384" })
    public String recordSize;

    private final Object lock = new Object();
    private Path dir;
    private FileChannel channel;
    private long position;

    /** Creates the file. @throws IOException when it cannot. */
    @Setup(Level.Trial)
    public void open() throws IOException
    {
        dir = BenchDirs.create("filechannel");
        channel = FileChannel.open(dir.resolve("log"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }

    /** Empties the file. @throws IOException when it cannot. */
    @Setup(Level.Iteration)
    public void truncate() throws IOException
    {
        synchronized (lock)
        {
            channel.truncate(0);
            channel.force(true);
            position = 0;
        }
    }

    /** Closes and deletes the file. @throws IOException when closing fails. */
    @TearDown(Level.Trial)
    public void close() throws IOException
    {
        channel.close();
        BenchDirs.delete(dir);
    }

    /** One producer's framed record in a direct buffer. */
    @State(Scope.Thread)
    public static class Producer
    {
        ByteBuffer record;

        /** @param bench the benchmark, for the record size. */
        @Setup(Level.Trial)
        public void init(final FileChannelAppendBenchmark bench)
        {
            final byte[] payload = Payloads.random(size(bench.recordSize));
            record = ByteBuffer.allocateDirect(Integer.BYTES + payload.length);
            record.putInt(payload.length).put(payload).flip();
        }
    }

    long append(final Producer p) throws IOException
    {
        final ByteBuffer record = p.record;
        synchronized (lock)
        {
            final long start = position;
            record.clear();
            while (record.hasRemaining())
            {
                position += channel.write(record, position);
            }
            channel.force(false);
            return start;
        }
    }

    /** @param p the producer. @return the record's position. @throws IOException on a failed write. */
    @Benchmark
    @Threads(1)
    public long producers01(final Producer p) throws IOException
    {
        return append(p);
    }

    /** @param p the producer. @return the record's position. @throws IOException on a failed write. */
    @Benchmark
    @Threads(4)
    public long producers04(final Producer p) throws IOException
    {
        return append(p);
    }

    /** @param p the producer. @return the record's position. @throws IOException on a failed write. */
    @Benchmark
    @Threads(16)
    public long producers16(final Producer p) throws IOException
    {
        return append(p);
    }

    /** @param p the producer. @return the record's position. @throws IOException on a failed write. */
    @Benchmark
    @Threads(64)
    public long producers64(final Producer p) throws IOException
    {
        return append(p);
    }
}
