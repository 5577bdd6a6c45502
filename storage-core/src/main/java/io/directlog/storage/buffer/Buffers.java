package io.directlog.storage.buffer;

import java.nio.ByteBuffer;

import io.directlog.nativeio.JvmOptions;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The one place the engine makes its buffers: Agrona's {@link UnsafeBuffer} where the JVM lets Agrona reach
 * {@code jdk.internal.misc.Unsafe} ({@link JvmOptions#agronaUnsafeWorks()}), else a {@link ByteBufferAtomicBuffer},
 * which needs no JVM option. Either way the engine sees an {@link AtomicBuffer}; one JVM only ever makes one of the
 * two kinds, so every call site stays monomorphic.
 * <p>
 * Thread-safe (stateless).
 */
public final class Buffers
{
    /** True when Agrona's Unsafe-based buffers work in this JVM; decided once. */
    private static final boolean UNSAFE = JvmOptions.agronaUnsafeWorks();

    private Buffers()
    {
    }

    /** @return true when the engine's buffers are Agrona's {@link UnsafeBuffer}s (the JVM opens what Agrona needs). */
    public static boolean unsafe()
    {
        return UNSAFE;
    }

    /**
     * @param array the bytes.
     * @return a buffer over all of them.
     */
    public static AtomicBuffer wrap(final byte[] array)
    {
        return UNSAFE ? new UnsafeBuffer(array) : new ByteBufferAtomicBuffer(array);
    }

    /**
     * @param array  the bytes.
     * @param offset the first byte.
     * @param length how many.
     * @return a buffer over that range.
     */
    public static AtomicBuffer wrap(final byte[] array, final int offset, final int length)
    {
        return UNSAFE ? new UnsafeBuffer(array, offset, length) : new ByteBufferAtomicBuffer(array, offset, length);
    }

    /**
     * @param buffer a heap or direct buffer; its position and limit are ignored.
     * @return a buffer over all of its capacity.
     */
    public static AtomicBuffer wrap(final ByteBuffer buffer)
    {
        return UNSAFE ? new UnsafeBuffer(buffer) : new ByteBufferAtomicBuffer(buffer);
    }

    /**
     * @param buffer a heap or direct buffer; its position and limit are ignored.
     * @param offset the first byte, from the buffer's start.
     * @param length how many.
     * @return a buffer over that range.
     */
    public static AtomicBuffer wrap(final ByteBuffer buffer, final int offset, final int length)
    {
        return UNSAFE ? new UnsafeBuffer(buffer, offset, length) : new ByteBufferAtomicBuffer(buffer, offset, length);
    }

    /**
     * @param buffer a buffer the engine made here.
     * @param offset the first byte.
     * @param length how many.
     * @return a buffer over that range of the same memory.
     */
    public static AtomicBuffer wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        return UNSAFE ? new UnsafeBuffer(buffer, offset, length) : new ByteBufferAtomicBuffer(buffer, offset, length);
    }

    /** @return an empty buffer, for a view that is wrapped over other memory later. */
    public static AtomicBuffer empty()
    {
        return wrap(new byte[0]);
    }

    /**
     * A direct buffer whose first byte is aligned, from the JDK alone (Agrona's {@code BufferUtil} reads the
     * buffer's address through Unsafe).
     *
     * @param capacity  bytes.
     * @param alignment a power of two.
     * @return a direct buffer of {@code capacity} bytes at an address that is a multiple of {@code alignment}.
     */
    public static ByteBuffer allocateDirectAligned(final int capacity, final int alignment)
    {
        final ByteBuffer aligned = ByteBuffer.allocateDirect(capacity + alignment).alignedSlice(alignment);
        return aligned.limit(capacity).slice();
    }
}
