package io.directlog.broker;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.netty.buffer.AbstractByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;

/**
 * Fails a test class when Netty's leak detector reports a leaked buffer during it, instead of only logging it.
 * <p>
 * A listener is put on the buffers' leak detector (Netty's {@code AbstractByteBuf.leakDetector}, created once per
 * JVM, so it is reached by reflection whichever class loaded it first). Netty reports a leak only when a later
 * allocation polls its reference queue after a GC has collected the leaked buffer: after all tests of the class,
 * this forces a GC and allocates, a bounded number of rounds, then asserts that no leak was reported. Leaks from
 * earlier classes are surfaced and dropped before the class starts. Needs the detector at {@code paranoid}
 * (broker/pom.xml sets it) so that every buffer is tracked.
 */
public final class NettyLeakCheck implements BeforeAllCallback, AfterAllCallback
{
    private static final int GC_ROUNDS = 5;
    private static final Queue<String> LEAKS = new ConcurrentLinkedQueue<>();

    static
    {
        try
        {
            final Field f = AbstractByteBuf.class.getDeclaredField("leakDetector");
            f.setAccessible(true);
            @SuppressWarnings("unchecked")
            final ResourceLeakDetector<ByteBuf> detector = (ResourceLeakDetector<ByteBuf>)f.get(null);
            detector.setLeakListener((type, records) -> LEAKS.add(type + (records.isEmpty() ? "" : ":\n" + records)));
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError("cannot reach Netty's buffer leak detector: " + e);
        }
    }

    @Override
    public void beforeAll(final ExtensionContext context)
    {
        if (ResourceLeakDetector.getLevel() != ResourceLeakDetector.Level.PARANOID)
        {
            throw new IllegalStateException("run with -Dio.netty.leakDetection.level=paranoid, not " +
                ResourceLeakDetector.getLevel());
        }
        surface();
        LEAKS.clear();
    }

    @Override
    public void afterAll(final ExtensionContext context)
    {
        surface();
        final List<String> leaks = drain();
        if (!leaks.isEmpty())
        {
            throw new AssertionError(leaks.size() + " Netty buffer leak(s) reported during " +
                context.getDisplayName() + "; first:\n" + leaks.get(0));
        }
    }

    /** Forces GCs and allocations so that buffers collected without release are reported. */
    static void surface()
    {
        for (int i = 0; i < GC_ROUNDS; i++)
        {
            System.gc();
            try
            {
                Thread.sleep(20);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return;
            }
            // each tracked allocation polls the detector's reference queue
            ByteBufAllocator.DEFAULT.buffer(1).release();
            PooledByteBufAllocator.DEFAULT.directBuffer(1).release();
            Unpooled.directBuffer(1).release();
        }
    }

    /** @return the leaks reported since the last drain, removed. */
    static List<String> drain()
    {
        final List<String> out = new ArrayList<>();
        for (String s; (s = LEAKS.poll()) != null; )
        {
            out.add(s);
        }
        return out;
    }
}
