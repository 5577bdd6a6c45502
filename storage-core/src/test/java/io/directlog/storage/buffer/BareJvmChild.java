package io.directlog.storage.buffer;

import java.nio.ByteBuffer;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * Run by {@link ByteBufferAtomicBufferTest} in a JVM started without any flag: uses {@link ByteBufferAtomicBuffer}
 * over each kind of memory (typed, atomic, text and number access, and Agrona's ring buffer over it), then shows
 * that the same JVM refuses {@link UnsafeBuffer}, so the run proves something. Exits 1 on any failure.
 */
public final class BareJvmChild
{
    static final String UNSAFE_REFUSED = "UnsafeBuffer refused in this JVM";
    static final String DONE = "ByteBufferAtomicBuffer works in this JVM";

    private BareJvmChild()
    {
    }

    public static void main(final String[] args)
    {
        final int capacity = 4096 + RingBufferDescriptor.TRAILER_LENGTH;
        exercise(new ByteBufferAtomicBuffer(ByteBuffer.allocateDirect(capacity)));
        exercise(new ByteBufferAtomicBuffer(ByteBuffer.allocate(capacity)));
        exercise(new ByteBufferAtomicBuffer(new byte[capacity]));
        try
        {
            new UnsafeBuffer(new byte[Long.BYTES]).getLong(0);
            System.out.println("UnsafeBuffer works in this JVM: it is not a bare JVM");
        }
        catch (final IllegalAccessError | ExceptionInInitializerError | NoClassDefFoundError e)
        {
            System.out.println(UNSAFE_REFUSED + ": " + e);
        }
        System.out.println(DONE);
    }

    private static void exercise(final AtomicBuffer buffer)
    {
        buffer.putLong(0, 42L);
        check(buffer.getLongVolatile(0) == 42L, "getLongVolatile");
        check(buffer.compareAndSetLong(0, 42L, 43L) && buffer.getAndAddLong(0, 1L) == 43L, "CAS, getAndAdd");
        check(buffer.getAndAddInt(8, 5) == 0 && buffer.getIntAcquire(8) == 5, "getAndAddInt");
        buffer.putStringUtf8(16, "h\u00e9llo");
        check("h\u00e9llo".equals(buffer.getStringUtf8(16)), "UTF-8");
        buffer.putLongAscii(40, Long.MIN_VALUE);
        check(buffer.parseLongAscii(40, 20) == Long.MIN_VALUE, "ASCII long");
        buffer.setMemory(0, buffer.capacity(), (byte)0);
        final ManyToOneRingBuffer ring = new ManyToOneRingBuffer(buffer);
        final ByteBufferAtomicBuffer message = new ByteBufferAtomicBuffer(new byte[16]); // no UnsafeBuffer here
        final long[] sum = new long[1];
        for (int i = 0; i < 1_000; i++)
        {
            message.putInt(0, i);
            check(ring.write(1, message, 0, 12), "ring write " + i);
            int read = 0;
            for (int attempt = 0; attempt < 2 && read == 0; attempt++)
            {
                // a read stops at the end of the buffer: after a wrap, the first one may find only padding
                read = ring.read((type, b, index, length) -> sum[0] += b.getInt(index));
            }
            check(read == 1, "ring read " + i);
        }
        check(sum[0] == 999L * 1_000 / 2, "ring buffer sum");
    }

    private static void check(final boolean condition, final String what)
    {
        if (!condition)
        {
            System.out.println("FAILED: " + what);
            System.exit(1);
        }
    }
}
