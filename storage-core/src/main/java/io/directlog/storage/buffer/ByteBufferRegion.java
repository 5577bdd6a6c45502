package io.directlog.storage.buffer;

import static org.agrona.BitUtil.SIZE_OF_BYTE;
import static org.agrona.BitUtil.SIZE_OF_CHAR;
import static org.agrona.BitUtil.SIZE_OF_DOUBLE;
import static org.agrona.BitUtil.SIZE_OF_FLOAT;
import static org.agrona.BitUtil.SIZE_OF_INT;
import static org.agrona.BitUtil.SIZE_OF_LONG;
import static org.agrona.BitUtil.SIZE_OF_SHORT;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The memory part of {@link ByteBufferAtomicBuffer}: what it wraps, bounds, and plain typed and bulk access, all
 * through a {@link ByteBuffer} that spans the whole wrapped memory ({@link #memory}) and {@link VarHandle} views of
 * it, never through {@code Unsafe}.
 * <p>
 * Typed access without a {@link ByteOrder} uses the platform's native order, as Agrona's {@code UnsafeBuffer} does;
 * with one, the bytes are reversed when it is not the native order (so a {@code null} order means "reversed", as
 * there). The caller's {@link ByteBuffer}'s position, limit and order are ignored, as there.
 * <p>
 * Not thread-safe for wrapping; accesses may be concurrent after a wrap, as with {@code UnsafeBuffer}.
 */
abstract class ByteBufferRegion implements AtomicBuffer
{
    static final ByteOrder NATIVE_ORDER = ByteOrder.nativeOrder();
    static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, NATIVE_ORDER);
    static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, NATIVE_ORDER);
    static final VarHandle SHORT = MethodHandles.byteBufferViewVarHandle(short[].class, NATIVE_ORDER);
    static final VarHandle CHAR = MethodHandles.byteBufferViewVarHandle(char[].class, NATIVE_ORDER);
    private static final byte[] EMPTY = new byte[0];
    /** Shared by every buffer until its first wrap (nothing can be read or written at capacity 0). */
    private static final ByteBuffer EMPTY_MEMORY = ByteBuffer.wrap(EMPTY);

    /** Spans the whole wrapped memory (position 0, limit = capacity, never changed); index 0 is at {@link #base}. */
    ByteBuffer memory;
    /** Where this buffer's index 0 is in {@link #memory}. */
    int base;
    int capacity;
    /** The caller's ByteBuffer ({@link #byteBuffer()}), or null when a byte[] was wrapped. */
    private ByteBuffer byteBuffer;
    /** The wrapped array or the heap ByteBuffer's ({@link #byteArray()}); null for direct or read-only memory. */
    private byte[] byteArray;
    private int wrapAdjustment;
    /** Where {@link #memory}'s index 0 is within an 8-byte word of the address space (direct memory only). */
    int memoryMisalignment;
    /**
     * What atomic accesses to heap memory synchronize on (the array, else the read-only buffer): JDK 22 and later
     * support no atomic VarHandle access to heap ByteBuffers or byte[] views. Null for direct memory.
     */
    Object heapLock;

    ByteBufferRegion()
    {
        memory = EMPTY_MEMORY;
        byteArray = EMPTY;
        heapLock = EMPTY;
    }

    @Override
    public final void wrap(final byte[] buffer)
    {
        wrapArray(buffer, 0, buffer.length);
    }

    @Override
    public final void wrap(final byte[] buffer, final int offset, final int length)
    {
        Objects.checkFromIndexSize(offset, length, buffer.length);
        wrapArray(buffer, offset, length);
    }

    @Override
    public final void wrap(final ByteBuffer buffer)
    {
        wrapByteBuffer(buffer, 0, buffer.capacity());
    }

    @Override
    public final void wrap(final ByteBuffer buffer, final int offset, final int length)
    {
        Objects.checkFromIndexSize(offset, length, buffer.capacity());
        wrapByteBuffer(buffer, offset, length);
    }

    @Override
    public final void wrap(final DirectBuffer buffer)
    {
        wrap(buffer, 0, buffer.capacity());
    }

    /**
     * Wraps the same memory as another buffer: one of ours, or any whose memory is a byte[] or a ByteBuffer
     * ({@link DirectBuffer#wrapAdjustment()} says where its index 0 is in either).
     *
     * @throws UnsupportedOperationException when the other buffer wraps a raw address (this one cannot).
     */
    @Override
    public final void wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        Objects.checkFromIndexSize(offset, length, buffer.capacity());
        if (buffer instanceof ByteBufferRegion)
        {
            final ByteBufferRegion that = (ByteBufferRegion)buffer;
            memory = that.memory;
            base = that.base + offset;
            capacity = length;
            byteBuffer = that.byteBuffer;
            byteArray = that.byteArray;
            wrapAdjustment = that.wrapAdjustment + offset;
            memoryMisalignment = that.memoryMisalignment;
            heapLock = that.heapLock;
        }
        else if (buffer.byteArray() != null)
        {
            wrapArray(buffer.byteArray(), buffer.wrapAdjustment() + offset, length);
            byteBuffer = buffer.byteBuffer();
        }
        else if (buffer.byteBuffer() != null)
        {
            wrapByteBuffer(buffer.byteBuffer(), buffer.wrapAdjustment() + offset, length);
        }
        else
        {
            throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot wrap " + buffer +
                ": it wraps a raw address, which only Unsafe can reach");
        }
    }

    /**
     * @throws UnsupportedOperationException always: memory at a raw address can only be reached through
     *                                       {@code Unsafe}, which this buffer exists to avoid.
     */
    @Override
    public final void wrap(final long address, final int length)
    {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot wrap the raw address " +
            address + " (length " + length + "): that needs Unsafe; wrap a direct ByteBuffer instead");
    }

    private void wrapArray(final byte[] array, final int offset, final int length)
    {
        if (array != byteArray)
        {
            memory = ByteBuffer.wrap(array); // allocated only when the array changes
        }
        byteArray = array;
        heapLock = array;
        byteBuffer = null;
        base = offset;
        capacity = length;
        wrapAdjustment = offset;
        memoryMisalignment = 0;
    }

    private void wrapByteBuffer(final ByteBuffer buffer, final int offset, final int length)
    {
        if (buffer.hasArray())
        {
            final int arrayOffset = buffer.arrayOffset();
            wrapArray(buffer.array(), arrayOffset + offset, length);
        }
        else
        {
            // direct, or a read-only heap buffer (whose array cannot be had): a duplicate spanning all of it
            if (buffer != byteBuffer || byteArray != null)
            {
                memory = buffer.duplicate().clear();
            }
            byteArray = null;
            heapLock = memory.isDirect() ? null : buffer;
            base = offset;
            capacity = length;
            wrapAdjustment = offset;
            memoryMisalignment = memory.isDirect() ? memory.alignmentOffset(0, SIZE_OF_LONG) : 0;
        }
        byteBuffer = buffer;
    }

    /**
     * Not supported: there is no address without {@code Unsafe}. Where the bytes are is
     * {@link #byteArray()} or {@link #byteBuffer()} at index {@link #wrapAdjustment()}.
     *
     * @throws UnsupportedOperationException always.
     */
    @Override
    public final long addressOffset()
    {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no address offset (it does " +
            "not use Unsafe): use byteArray() or byteBuffer() at index wrapAdjustment()");
    }

    @Override
    public final byte[] byteArray()
    {
        return byteArray;
    }

    @Override
    public final ByteBuffer byteBuffer()
    {
        return byteBuffer;
    }

    @Override
    public final int wrapAdjustment()
    {
        return wrapAdjustment;
    }

    @Override
    public final int capacity()
    {
        return capacity;
    }

    @Override
    public final boolean isExpandable()
    {
        return false;
    }

    @Override
    public final void checkLimit(final int limit)
    {
        if (limit > capacity)
        {
            throw new IndexOutOfBoundsException("limit=" + limit + " is beyond capacity=" + capacity);
        }
    }

    @Override
    public final void boundsCheck(final int index, final int length)
    {
        Objects.checkFromIndexSize(index, length, capacity);
    }

    /**
     * The bounds check of every access (also when Agrona's bounds checks are disabled by its system property:
     * the region must not reach into the rest of the ByteBuffer it was cut from).
     *
     * @return where {@code index} is in {@link #memory}.
     */
    final int at(final int index, final int length)
    {
        Objects.checkFromIndexSize(index, length, capacity);
        return base + index;
    }

    @Override
    public final long getLong(final int index)
    {
        return (long)LONG.get(memory, at(index, SIZE_OF_LONG));
    }

    @Override
    public final long getLong(final int index, final ByteOrder byteOrder)
    {
        final long bits = getLong(index);
        return NATIVE_ORDER == byteOrder ? bits : Long.reverseBytes(bits);
    }

    @Override
    public final void putLong(final int index, final long value)
    {
        LONG.set(memory, at(index, SIZE_OF_LONG), value);
    }

    @Override
    public final void putLong(final int index, final long value, final ByteOrder byteOrder)
    {
        putLong(index, NATIVE_ORDER == byteOrder ? value : Long.reverseBytes(value));
    }

    @Override
    public final int getInt(final int index)
    {
        return (int)INT.get(memory, at(index, SIZE_OF_INT));
    }

    @Override
    public final int getInt(final int index, final ByteOrder byteOrder)
    {
        final int bits = getInt(index);
        return NATIVE_ORDER == byteOrder ? bits : Integer.reverseBytes(bits);
    }

    @Override
    public final void putInt(final int index, final int value)
    {
        INT.set(memory, at(index, SIZE_OF_INT), value);
    }

    @Override
    public final void putInt(final int index, final int value, final ByteOrder byteOrder)
    {
        putInt(index, NATIVE_ORDER == byteOrder ? value : Integer.reverseBytes(value));
    }

    @Override
    public final double getDouble(final int index)
    {
        return Double.longBitsToDouble((long)LONG.get(memory, at(index, SIZE_OF_DOUBLE)));
    }

    @Override
    public final double getDouble(final int index, final ByteOrder byteOrder)
    {
        return Double.longBitsToDouble(getLong(index, byteOrder));
    }

    @Override
    public final void putDouble(final int index, final double value)
    {
        LONG.set(memory, at(index, SIZE_OF_DOUBLE), Double.doubleToRawLongBits(value));
    }

    @Override
    public final void putDouble(final int index, final double value, final ByteOrder byteOrder)
    {
        putLong(index, Double.doubleToRawLongBits(value), byteOrder);
    }

    @Override
    public final float getFloat(final int index)
    {
        return Float.intBitsToFloat((int)INT.get(memory, at(index, SIZE_OF_FLOAT)));
    }

    @Override
    public final float getFloat(final int index, final ByteOrder byteOrder)
    {
        return Float.intBitsToFloat(getInt(index, byteOrder));
    }

    @Override
    public final void putFloat(final int index, final float value)
    {
        INT.set(memory, at(index, SIZE_OF_FLOAT), Float.floatToRawIntBits(value));
    }

    @Override
    public final void putFloat(final int index, final float value, final ByteOrder byteOrder)
    {
        putInt(index, Float.floatToRawIntBits(value), byteOrder);
    }

    @Override
    public final short getShort(final int index)
    {
        return (short)SHORT.get(memory, at(index, SIZE_OF_SHORT));
    }

    @Override
    public final short getShort(final int index, final ByteOrder byteOrder)
    {
        final short bits = getShort(index);
        return NATIVE_ORDER == byteOrder ? bits : Short.reverseBytes(bits);
    }

    @Override
    public final void putShort(final int index, final short value)
    {
        SHORT.set(memory, at(index, SIZE_OF_SHORT), value);
    }

    @Override
    public final void putShort(final int index, final short value, final ByteOrder byteOrder)
    {
        putShort(index, NATIVE_ORDER == byteOrder ? value : Short.reverseBytes(value));
    }

    @Override
    public final char getChar(final int index)
    {
        return (char)CHAR.get(memory, at(index, SIZE_OF_CHAR));
    }

    @Override
    public final char getChar(final int index, final ByteOrder byteOrder)
    {
        final char bits = getChar(index);
        return NATIVE_ORDER == byteOrder ? bits : Character.reverseBytes(bits);
    }

    @Override
    public final void putChar(final int index, final char value)
    {
        CHAR.set(memory, at(index, SIZE_OF_CHAR), value);
    }

    @Override
    public final void putChar(final int index, final char value, final ByteOrder byteOrder)
    {
        putChar(index, NATIVE_ORDER == byteOrder ? value : Character.reverseBytes(value));
    }

    @Override
    public final byte getByte(final int index)
    {
        return memory.get(at(index, SIZE_OF_BYTE));
    }

    @Override
    public final void putByte(final int index, final byte value)
    {
        memory.put(at(index, SIZE_OF_BYTE), value);
    }

    @Override
    public final void getBytes(final int index, final byte[] dst)
    {
        memory.get(at(index, dst.length), dst, 0, dst.length);
    }

    @Override
    public final void getBytes(final int index, final byte[] dst, final int offset, final int length)
    {
        final int from = at(index, length);
        Objects.checkFromIndexSize(offset, length, dst.length);
        memory.get(from, dst, offset, length);
    }

    /**
     * Another buffer of ours copies from this one as {@code UnsafeBuffer} does ({@code putBytes} from this); any
     * other is given this buffer's memory as a ByteBuffer, since it cannot read this one's (absent) address. The
     * destination's range is checked first either way, unless it can expand.
     */
    @Override
    public final void getBytes(final int index, final MutableDirectBuffer dstBuffer, final int dstIndex,
        final int length)
    {
        if (dstBuffer instanceof ByteBufferRegion)
        {
            dstBuffer.putBytes(dstIndex, this, index, length);
            return;
        }
        if (!dstBuffer.isExpandable())
        {
            dstBuffer.boundsCheck(dstIndex, length);
        }
        dstBuffer.putBytes(dstIndex, memory, at(index, length), length);
    }

    @Override
    public final void getBytes(final int index, final ByteBuffer dstBuffer, final int length)
    {
        final int dstOffset = dstBuffer.position();
        getBytes(index, dstBuffer, dstOffset, length);
        dstBuffer.position(dstOffset + length);
    }

    /** Like {@code UnsafeBuffer}, bounded by the destination's capacity, not its limit. */
    @Override
    public final void getBytes(final int index, final ByteBuffer dstBuffer, final int dstOffset, final int length)
    {
        final int from = at(index, length);
        Objects.checkFromIndexSize(dstOffset, length, dstBuffer.capacity());
        wholeOf(dstBuffer, dstOffset + length).put(dstOffset, memory, from, length);
    }

    @Override
    public final void putBytes(final int index, final byte[] src)
    {
        memory.put(at(index, src.length), src, 0, src.length);
    }

    @Override
    public final void putBytes(final int index, final byte[] src, final int offset, final int length)
    {
        final int to = at(index, length);
        Objects.checkFromIndexSize(offset, length, src.length);
        memory.put(to, src, offset, length);
    }

    @Override
    public final void putBytes(final int index, final ByteBuffer srcBuffer, final int length)
    {
        final int srcIndex = srcBuffer.position();
        putBytes(index, srcBuffer, srcIndex, length);
        srcBuffer.position(srcIndex + length);
    }

    /** Like {@code UnsafeBuffer}, bounded by the source's capacity, not its limit. */
    @Override
    public final void putBytes(final int index, final ByteBuffer srcBuffer, final int srcIndex, final int length)
    {
        final int to = at(index, length);
        Objects.checkFromIndexSize(srcIndex, length, srcBuffer.capacity());
        memory.put(to, wholeOf(srcBuffer, srcIndex + length), srcIndex, length);
    }

    /** Copies through the source's own {@code getBytes} into this buffer's memory, whatever kind it is. */
    @Override
    public final void putBytes(final int index, final DirectBuffer srcBuffer, final int srcIndex, final int length)
    {
        final int to = at(index, length);
        srcBuffer.boundsCheck(srcIndex, length);
        srcBuffer.getBytes(srcIndex, memory, to, length);
    }

    /** @return the buffer itself when its limit allows {@code end}, else a duplicate spanning its capacity. */
    private static ByteBuffer wholeOf(final ByteBuffer buffer, final int end)
    {
        return end <= buffer.limit() ? buffer : buffer.duplicate().clear();
    }

    @Override
    public final void setMemory(final int index, final int length, final byte value)
    {
        final int from = at(index, length);
        if (byteArray != null)
        {
            Arrays.fill(byteArray, from, from + length, value);
            return;
        }
        final long word = (value & 0xFFL) * 0x0101010101010101L;
        int i = 0;
        for (final int words = length & ~7; i < words; i += SIZE_OF_LONG)
        {
            LONG.set(memory, from + i, word);
        }
        for (; i < length; i++)
        {
            memory.put(from + i, value);
        }
    }
}
