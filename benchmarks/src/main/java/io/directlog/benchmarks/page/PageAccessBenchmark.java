package io.directlog.benchmarks.page;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the writer does per record in its cache page (issue 19, "bare JVM"), through Agrona's {@link UnsafeBuffer}
 * (needs {@code --add-opens java.base/jdk.internal.misc}) and through JDK-only code (a direct {@link ByteBuffer}
 * with {@link MethodHandles#byteBufferViewVarHandle} views, no option needed): write the header fields (offset,
 * timestamp, count, log id), copy the payload, then publish the length with a release store; and the reader's
 * side, an acquire load of the length and a read of the offset. Records go one after another through a 1 MiB
 * page, as in a segment, so the JIT cannot hoist the indexes.
 * <p>
 * The question it answers: what replacing Agrona's buffers in the engine's hot paths with JDK-only code would cost.
 * Bounds checks are on in both (Agrona's default; a ByteBuffer always checks).
 * <p>
 * Not thread-safe; JMH runs it on one thread.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Thread)
public class PageAccessBenchmark
{
    private static final int PAGE = 1 << 20;
    private static final int HEADER = 32;
    private static final int LENGTH_OFFSET = 0;
    private static final int OFFSET_OFFSET = 8;
    private static final int TIMESTAMP_OFFSET = 16;
    private static final int COUNT_OFFSET = 24;
    private static final int LOG_ID_OFFSET = 28;
    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class,
        ByteOrder.LITTLE_ENDIAN);

    @Param({"100", "4000"})
    public int payloadBytes;

    private UnsafeBuffer agronaPage;
    private ByteBuffer jdkPage;
    private UnsafeBuffer agronaPayload;
    private ByteBuffer jdkPayload;
    private int aligned;
    private int position;
    private long offset;

    /** Allocates the pages 4096-aligned, as the page pool does, and the payload as the proxy hands it over. */
    @Setup
    public void setUp()
    {
        agronaPage = new UnsafeBuffer(BufferUtil.allocateDirectAligned(PAGE, 4096));
        jdkPage = ByteBuffer.allocateDirect(PAGE + 4096).alignedSlice(4096).order(ByteOrder.LITTLE_ENDIAN);
        final byte[] bytes = new byte[payloadBytes];
        agronaPayload = new UnsafeBuffer(bytes);
        jdkPayload = ByteBuffer.wrap(bytes);
        aligned = (HEADER + payloadBytes + 7) & ~7;
    }

    private int next()
    {
        int p = position;
        if (p + aligned > PAGE)
        {
            p = 0;
        }
        position = p + aligned;
        return p;
    }

    /** @return the record's position (JMH consumes it). */
    @Benchmark
    public int writeRecordAgrona()
    {
        final int p = next();
        final UnsafeBuffer b = agronaPage;
        b.putLong(p + OFFSET_OFFSET, offset++);
        b.putLong(p + TIMESTAMP_OFFSET, offset);
        b.putInt(p + COUNT_OFFSET, 1);
        b.putInt(p + LOG_ID_OFFSET, 7);
        b.putBytes(p + HEADER, agronaPayload, 0, payloadBytes);
        b.putIntRelease(p + LENGTH_OFFSET, HEADER + payloadBytes);
        return p;
    }

    /** @return the record's position (JMH consumes it). */
    @Benchmark
    public int writeRecordJdk()
    {
        final int p = next();
        final ByteBuffer b = jdkPage;
        LONG.set(b, p + OFFSET_OFFSET, offset++);
        LONG.set(b, p + TIMESTAMP_OFFSET, offset);
        INT.set(b, p + COUNT_OFFSET, 1);
        INT.set(b, p + LOG_ID_OFFSET, 7);
        b.put(p + HEADER, jdkPayload, 0, payloadBytes);
        INT.setRelease(b, p + LENGTH_OFFSET, HEADER + payloadBytes);
        return p;
    }

    /** @return the record's length plus its offset (JMH consumes it). */
    @Benchmark
    public long readRecordAgrona()
    {
        final int p = next();
        return agronaPage.getIntAcquire(p + LENGTH_OFFSET) + agronaPage.getLong(p + OFFSET_OFFSET);
    }

    /** @return the record's length plus its offset (JMH consumes it). */
    @Benchmark
    public long readRecordJdk()
    {
        final int p = next();
        return (int)INT.getAcquire(jdkPage, p + LENGTH_OFFSET) + (long)LONG.get(jdkPage, p + OFFSET_OFFSET);
    }
}
