package io.directlog.storage.buffer;

import static org.agrona.BitUtil.SIZE_OF_BYTE;
import static org.agrona.BitUtil.SIZE_OF_CHAR;
import static org.agrona.BitUtil.SIZE_OF_INT;
import static org.agrona.BitUtil.SIZE_OF_LONG;
import static org.agrona.BitUtil.SIZE_OF_SHORT;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

/**
 * An Agrona {@link AtomicBuffer} over a {@link ByteBuffer} (direct or heap) or a {@code byte[]} that needs no JVM
 * flag: it reaches memory through {@link VarHandle} views and the ByteBuffer's own methods, never through
 * {@code Unsafe}, {@code org.agrona.UnsafeApi} or {@code UnsafeBuffer} (which fail on a JVM that does not open
 * {@code jdk.internal.misc}; issue 19). It behaves as {@code UnsafeBuffer} does for the same calls (results, bytes
 * written, byte order, bounds checks and their {@link IndexOutOfBoundsException}s, {@code equals}, {@code hashCode}
 * and {@code compareTo}), except where this class says otherwise:
 * <ul>
 * <li>{@link #wrap(long, int)} and {@link #addressOffset()} throw {@link UnsupportedOperationException}: there is no
 * address without {@code Unsafe}. Where the bytes are is {@link #byteArray()} or {@link #byteBuffer()} at index
 * {@link #wrapAdjustment()} (as for {@code UnsafeBuffer}).</li>
 * <li>Atomic and ordered accesses (volatile, acquire, release, opaque, compare-and-set, get-and-add) on direct memory
 * must be aligned to their size in the address space, else {@link IllegalStateException} ({@code UnsafeBuffer}
 * does them misaligned on x86, where they are not atomic across a cache line). On heap memory (a {@code byte[]} or
 * a heap ByteBuffer) they synchronize on the array, at any alignment: JDK 22 and later offer no atomic VarHandle
 * access to heap byte buffers. So they are atomic with each other across all of these buffers over the same array,
 * but not with other code's access to that array.</li>
 * <li>A read-only ByteBuffer stays read-only: writes throw {@link java.nio.ReadOnlyBufferException}, and a
 * read-only heap buffer has no {@link #byteArray()} ({@code UnsafeBuffer} writes into both).</li>
 * <li>Bounds are checked even when Agrona's {@code agrona.disable.bounds.checks} property is set.</li>
 * <li>The ASCII "natural" number writers reject a negative value with an {@link IllegalArgumentException}
 * ({@code UnsafeBuffer} writes unspecified bytes), and an {@link java.io.IOException} of an {@link Appendable} is
 * rethrown as an {@link java.io.UncheckedIOException}.</li>
 * </ul>
 * Not thread-safe for wrapping; concurrent access after a wrap, as with {@code UnsafeBuffer}.
 */
public final class ByteBufferAtomicBuffer extends TextRegion
{
    /** Wraps an empty array. */
    public ByteBufferAtomicBuffer()
    {
    }

    /** @param buffer wrapped whole. */
    public ByteBufferAtomicBuffer(final byte[] buffer)
    {
        wrap(buffer);
    }

    /**
     * @param buffer wrapped from {@code offset} for {@code length} bytes.
     * @param offset where index 0 is in the array.
     * @param length the capacity.
     */
    public ByteBufferAtomicBuffer(final byte[] buffer, final int offset, final int length)
    {
        wrap(buffer, offset, length);
    }

    /** @param buffer wrapped whole (0 to its capacity, whatever its position and limit). */
    public ByteBufferAtomicBuffer(final ByteBuffer buffer)
    {
        wrap(buffer);
    }

    /**
     * @param buffer wrapped from {@code offset} for {@code length} bytes.
     * @param offset where index 0 is in the ByteBuffer (absolute, not from its position).
     * @param length the capacity.
     */
    public ByteBufferAtomicBuffer(final ByteBuffer buffer, final int offset, final int length)
    {
        wrap(buffer, offset, length);
    }

    /** @param buffer whose memory is wrapped whole (see {@link #wrap(DirectBuffer, int, int)}). */
    public ByteBufferAtomicBuffer(final DirectBuffer buffer)
    {
        wrap(buffer);
    }

    /**
     * @param buffer whose memory is wrapped from {@code offset} for {@code length} bytes.
     * @param offset where index 0 is in that buffer.
     * @param length the capacity.
     */
    public ByteBufferAtomicBuffer(final DirectBuffer buffer, final int offset, final int length)
    {
        wrap(buffer, offset, length);
    }

