package io.directlog.storage.buffer;

import static io.directlog.storage.buffer.ByteBufferRegion.CHAR;
import static io.directlog.storage.buffer.ByteBufferRegion.INT;
import static io.directlog.storage.buffer.ByteBufferRegion.LONG;
import static io.directlog.storage.buffer.ByteBufferRegion.SHORT;

import java.nio.ByteBuffer;

/**
 * Atomic and ordered access to heap memory (a {@code byte[]} or a heap {@link ByteBuffer}) by holding a monitor:
 * JDK 22 and later support no atomic VarHandle access mode on heap byte buffers or byte[] views, so every atomic
 * access of a {@link ByteBufferAtomicBuffer} over heap memory takes the monitor of the array (or of the read-only
 * buffer) and does plain accesses inside. Atomic with each other, over any buffer of ours on the same array, and
 * at any alignment; not with other code's accesses to the array.
 * <p>
 * Stateless; {@code memory} positions are absolute and already checked.
 */
final class HeapAtomics
{
    private HeapAtomics()
    {
    }

    static long getLong(final Object lock, final ByteBuffer memory, final int at)
    {
        synchronized (lock)
        {
            return (long)LONG.get(memory, at);
        }
    }

    static void putLong(final Object lock, final ByteBuffer memory, final int at, final long value)
    {
        synchronized (lock)
        {
            LONG.set(memory, at, value);
        }
    }

    static long getAndAddLong(final Object lock, final ByteBuffer memory, final int at, final long delta)
    {
        synchronized (lock)
        {
            final long old = (long)LONG.get(memory, at);
            LONG.set(memory, at, old + delta);
            return old;
        }
    }

    static long getAndSetLong(final Object lock, final ByteBuffer memory, final int at, final long value)
    {
        synchronized (lock)
        {
            final long old = (long)LONG.get(memory, at);
            LONG.set(memory, at, value);
            return old;
        }
    }

    static long compareAndExchangeLong(final Object lock, final ByteBuffer memory, final int at, final long expected,
        final long update)
    {
        synchronized (lock)
        {
            final long old = (long)LONG.get(memory, at);
            if (old == expected)
            {
                LONG.set(memory, at, update);
            }
            return old;
        }
    }

    static int getInt(final Object lock, final ByteBuffer memory, final int at)
    {
        synchronized (lock)
        {
            return (int)INT.get(memory, at);
        }
    }

    static void putInt(final Object lock, final ByteBuffer memory, final int at, final int value)
    {
        synchronized (lock)
        {
            INT.set(memory, at, value);
        }
    }

    static int getAndAddInt(final Object lock, final ByteBuffer memory, final int at, final int delta)
    {
        synchronized (lock)
        {
            final int old = (int)INT.get(memory, at);
            INT.set(memory, at, old + delta);
            return old;
        }
    }

    static int getAndSetInt(final Object lock, final ByteBuffer memory, final int at, final int value)
    {
        synchronized (lock)
        {
            final int old = (int)INT.get(memory, at);
            INT.set(memory, at, value);
            return old;
        }
    }

    static int compareAndExchangeInt(final Object lock, final ByteBuffer memory, final int at, final int expected,
        final int update)
    {
        synchronized (lock)
        {
            final int old = (int)INT.get(memory, at);
            if (old == expected)
            {
                INT.set(memory, at, update);
            }
            return old;
        }
    }

    static short getShort(final Object lock, final ByteBuffer memory, final int at)
    {
        synchronized (lock)
        {
            return (short)SHORT.get(memory, at);
        }
    }

    static void putShort(final Object lock, final ByteBuffer memory, final int at, final short value)
    {
        synchronized (lock)
        {
            SHORT.set(memory, at, value);
        }
    }

    static char getChar(final Object lock, final ByteBuffer memory, final int at)
    {
        synchronized (lock)
        {
            return (char)CHAR.get(memory, at);
        }
    }

    static void putChar(final Object lock, final ByteBuffer memory, final int at, final char value)
    {
        synchronized (lock)
        {
            CHAR.set(memory, at, value);
        }
    }

    static byte getByte(final Object lock, final ByteBuffer memory, final int at)
    {
        synchronized (lock)
        {
            return memory.get(at);
        }
    }

    static void putByte(final Object lock, final ByteBuffer memory, final int at, final byte value)
    {
        synchronized (lock)
        {
            memory.put(at, value);
        }
    }
}
