package io.directlog.storage.buffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.directlog.storage.TestSeed;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ByteBufferAtomicBuffer} against Agrona's {@link UnsafeBuffer} (which works here: the test JVM has the
 * add-opens flag): the same random operations on both over equal memory must give the same results, the same
 * exceptions and the same bytes; then targeted cases, Agrona's ring buffer over it, and a child JVM without any flag.
 */
@ExtendWith(TestSeed.class)
class ByteBufferAtomicBufferTest
{
    private static final int CAPACITY = 256;
    private static final int SLACK = 24;
    private static final int OPERATIONS = 4_000;
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();
    private static final ByteOrder SWAPPED = NATIVE == ByteOrder.LITTLE_ENDIAN ? ByteOrder.BIG_ENDIAN :
        ByteOrder.LITTLE_ENDIAN;

    /** The memory under both buffers of a pair. */
    enum Backing
    {
        DIRECT, HEAP_BUFFER, HEAP_SLICE, ARRAY
    }

    /** The buffer under test and the reference over equal copies of the same bytes. */
    record Pair(UnsafeBuffer expected, ByteBufferAtomicBuffer actual, boolean direct, int misalignment)
    {
        /** @return an index of [0, CAPACITY - size] whose atomic access is legal for both (aligned if direct). */
        int atomicIndex(final Random random, final int size)
        {
            int index = random.nextInt(CAPACITY - size + 1);
            if (direct)
            {
                index -= (misalignment + index) % size;
                if (index < 0)
                {
                    index += size;
                }
            }
            return index;
        }
    }

    /** One operation with its arguments drawn, to run on either buffer; returns what it observed. */
    @FunctionalInterface
    interface Step
    {
        Object on(AtomicBuffer buffer) throws Exception;
    }

    private static Pair pair(final Backing backing, final int offset, final long seed)
    {
        final byte[] content = new byte[CAPACITY + SLACK];
        new Random(seed).nextBytes(content);
        final UnsafeBuffer expected;
        final ByteBufferAtomicBuffer actual;
        int misalignment = 0;
        switch (backing)
        {
            case DIRECT ->
            {
                final ByteBuffer a = ByteBuffer.allocateDirect(content.length).put(content).clear();
                final ByteBuffer b = ByteBuffer.allocateDirect(content.length).put(content).clear();
                misalignment = b.alignmentOffset(offset, Long.BYTES);
                assertEquals(a.alignmentOffset(offset, Long.BYTES), misalignment,
                    "both direct buffers must be equally aligned for the same atomic indexes to be legal");
                expected = new UnsafeBuffer(a, offset, CAPACITY);
                actual = new ByteBufferAtomicBuffer(b, offset, CAPACITY);
            }
            case HEAP_BUFFER ->
            {
                expected = new UnsafeBuffer(ByteBuffer.wrap(content.clone()), offset, CAPACITY);
                actual = new ByteBufferAtomicBuffer(ByteBuffer.wrap(content.clone()), offset, CAPACITY);
            }
            case HEAP_SLICE ->
            {
                // a heap ByteBuffer whose array offset is not 0: wrapAdjustment counts both
                final int sliceAt = 5;
                final int length = content.length - sliceAt;
                expected = new UnsafeBuffer(ByteBuffer.wrap(content.clone(), sliceAt, length).slice(), offset,
                    CAPACITY);
                actual = new ByteBufferAtomicBuffer(ByteBuffer.wrap(content.clone(), sliceAt, length).slice(),
                    offset, CAPACITY);
            }
            default ->
            {
                expected = new UnsafeBuffer(content.clone(), offset, CAPACITY);
                actual = new ByteBufferAtomicBuffer(content.clone(), offset, CAPACITY);
            }
        }
        return new Pair(expected, actual, backing == Backing.DIRECT, misalignment);
    }