    /**
     * As {@code UnsafeBuffer}: heap memory is reported (an exception with {@link #STRICT_ALIGNMENT_CHECKS}, else a
     * line on stderr), direct memory whose index 0 is not 8-byte aligned is an {@link IllegalStateException}.
     */
    @Override
    public void verifyAlignment()
    {
        if (!memory.isDirect())
        {
            final String msg = "AtomicBuffer was created from a byte[] and is not correctly aligned by " + ALIGNMENT;
            if (STRICT_ALIGNMENT_CHECKS)
            {
                throw new IllegalStateException(msg);
            }
            System.err.println(msg);
        }
        else if (0 != ((memoryMisalignment + base) & (ALIGNMENT - 1)))
        {
            throw new IllegalStateException("AtomicBuffer is not correctly aligned: index 0 (wrapAdjustment=" +
                wrapAdjustment() + ") is " + ((memoryMisalignment + base) & (ALIGNMENT - 1)) +
                " bytes past an address divisible by " + ALIGNMENT);
        }
    }

    /**
     * The bounds check of every atomic access, and its alignment check on direct memory.
     *
     * @return where {@code index} is in {@link #memory}.
     */
    private int atomicAt(final int index, final int size)
    {
        final int at = at(index, size);
        if (null == heapLock && 0 != ((memoryMisalignment + at) & (size - 1)))
        {
            throw new IllegalStateException("misaligned atomic access: index " + index + " of " + this +
                " is not aligned to " + size + " bytes in memory (atomic access to direct memory must be)");
        }
        return at;
    }

    /** Same class, same capacity and same bytes, as {@code UnsafeBuffer} compares. */
    @Override
    public boolean equals(final Object obj)
    {
        if (this == obj)
        {
            return true;
        }
        if (obj == null || getClass() != obj.getClass())
        {
            return false;
        }
        final ByteBufferAtomicBuffer that = (ByteBufferAtomicBuffer)obj;
        if (capacity != that.capacity)
        {
            return false;
        }
        int i = 0;
        for (final int words = capacity & ~7; i < words; i += SIZE_OF_LONG)
        {
            if ((long)LONG.get(memory, base + i) != (long)LONG.get(that.memory, that.base + i))
            {
                return false;
            }
        }
        for (; i < capacity; i++)
        {
            if (memory.get(base + i) != that.memory.get(that.base + i))
            {
                return false;
            }
        }
        return true;
    }

    /** The same hash as {@code UnsafeBuffer} computes over the same bytes (8-byte words in native order first). */
    @Override
    public int hashCode()
    {
        int hashCode = 19;
        int i = 0;
        for (final int words = capacity & ~7; i < words; i += SIZE_OF_LONG)
        {
            hashCode = 31 * hashCode + Long.hashCode((long)LONG.get(memory, base + i));
        }
        for (; i < capacity; i++)
        {
            hashCode = 31 * hashCode + memory.get(base + i);
        }
        return hashCode;
    }

    /**
     * The same order as {@code UnsafeBuffer}'s: signed 8-byte words in native order, then signed bytes, then the
     * shorter first (not lexicographic by unsigned byte on a little-endian machine).
     */
    @Override
    public int compareTo(final DirectBuffer that)
    {
        if (this == that)
        {
            return 0;
        }
        final int thatCapacity = that.capacity();
        final int length = Math.min(capacity, thatCapacity);
        int i = 0;
        for (final int words = length & ~7; i < words; i += SIZE_OF_LONG)
        {
            final int cmp = Long.compare((long)LONG.get(memory, base + i), that.getLong(i));
            if (cmp != 0)
            {
                return cmp;
            }
        }
        for (; i < length; i++)
        {
            final int cmp = Byte.compare(memory.get(base + i), that.getByte(i));
            if (cmp != 0)
            {
                return cmp;
            }
        }
        return Integer.compare(capacity, thatCapacity);
    }

    @Override
    public String toString()
    {
        final byte[] array = byteArray();
        return "ByteBufferAtomicBuffer{wrapAdjustment=" + wrapAdjustment() + ", capacity=" + capacity +
            ", byteArray=" + (null == array ? "null" : "byte[" + array.length + "]") +
            ", byteBuffer=" + byteBuffer() + '}';
    }

    @Override
    public long getLongVolatile(final int index)
    {
        final int at = atomicAt(index, SIZE_OF_LONG);
        return null == heapLock ? (long)LONG.getVolatile(memory, at) : HeapAtomics.getLong(heapLock, memory, at);
    }

    @Override
    public void putLongVolatile(final int index, final long value)
    {
        final int at = atomicAt(index, SIZE_OF_LONG);
        if (null == heapLock)
        {
            LONG.setVolatile(memory, at, value);
        }
        else
        {
            HeapAtomics.putLong(heapLock, memory, at, value);
        }
    }

