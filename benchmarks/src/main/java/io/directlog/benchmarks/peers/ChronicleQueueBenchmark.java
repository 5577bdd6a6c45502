package io.directlog.benchmarks.peers;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.benchmarks.BenchDirs;
import io.directlog.benchmarks.Payloads;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * Chronicle Queue (open source) appending one excerpt per record: {@code sync=false} leaves the mapped pages
 * to the kernel (survives a process crash, not an OS crash or power loss); {@code sync=true} builds the queue
 * with {@code SyncMode.SYNC} and calls {@code appender.sync()} after each excerpt, an msync(MS_SYNC) of what was
 * written. {@code SyncMode.SYNC} alone does not sync each excerpt (it applies when the appender syncs or a mapped
 * chunk is released), so the explicit call is what makes each append durable. Each producer has its own appender;
 * Chronicle serialises them with its own write lock.
 * <p>
 * Chronicle needs the {@code --add-exports}/{@code --add-opens} set its Java 17 support notes list (without them
 * setup fails with {@code IllegalAccessException ... FileChannelImpl.map0}); the fork carries them, and the smoke
 * test's JVM gets them from the benchmarks POM ({@code chronicle.jvm.flags}). Usage analytics are switched off.
 * <p>
 * Not thread-safe as a class; JMH gives each producer its own {@link Producer}.
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
@BenchmarkMode({ Mode.Throughput, Mode.SampleTime })
@OutputTimeUnit(TimeUnit.SECONDS)
public class ChronicleQueueBenchmark extends AbstractBenchmarkBase
{
    @Param({ "false", "true" })
    public boolean sync;

    @Param({ "00032", "00100", "01024", "16384" })
    public String recordSize;

    private Path dir;
    private SingleChronicleQueue queue;

    /** Builds a fresh queue. */
    @Setup(Level.Trial)
    public void open()
    {
        System.setProperty("chronicle.analytics.disable", "true");
        System.setProperty("chronicle.disk.monitor.disable", "true");
        dir = BenchDirs.create("chronicle");
        try
        {
            queue = SingleChronicleQueueBuilder.single(dir.toString()).syncMode(sync ? SyncMode.SYNC : SyncMode.NONE)
                .build();
        }
        catch (final RuntimeException | Error ex)
        {
            // Without its --add-opens flags Chronicle fails here; JMH does not run the tear-down of a failed setup.
            BenchDirs.delete(dir);
            throw ex;
        }
    }

    /** Closes and deletes the queue. */
    @TearDown(Level.Trial)
    public void close()
    {
        queue.close();
        BenchDirs.delete(dir);
    }

    /** One producer: its appender (created on its own thread) and payload. */
    @State(Scope.Thread)
    public static class Producer
    {
        ExcerptAppender appender;
        BytesStore<?, ?> payload;
        boolean sync;

        /** @param bench the benchmark, for the queue and record size. */
        @Setup(Level.Trial)
        public void init(final ChronicleQueueBenchmark bench)
        {
            appender = bench.queue.createAppender();
            sync = bench.sync;
            payload = Bytes.allocateDirect(Payloads.random(size(bench.recordSize)));
        }

        /** Releases the appender and the payload. */
        @TearDown(Level.Trial)
        public void close()
        {
            appender.close();
            payload.releaseLast();
        }

        long append()
        {
            appender.writeBytes(payload);
            if (sync)
            {
                appender.sync();
            }
            return appender.lastIndexAppended();
        }
    }

    /** @param p the producer. @return the excerpt's index. */
    @Benchmark
    @Threads(1)
    public long producers01(final Producer p)
    {
        return p.append();
    }

    /** @param p the producer. @return the excerpt's index. */
    @Benchmark
    @Threads(4)
    public long producers04(final Producer p)
    {
        return p.append();
    }

    /** @param p the producer. @return the excerpt's index. */
    @Benchmark
    @Threads(16)
    public long producers16(final Producer p)
    {
        return p.append();
    }

    /** @param p the producer. @return the excerpt's index. */
    @Benchmark
    @Threads(64)
    public long producers64(final Producer p)
    {
        return p.append();
    }
}