    private static byte[] bytesOf(final AtomicBuffer buffer)
    {
        final byte[] bytes = new byte[buffer.capacity()];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    /** @return what a step observed: its value (floats as their bits, arrays as text) or the exception it threw. */
    private static String observe(final Step step, final AtomicBuffer buffer)
    {
        try
        {
            final Object value = step.on(buffer);
            if (value instanceof Double d)
            {
                return "double bits " + Double.doubleToRawLongBits(d);
            }
            if (value instanceof Float f)
            {
                return "float bits " + Float.floatToRawIntBits(f);
            }
            if (value instanceof byte[] bytes)
            {
                return Arrays.toString(bytes);
            }
            return String.valueOf(value);
        }
        catch (final Exception | AssertionError e)
        {
            return "threw " + e.getClass().getName() + ": " + e.getMessage();
        }
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void randomOperationsMatchUnsafeBuffer(final Backing backing)
    {
        final long seed = TestSeed.seed() ^ backing.name().hashCode();
        for (final int offset : new int[] {0, 3, 8})
        {
            final Random random = new Random(seed + offset);
            final Pair pair = pair(backing, offset, seed + offset);
            assertArrayEquals(bytesOf(pair.expected()), bytesOf(pair.actual()));
            final List<String> history = new ArrayList<>();
            for (int i = 0; i < OPERATIONS; i++)
            {
                final int kind = random.nextInt(RandomSteps.KINDS);
                final Step step = RandomSteps.draw(kind, random, pair);
                final String expected = observe(step, pair.expected());
                final String actual = observe(step, pair.actual());
                history.add(kind + " -> " + expected);
                final String where = backing + " offset " + offset + " step " + i + " (kind " + kind + "); last " +
                    history.subList(Math.max(0, history.size() - 5), history.size()) + " " + TestSeed.replayOption();
                assertEquals(expected, actual, where);
                assertArrayEquals(bytesOf(pair.expected()), bytesOf(pair.actual()), where);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void boundsErrorsAreUnsafeBuffersIndexOutOfBounds(final Backing backing)
    {
        final Pair pair = pair(backing, 0, 1);
        final List<Function<AtomicBuffer, Object>> accesses = List.of(
            b -> b.getLong(CAPACITY - 7), b -> b.getLong(-1, SWAPPED), b -> b.getInt(CAPACITY - 3),
            b -> b.getShort(CAPACITY - 1), b -> b.getChar(-1), b -> b.getByte(CAPACITY), b -> b.getDouble(CAPACITY),
            b -> b.getFloat(CAPACITY - 2), b -> { b.putLong(CAPACITY - 4, 1L); return null; },
            b -> { b.putInt(-4, 1); return null; }, b -> { b.putByte(CAPACITY, (byte)1); return null; },
            b -> { b.putBytes(CAPACITY - 2, new byte[3]); return null; },
            b -> { b.getBytes(CAPACITY - 2, new byte[3]); return null; },
            b -> { b.getBytes(0, new byte[3], 2, 2); return null; },
            b -> { b.setMemory(CAPACITY - 10, 11, (byte)1); return null; },
            b -> { b.boundsCheck(CAPACITY, 1); return null; }, b -> { b.checkLimit(CAPACITY + 1); return null; },
            b -> b.getLongVolatile(CAPACITY - 8 + 8), b -> b.compareAndSetInt(CAPACITY, 0, 1),
            b -> b.getAndAddLong(-8, 1L), b -> b.getStringAscii(CAPACITY - 3), b -> b.getStringUtf8(0, CAPACITY),
            b -> b.putStringAscii(CAPACITY - 5, "ab"), b -> b.putStringUtf8(CAPACITY - 5, "ab"),
            b -> b.parseLongAscii(CAPACITY - 1, 2), b -> b.putLongAscii(CAPACITY - 2, 123L),
            b -> b.putIntAscii(CAPACITY - 1, Integer.MIN_VALUE));
        for (int i = 0; i < accesses.size(); i++)
        {
            final Function<AtomicBuffer, Object> access = accesses.get(i);
            final IndexOutOfBoundsException expected = assertThrows(IndexOutOfBoundsException.class,
                () -> access.apply(pair.expected()), "UnsafeBuffer, access " + i);
            final IndexOutOfBoundsException actual = assertThrows(IndexOutOfBoundsException.class,
                () -> access.apply(pair.actual()), "ByteBufferAtomicBuffer, access " + i);
            assertEquals(expected.getMessage(), actual.getMessage(), "access " + i);
        }
        assertArrayEquals(bytesOf(pair.expected()), bytesOf(pair.actual()), "a failed access writes nothing");
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void casAndGetAndAddFollowTheirContracts(final Backing backing)
    {
        final ByteBufferAtomicBuffer buffer = pair(backing, 0, 2).actual();
        final int at = pair(backing, 0, 2).atomicIndex(new Random(3), Long.BYTES);
        buffer.putLongVolatile(at, 10L);
        assertFalse(buffer.compareAndSetLong(at, 11L, 20L));
        assertEquals(10L, buffer.getLongVolatile(at));
        assertTrue(buffer.compareAndSetLong(at, 10L, 20L));
        assertEquals(20L, buffer.compareAndExchangeLong(at, 5L, 30L));
        assertEquals(20L, buffer.compareAndExchangeLong(at, 20L, 30L));
        assertEquals(30L, buffer.getAndAddLong(at, -31L));
        assertEquals(-1L, buffer.getAndSetLong(at, Long.MAX_VALUE));
        assertEquals(Long.MAX_VALUE, buffer.addLongRelease(at, 1L));
        assertEquals(Long.MIN_VALUE, buffer.getLongAcquire(at));
        assertEquals(Long.MIN_VALUE, buffer.addLongOpaque(at, 2L));
        assertEquals(Long.MIN_VALUE + 2, buffer.getLongOpaque(at));
        buffer.putIntRelease(at + 4, 7);
        assertTrue(buffer.compareAndSetInt(at + 4, 7, 8));
        assertEquals(8, buffer.getAndAddInt(at + 4, 2));
        assertEquals(10, buffer.getAndSetInt(at + 4, -1));
        assertEquals(-1, buffer.addIntOrdered(at + 4, 1));
        assertEquals(0, buffer.getIntVolatile(at + 4));
        buffer.putShortVolatile(at, (short)-2);
        buffer.putCharVolatile(at + 2, 'x');
        buffer.putByteVolatile(at + 4, (byte)-3);
        assertEquals((short)-2, buffer.getShortVolatile(at));
        assertEquals('x', buffer.getCharVolatile(at + 2));
        assertEquals((byte)-3, buffer.getByteVolatile(at + 4));
    }

    @Test
    void atomicsAreAtomicUnderContentionOnDirectAndHeapMemory() throws Exception
    {
        for (final Backing backing : Backing.values())
        {
            final ByteBufferAtomicBuffer buffer = pair(backing, 0, 4).actual();
            final int at = pair(backing, 0, 4).atomicIndex(new Random(5), Long.BYTES);
            buffer.putLongVolatile(at, 0L);
            final int threads = 2;
            final int perThread = 20_000;
            final List<Thread> adders = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                final Thread adder = new Thread(() ->
                {
                    for (int i = 0; i < perThread; i++)
                    {
                        if ((i & 1) == 0)
                        {
                            buffer.getAndAddLong(at, 1L);
                        }
                        else
                        {
                            long seen;
                            do
                            {
                                seen = buffer.getLongVolatile(at);
                            }
                            while (!buffer.compareAndSetLong(at, seen, seen + 1));
                        }
                    }
                }, "adder-" + t);
                adder.start();
                adders.add(adder);
            }
            for (final Thread adder : adders)
            {
                adder.join(TimeUnit.SECONDS.toMillis(60));
                assertFalse(adder.isAlive(), adder.getName() + " did not finish within 60 s");
            }
            assertEquals((long)threads * perThread, buffer.getLongVolatile(at), backing.toString());
        }
    }

    @Test
    void misalignedAtomicAccessToDirectMemoryIsAnIllegalStateNamingTheIndex()
    {
        final ByteBuffer memory = ByteBuffer.allocateDirect(64);
        final int aligned = (Long.BYTES - memory.alignmentOffset(0, Long.BYTES)) % Long.BYTES;
        final ByteBufferAtomicBuffer buffer = new ByteBufferAtomicBuffer(memory, aligned, 32);
        buffer.verifyAlignment();
        final IllegalStateException e = assertThrows(IllegalStateException.class, () -> buffer.getLongVolatile(4));
        assertTrue(e.getMessage().contains("index 4"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> buffer.compareAndSetInt(2, 0, 1));
        assertThrows(IllegalStateException.class, () -> buffer.putShortVolatile(1, (short)1));
        assertEquals(0L, buffer.getLong(4), "plain access may be misaligned");
        final ByteBufferAtomicBuffer shifted = new ByteBufferAtomicBuffer(memory, aligned + 1, 32);
        assertThrows(IllegalStateException.class, shifted::verifyAlignment);
        // heap memory: any alignment, as UnsafeBuffer on x86
        final ByteBufferAtomicBuffer heap = new ByteBufferAtomicBuffer(new byte[64], 1, 32);
        heap.putLongVolatile(3, 42L);
        assertEquals(42L, heap.getAndAddLong(3, 1L));
        assertEquals(43L, heap.getLong(3));
    }

    @Test
    void asciiAndUtf8StringsMatchUnsafeBuffer()
    {
        final Pair pair = pair(Backing.DIRECT, 0, 6);
        final String[] values = {"", "plain", "caf\u00e9 \u4e2d\u6587 \ud83d\ude00", null, "tab\there", "\u007f\u0080"};
        for (final String value : values)
        {
            for (final ByteOrder order : new ByteOrder[] {NATIVE, SWAPPED})
            {
                final List<Step> steps = List.of(
                    b -> b.putStringAscii(0, value, order) + "|" + b.getStringAscii(0, order),
                    b -> b.putStringAscii(0, (CharSequence)value) + "|" + b.getStringAscii(0) + "|" +
                        b.getStringAscii(0, appendable()) + "|" + b.getStringAscii(0, 3),
                    b -> b.putStringUtf8(0, value, order) + "|" + b.getStringUtf8(0, order),
                    b -> b.putStringUtf8(0, value) + "|" + b.getStringUtf8(0) + "|" + b.getStringUtf8(0, 2),
                    b -> b.putStringUtf8(0, value, 4),
                    b -> b.putStringWithoutLengthUtf8(0, value) + "|" + b.getStringWithoutLengthUtf8(0, 6),
                    b -> b.putStringWithoutLengthAscii(0, value) + "|" + b.getStringWithoutLengthAscii(0, 6),
                    b -> b.putStringWithoutLengthAscii(0, value, 1, 3) + "|" +
                        b.getStringWithoutLengthAscii(0, 6, appendable()),
                    b -> b.putStringWithoutLengthAscii(0, (CharSequence)value, 2, 10));
                for (final Step step : steps)
                {
                    assertEquals(observe(step, pair.expected()), observe(step, pair.actual()), String.valueOf(value));
                    assertArrayEquals(bytesOf(pair.expected()), bytesOf(pair.actual()), String.valueOf(value));
                }
            }
        }
    }

    private static Appendable appendable()
    {
        return new StringBuilder();
    }

    @Test
    void asciiNumbersMatchUnsafeBufferAtTheLimits()
    {
        final Pair pair = pair(Backing.ARRAY, 0, 7);
        final long[] values = {0, 1, -1, 9, 10, -10, 99, 100, Integer.MAX_VALUE, Integer.MIN_VALUE,
            Integer.MAX_VALUE + 1L, Integer.MIN_VALUE - 1L, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1,
            999_999_999L, 1_000_000_000L, 99_999_999_999_999_999L, 100_000_000_000_000_000L};
        for (final long value : values)
        {
            final List<Step> steps = new ArrayList<>(List.of(
                b -> b.putLongAscii(0, value) + "|" + b.parseLongAscii(0, Long.toString(value).length()),
                b -> b.putIntAscii(0, (int)value) + "|" + b.parseIntAscii(0, Integer.toString((int)value).length())));
            if (value >= 0)
            {
                steps.add(b -> b.putNaturalLongAscii(0, value) + "|" +
                    b.parseNaturalLongAscii(0, Long.toString(value).length()));
            }
            if ((int)value >= 0)
            {
                steps.add(b -> b.putNaturalIntAscii(0, (int)value) + "|" +
                    b.parseNaturalIntAscii(0, Integer.toString((int)value).length()));
                steps.add(b -> b.putNaturalIntAsciiFromEnd((int)value, 20));
                steps.add(b ->
                {
                    b.putNaturalPaddedIntAscii(0, 6, (int)value);
                    return null;
                });
            }
            for (final Step step : steps)
            {
                assertEquals(observe(step, pair.expected()), observe(step, pair.actual()), Long.toString(value));
                assertArrayEquals(bytesOf(pair.expected()), bytesOf(pair.actual()), Long.toString(value));
            }
        }
        final String[] texts = {"", "-", "+1", "-0", "007", "12a", "a12", "2147483647", "2147483648", "-2147483648",
            "-2147483649", "21474836470", "0000000001", "00000000001", "9223372036854775807", "9223372036854775808",
            "-9223372036854775808", "-9223372036854775809", "99999999999999999999", "9223372036854775x07",
            "92233720x6854775807", "9999999999999999x99", "1844674407370955161", "-0000000000000000001",
            "--1", "1-", " 1"};
        for (final String text : texts)
        {
            final Step put = b -> b.putStringWithoutLengthAscii(0, text);
            observe(put, pair.expected());
            observe(put, pair.actual());
            final int length = text.length();
            final List<Step> parses = List.of(b -> b.parseIntAscii(0, length), b -> b.parseLongAscii(0, length),
                b -> b.parseNaturalIntAscii(0, length), b -> b.parseNaturalLongAscii(0, length));
            for (final Step parse : parses)
            {
                assertEquals(observe(parse, pair.expected()), observe(parse, pair.actual()), '"' + text + '"');
            }
        }
    }

    @Test
    void naturalWritersRejectNegativeValues()
    {
        final ByteBufferAtomicBuffer buffer = new ByteBufferAtomicBuffer(new byte[32]);
        assertThrows(IllegalArgumentException.class, () -> buffer.putNaturalIntAscii(0, -1));
        assertThrows(IllegalArgumentException.class, () -> buffer.putNaturalLongAscii(0, -1L));
        assertThrows(IllegalArgumentException.class, () -> buffer.putNaturalPaddedIntAscii(0, 4, -1));
        assertThrows(IllegalArgumentException.class, () -> buffer.putNaturalIntAsciiFromEnd(-1, 8));
        assertThrows(NumberFormatException.class, () -> buffer.putNaturalPaddedIntAscii(0, 2, 123));
    }

    @Test
    void equalsHashCodeAndCompareToMatchUnsafeBuffer()
    {
        final Random random = new Random(TestSeed.seed() ^ 0x5eed);
        for (int i = 0; i < 2_000; i++)
        {
            final byte[] a = new byte[random.nextInt(20)];
            random.nextBytes(a);
            final byte[] b;
            switch (random.nextInt(4))
            {
                case 0 -> b = a.clone();
                case 1 ->
                {
                    b = a.clone();
                    if (b.length > 0)
                    {
                        b[random.nextInt(b.length)] = (byte)random.nextInt();
                    }
                }
                case 2 -> b = Arrays.copyOf(a, random.nextInt(a.length + 1));
                default ->
                {
                    b = new byte[random.nextInt(20)];
                    random.nextBytes(b);
                }
            }
            final UnsafeBuffer ua = new UnsafeBuffer(a);
            final UnsafeBuffer ub = new UnsafeBuffer(b);
            final ByteBufferAtomicBuffer ba = new ByteBufferAtomicBuffer(ByteBuffer.allocateDirect(a.length).put(a));
            final ByteBufferAtomicBuffer bb = new ByteBufferAtomicBuffer(b);
            final String what = Arrays.toString(a) + " vs " + Arrays.toString(b) + " " + TestSeed.replayOption();
            assertEquals(ua.compareTo(ub), ba.compareTo(bb), what);
            assertEquals(ua.compareTo(ub), ba.compareTo(ub), what);
            assertEquals(ua.equals(ub), ba.equals(bb), what);
            assertEquals(ua.hashCode(), ba.hashCode(), what);
            assertEquals(ub.hashCode(), bb.hashCode(), what);
        }
        final ByteBufferAtomicBuffer ours = new ByteBufferAtomicBuffer(new byte[] {1, 2});
        assertNotEquals(ours, new UnsafeBuffer(new byte[] {1, 2}), "equal only to the same class, as UnsafeBuffer");
        assertEquals(ours, new ByteBufferAtomicBuffer(ByteBuffer.allocateDirect(2).put(new byte[] {1, 2})));
    }

    @ParameterizedTest
    @EnumSource(value = Backing.class, names = {"DIRECT", "ARRAY"})
    void agronasManyToOneRingBufferWorksOverIt(final Backing backing)
    {
        final int capacity = 64 * 1024 + RingBufferDescriptor.TRAILER_LENGTH;
        final ByteBufferAtomicBuffer memory = backing == Backing.DIRECT ?
            new ByteBufferAtomicBuffer(ByteBuffer.allocateDirect(capacity)) :
            new ByteBufferAtomicBuffer(new byte[capacity]);
        final ManyToOneRingBuffer ring = new ManyToOneRingBuffer(memory);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[512]);
        final Random random = new Random(TestSeed.seed() ^ 0x0419);
        final int messages = 5_000;
        final long[] sums = new long[2];
        int written = 0;
        int read = 0;
        while (read < messages)
        {
            while (written < messages && random.nextInt(3) != 0)
            {
                final int length = 8 + random.nextInt(300);
                message.putLong(0, written);
                message.setMemory(Long.BYTES, length - Long.BYTES, (byte)written);
                if (!ring.write(1 + written % 7, message, 0, length))
                {
                    break;
                }
                written++;
            }
            final int expectedFirst = read;
            read += ring.read((type, buffer, index, length) ->
            {
                final long sequence = buffer.getLong(index);
                assertEquals(1 + sequence % 7, type);
                for (int i = Long.BYTES; i < length; i++)
                {
                    assertEquals((byte)sequence, buffer.getByte(index + i));
                }
                sums[0] += sequence;
                sums[1]++;
            });
            assertTrue(read > expectedFirst || written > read || written < messages, "no progress");
        }
        assertEquals(messages, sums[1]);
        assertEquals((long)messages * (messages - 1) / 2, sums[0], "every message once, none lost or repeated");
        assertEquals(ring.producerPosition(), ring.consumerPosition());
    }

    @Test
    void wrapsLikeUnsafeBufferAndRefusesWhatNeedsUnsafe()
    {
        final byte[] array = new byte[40];
        final ByteBuffer heap = ByteBuffer.wrap(new byte[48], 4, 40).slice();
        final ByteBuffer direct = ByteBuffer.allocateDirect(40);
        final ByteBufferAtomicBuffer buffer = new ByteBufferAtomicBuffer();
        final UnsafeBuffer reference = new UnsafeBuffer();
        assertEquals(reference.capacity(), buffer.capacity());
        for (final Object memory : new Object[] {array, heap, direct})
        {
            if (memory instanceof byte[] bytes)
            {
                buffer.wrap(bytes, 3, 30);
                reference.wrap(bytes, 3, 30);
            }
            else
            {
                buffer.wrap((ByteBuffer)memory, 3, 30);
                reference.wrap((ByteBuffer)memory, 3, 30);
            }
            assertEquals(reference.capacity(), buffer.capacity());
            assertEquals(reference.wrapAdjustment(), buffer.wrapAdjustment());
            assertSame(reference.byteArray(), buffer.byteArray());
            assertSame(reference.byteBuffer(), buffer.byteBuffer());
            assertFalse(buffer.isExpandable());
            buffer.putLong(0, 0x0102030405060708L);
            assertEquals(0x0102030405060708L, reference.getLong(0), "the same memory");
            final ByteBufferAtomicBuffer view = new ByteBufferAtomicBuffer(buffer, 8, 8);
            final UnsafeBuffer referenceView = new UnsafeBuffer(reference, 8, 8);
            assertEquals(referenceView.wrapAdjustment(), view.wrapAdjustment());
            view.putInt(0, 77);
            assertEquals(77, referenceView.getInt(0));
            final ByteBufferAtomicBuffer fromUnsafe = new ByteBufferAtomicBuffer(referenceView);
            assertEquals(77, fromUnsafe.getInt(0), "wraps an UnsafeBuffer's memory through its wrapAdjustment");
            assertEquals(referenceView.wrapAdjustment(), fromUnsafe.wrapAdjustment());
        }
        final UnsupportedOperationException raw = assertThrows(UnsupportedOperationException.class,
            () -> buffer.wrap(direct.hashCode(), 8));
        assertTrue(raw.getMessage().contains("Unsafe"), raw.getMessage());
        assertThrows(UnsupportedOperationException.class, buffer::addressOffset);
        assertThrows(UnsupportedOperationException.class,
            () -> new ByteBufferAtomicBuffer(new UnsafeBuffer(reference.addressOffset(), 8)));
        assertThrows(IndexOutOfBoundsException.class, () -> buffer.wrap(array, 30, 11));
        assertTrue(buffer.toString().startsWith("ByteBufferAtomicBuffer{"), buffer.toString());
    }

    @Test
    void aReadOnlyByteBufferStaysReadOnly()
    {
        final ByteBuffer heap = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}).asReadOnlyBuffer();
        final ByteBufferAtomicBuffer buffer = new ByteBufferAtomicBuffer(heap);
        assertNull(buffer.byteArray(), "a read-only buffer's array cannot be had without Unsafe");
        assertEquals(new UnsafeBuffer(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}).getLong(0), buffer.getLong(0));
        assertEquals(buffer.getLong(0), buffer.getLongVolatile(0));
        assertThrows(ReadOnlyBufferException.class, () -> buffer.putByte(0, (byte)0));
        assertThrows(ReadOnlyBufferException.class, () -> buffer.putLongVolatile(0, 0L));
        assertThrows(ReadOnlyBufferException.class, () -> buffer.setMemory(0, 8, (byte)0));
        final ByteBufferAtomicBuffer direct = new ByteBufferAtomicBuffer(ByteBuffer.allocateDirect(8)
            .asReadOnlyBuffer());
        assertThrows(ReadOnlyBufferException.class, () -> direct.putInt(0, 1));
    }

    @Test
    void worksInAJvmWithoutAnyFlag() throws IOException, InterruptedException
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
            BareJvmChild.class.getName()).redirectErrorStream(true).start();
        child.getOutputStream().close();
        final String text;
        try
        {
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child did not finish within 60 s");
            text = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
        finally
        {
            child.destroyForcibly();
        }
        assertEquals(0, child.exitValue(), text);
        assertTrue(text.contains(BareJvmChild.UNSAFE_REFUSED), "the child's JVM must refuse UnsafeBuffer: " + text);
        assertTrue(text.contains(BareJvmChild.DONE), text);
    }
}