    @Override
    public long getLongAcquire(final int index)
    {
        final int at = atomicAt(index, SIZE_OF_LONG);
        return null == heapLock ? (long)LONG.getAcquire(memory, at) : HeapAtomics.getLong(heapLock, memory, at);
    }

    @Override
    public void putLongOrdered(final int index, final long value)
    {
        putLongRelease(index, value);
    }

    @Override
    public void putLongRelease(final int index, final long value)
    {
        final int at = atomicAt(index, SIZE_OF_LONG);
        if (null == heapLock)
        {
            LONG.setRelease(memory, at, value);
        }
        else
        {
            HeapAtomics.putLong(heapLock, memory, at, value);
        }
    }

    @Override
    public long addLongOrdered(final int index, final long increment)
    {
        return addLongRelease(index, increment);
    }

    @Override
    public long addLongRelease(final int index, final long increment)
    {
        final int at = atomicAt(index, SIZE_OF_LONG);
        return null == heapLock ? (long)LONG.getAndAddRelease(memory, at, increment) :
            HeapAtomics.getAndAddLong(heapLock, memory, at, increment);
    }

    @Override
    public void putLongOpaque(final int index, final long value)
    {
        final int at = atomicAt(index, SIZE_OF_LONG);
        if (null == heapLock)
        {
            LONG.setOpaque(memory, at, value);
        }
        else
        {
            HeapAtomics.putLong(heapLock, memory, at, value);
        }
    }

    @Override
    public long getLongOpaque(final int index)
    {
        final int at = atomicAt(index, SIZE_OF_LONG);
        return null == heapLock ? (long)LONG.getOpaque(memory, at) : HeapAtomics.getLong(heapLock, memory, at);
    }

    /** Not atomic, as in {@code UnsafeBuffer}: an opaque read, then an opaque write of the sum. */
    @Override
    public long addLongOpaque(final int index, final long increment)
    {
        final long old = getLongOpaque(index);
        putLongOpaque(index, old + increment);
        return old;
    }

    @Override
    public boolean compareAndSetLong(final int index, final long expectedValue, final long updateValue)
    {
        final int at = atomicAt(index, SIZE_OF_LONG);
        return null == heapLock ? LONG.compareAndSet(memory, at, expectedValue, updateValue) :
            HeapAtomics.compareAndExchangeLong(heapLock, memory, at, expectedValue, updateValue) == expectedValue;
    }

    @Override
    public long compareAndExchangeLong(final int index, final long expectedValue, final long updateValue)
    {
        final int at = atomicAt(index, SIZE_OF_LONG);
        return null == heapLock ? (long)LONG.compareAndExchange(memory, at, expectedValue, updateValue) :
            HeapAtomics.compareAndExchangeLong(heapLock, memory, at, expectedValue, updateValue);
    }

    @Override
    public long getAndSetLong(final int index, final long value)
    {
        final int at = atomicAt(index, SIZE_OF_LONG);
        return null == heapLock ? (long)LONG.getAndSet(memory, at, value) :
            HeapAtomics.getAndSetLong(heapLock, memory, at, value);
    }

    @Override
    public long getAndAddLong(final int index, final long delta)
    {
        final int at = atomicAt(index, SIZE_OF_LONG);
        return null == heapLock ? (long)LONG.getAndAdd(memory, at, delta) :
            HeapAtomics.getAndAddLong(heapLock, memory, at, delta);
    }

    @Override
    public int getIntVolatile(final int index)
    {
        final int at = atomicAt(index, SIZE_OF_INT);
        return null == heapLock ? (int)INT.getVolatile(memory, at) : HeapAtomics.getInt(heapLock, memory, at);
    }

    @Override
    public void putIntVolatile(final int index, final int value)
    {
        final int at = atomicAt(index, SIZE_OF_INT);
        if (null == heapLock)
        {
            INT.setVolatile(memory, at, value);
        }
        else
        {
            HeapAtomics.putInt(heapLock, memory, at, value);
        }
    }

    @Override
    public int getIntAcquire(final int index)
    {
        final int at = atomicAt(index, SIZE_OF_INT);
        return null == heapLock ? (int)INT.getAcquire(memory, at) : HeapAtomics.getInt(heapLock, memory, at);
    }

    @Override
    public void putIntOrdered(final int index, final int value)
    {
        putIntRelease(index, value);
    }

    @Override
    public void putIntRelease(final int index, final int value)
    {
        final int at = atomicAt(index, SIZE_OF_INT);
        if (null == heapLock)
        {
            INT.setRelease(memory, at, value);
        }
        else
        {
            HeapAtomics.putInt(heapLock, memory, at, value);
        }
    }

    @Override
    public int addIntOrdered(final int index, final int increment)
    {
        return addIntRelease(index, increment);
    }

