package io.directlog.benchmarks.peers;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.benchmarks.BenchDirs;
import io.directlog.benchmarks.Payloads;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * Reading back what Chronicle Queue's suite writes: random point reads of 1 KiB excerpts,
 * {@code tailer.moveToIndex(index)} then {@code readingDocument()}, at seeded random indexes, as latency
 * percentiles. 64 MiB are appended at setup (8 MiB in smoke mode) and stay mapped: the peer of
 * {@code EngineRandomReadBenchmark} with {@code residency=cached}.
 * <p>
 * Not thread-safe as a class; each thread has its own {@link Cursor} and tailer.
 */
@Fork(value = 2, jvmArgsAppend = {
    "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-opens", "java.base/java.nio=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Xms2g", "-Xmx2g", "-XX:MaxDirectMemorySize=2g",
    "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
    "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
    "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
    "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED",
    "-Dchronicle.analytics.disable=true",
    "-Dchronicle.disk.monitor.disable=true" })
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
public class ChronicleReadBenchmark extends AbstractBenchmarkBase
{
    /** Payload bytes per excerpt. */
    public static final int RECORD_SIZE = KIB;

    long firstIndex;
    long records;
    SingleChronicleQueue queue;
    private Path dir;

    /** Appends the excerpts. */
    @Setup(Level.Trial)
    public void open()
    {
        System.setProperty("chronicle.analytics.disable", "true");
        System.setProperty("chronicle.disk.monitor.disable", "true");
        dir = BenchDirs.create("chronicle-read");
        try
        {
            queue = SingleChronicleQueueBuilder.single(dir.toString()).build();
        }
        catch (final RuntimeException | Error ex)
        {
            BenchDirs.delete(dir);
            throw ex;
        }
        records = BenchDirs.choose(64L * MIB, 8L * MIB) / RECORD_SIZE;
        final BytesStore<?, ?> payload = Bytes.allocateDirect(Payloads.random(RECORD_SIZE));
        try (ExcerptAppender appender = queue.createAppender())
        {
            for (long i = 0; i < records; i++)
            {
                appender.writeBytes(payload);
                if (i == 0)
                {
                    firstIndex = appender.lastIndexAppended();
                }
            }
            if (appender.lastIndexAppended() != firstIndex + records - 1)
            {
                throw new IllegalStateException("the excerpts span a roll cycle; indexes are not contiguous");
            }
        }
        finally
        {
            payload.releaseLast();
        }
    }

    /** Closes and deletes the queue. */
    @TearDown(Level.Trial)
    public void close()
    {
        queue.close();
        BenchDirs.delete(dir);
    }

    /** A thread's tailer and seeded random source. */
    @State(Scope.Thread)
    public static class Cursor
    {
        final SplittableRandom random = new SplittableRandom(Payloads.SEED);
        ExcerptTailer tailer;

        /** @param bench the benchmark, for the queue. */
        @Setup(Level.Trial)
        public void init(final ChronicleReadBenchmark bench)
        {
            tailer = bench.queue.createTailer();
        }

        /** Closes the tailer on its own thread. */
        @TearDown(Level.Trial)
        public void close()
        {
            tailer.close();
        }
    }

    /** @param cursor the tailer and random source. @return the excerpt's first byte. */
    @Benchmark
    public int pointRead(final Cursor cursor)
    {
        final long index = firstIndex + cursor.random.nextLong(records);
        if (!cursor.tailer.moveToIndex(index))
        {
            throw new IllegalStateException("no excerpt at index " + Long.toHexString(index));
        }
        try (DocumentContext dc = cursor.tailer.readingDocument())
        {
            if (!dc.isPresent())
            {
                throw new IllegalStateException("no document at index " + Long.toHexString(index));
            }
            return dc.wire().bytes().readByte(dc.wire().bytes().readPosition());
        }
    }
}