    @Override
    public int addIntRelease(final int index, final int increment)
    {
        final int at = atomicAt(index, SIZE_OF_INT);
        return null == heapLock ? (int)INT.getAndAddRelease(memory, at, increment) :
            HeapAtomics.getAndAddInt(heapLock, memory, at, increment);
    }

    @Override
    public void putIntOpaque(final int index, final int value)
    {
        final int at = atomicAt(index, SIZE_OF_INT);
        if (null == heapLock)
        {
            INT.setOpaque(memory, at, value);
        }
        else
        {
            HeapAtomics.putInt(heapLock, memory, at, value);
        }
    }

    @Override
    public int getIntOpaque(final int index)
    {
        final int at = atomicAt(index, SIZE_OF_INT);
        return null == heapLock ? (int)INT.getOpaque(memory, at) : HeapAtomics.getInt(heapLock, memory, at);
    }

    /** Not atomic, as in {@code UnsafeBuffer}: an opaque read, then an opaque write of the sum. */
    @Override
    public int addIntOpaque(final int index, final int increment)
    {
        final int old = getIntOpaque(index);
        putIntOpaque(index, old + increment);
        return old;
    }

    @Override
    public boolean compareAndSetInt(final int index, final int expectedValue, final int updateValue)
    {
        final int at = atomicAt(index, SIZE_OF_INT);
        return null == heapLock ? INT.compareAndSet(memory, at, expectedValue, updateValue) :
            HeapAtomics.compareAndExchangeInt(heapLock, memory, at, expectedValue, updateValue) == expectedValue;
    }

    @Override
    public int compareAndExchangeInt(final int index, final int expectedValue, final int updateValue)
    {
        final int at = atomicAt(index, SIZE_OF_INT);
        return null == heapLock ? (int)INT.compareAndExchange(memory, at, expectedValue, updateValue) :
            HeapAtomics.compareAndExchangeInt(heapLock, memory, at, expectedValue, updateValue);
    }

    @Override
    public int getAndSetInt(final int index, final int value)
    {
        final int at = atomicAt(index, SIZE_OF_INT);
        return null == heapLock ? (int)INT.getAndSet(memory, at, value) :
            HeapAtomics.getAndSetInt(heapLock, memory, at, value);
    }

    @Override
    public int getAndAddInt(final int index, final int delta)
    {
        final int at = atomicAt(index, SIZE_OF_INT);
        return null == heapLock ? (int)INT.getAndAdd(memory, at, delta) :
            HeapAtomics.getAndAddInt(heapLock, memory, at, delta);
    }

    @Override
    public short getShortVolatile(final int index)
    {
        final int at = atomicAt(index, SIZE_OF_SHORT);
        return null == heapLock ? (short)SHORT.getVolatile(memory, at) : HeapAtomics.getShort(heapLock, memory, at);
    }

    @Override
    public void putShortVolatile(final int index, final short value)
    {
        final int at = atomicAt(index, SIZE_OF_SHORT);
        if (null == heapLock)
        {
            SHORT.setVolatile(memory, at, value);
        }
        else
        {
            HeapAtomics.putShort(heapLock, memory, at, value);
        }
    }

    @Override
    public char getCharVolatile(final int index)
    {
        final int at = atomicAt(index, SIZE_OF_CHAR);
        return null == heapLock ? (char)CHAR.getVolatile(memory, at) : HeapAtomics.getChar(heapLock, memory, at);
    }

    @Override
    public void putCharVolatile(final int index, final char value)
    {
        final int at = atomicAt(index, SIZE_OF_CHAR);
        if (null == heapLock)
        {
            CHAR.setVolatile(memory, at, value);
        }
        else
        {
            HeapAtomics.putChar(heapLock, memory, at, value);
        }
    }

    /** There is no byte view VarHandle: a plain read fenced as a volatile read is (a full fence, then acquire). */
    @Override
    public byte getByteVolatile(final int index)
    {
        final int at = atomicAt(index, SIZE_OF_BYTE);
        if (null != heapLock)
        {
            return HeapAtomics.getByte(heapLock, memory, at);
        }
        VarHandle.fullFence();
        final byte value = memory.get(at);
        VarHandle.acquireFence();
        return value;
    }

    /** A plain write fenced as a volatile write is (release before, a full fence after). */
    @Override
    public void putByteVolatile(final int index, final byte value)
    {
        final int at = atomicAt(index, SIZE_OF_BYTE);
        if (null != heapLock)
        {
            HeapAtomics.putByte(heapLock, memory, at, value);
            return;
        }
        VarHandle.releaseFence();
        memory.put(at, value);
        VarHandle.fullFence();
    }
}
