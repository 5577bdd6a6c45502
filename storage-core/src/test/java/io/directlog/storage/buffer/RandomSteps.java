package io.directlog.storage.buffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The random operations of {@link ByteBufferAtomicBufferTest}: each kind draws its arguments once and returns a
 * step that runs them on either buffer of a pair and returns what it saw (anything the buffer returned, and what
 * it wrote outside itself).
 */
final class RandomSteps
{
    static final int KINDS = 24;
    private static final int CAPACITY = 256;
    private static final String ALPHABET = "abcxyzABC019 -+\t~\u007f\u00e9\u00ff\u4e2d\ud83d\ude00";
    private static final String[] NUMBERS = {"0", "-0", "2147483647", "2147483648", "-2147483648", "-2147483649",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "-", ""};

    private RandomSteps()
    {
    }

    static ByteBufferAtomicBufferTest.Step draw(final int kind, final Random random,
        final ByteBufferAtomicBufferTest.Pair pair)
    {
        final ByteOrder order = random.nextBoolean() ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        final boolean ordered = random.nextBoolean();
        final long value = random.nextLong() >> random.nextInt(64);
        final int variant = random.nextInt(4);
        return switch (kind)
        {
            case 0 -> typed(random, Long.BYTES, i -> b -> ordered ? b.getLong(i, order) : b.getLong(i),
                i -> b -> put(() -> { if (ordered) { b.putLong(i, value, order); } else { b.putLong(i, value); } }));
            case 1 -> typed(random, Integer.BYTES, i -> b -> ordered ? b.getInt(i, order) : b.getInt(i),
                i -> b -> put(() ->
                {
                    if (ordered)
                    {
                        b.putInt(i, (int)value, order);
                    }
                    else
                    {
                        b.putInt(i, (int)value);
                    }
                }));
            case 2 -> typed(random, Short.BYTES, i -> b -> ordered ? b.getShort(i, order) : b.getShort(i),
                i -> b -> put(() ->
                {
                    if (ordered)
                    {
                        b.putShort(i, (short)value, order);
                    }
                    else
                    {
                        b.putShort(i, (short)value);
                    }
                }));
            case 3 -> typed(random, Character.BYTES, i -> b -> ordered ? b.getChar(i, order) : b.getChar(i),
                i -> b -> put(() ->
                {
                    if (ordered)
                    {
                        b.putChar(i, (char)value, order);
                    }
                    else
                    {
                        b.putChar(i, (char)value);
                    }
                }));
            case 4 -> typed(random, Double.BYTES, i -> b -> ordered ? b.getDouble(i, order) : b.getDouble(i),
                i -> b -> put(() ->
                {
                    final double d = variant == 0 ? Double.NaN : Double.longBitsToDouble(value);
                    if (ordered)
                    {
                        b.putDouble(i, d, order);
                    }
                    else
                    {
                        b.putDouble(i, d);
                    }
                }));
            case 5 -> typed(random, Float.BYTES, i -> b -> ordered ? b.getFloat(i, order) : b.getFloat(i),
                i -> b -> put(() ->
                {
                    final float f = Float.intBitsToFloat((int)value);
                    if (ordered)
                    {
                        b.putFloat(i, f, order);
                    }
                    else
                    {
                        b.putFloat(i, f);
                    }
                }));
            case 6 -> typed(random, 1, i -> b -> b.getByte(i), i -> b -> put(() -> b.putByte(i, (byte)value)));
            case 7 -> arrayCopy(random, variant);
            case 8 -> byteBufferCopy(random, variant);
            case 9 -> directBufferCopy(random, variant);
            case 10 ->
            {
                final int length = length(random);
                final int index = index(random, length);
                yield b -> put(() -> b.setMemory(index, length, (byte)value));
            }
            case 11 -> longAtomic(random, pair, value, variant);
            case 12 -> intAtomic(random, pair, (int)value, variant);
            case 13 -> smallAtomic(random, pair, value, variant);
            case 14 -> asciiPut(random, variant, ordered, order);
            case 15 -> asciiGet(random, variant, ordered, order);
            case 16 -> utf8(random, variant, ordered, order);
            case 17 -> numberPut(random, value, variant);
            case 18, 19 -> numberParse(random, variant);
            case 20 ->
            {
                final int index = random.nextInt(CAPACITY + 4) - 2;
                final int length = random.nextInt(8) - 1;
                yield b ->
                {
                    b.boundsCheck(index, length);
                    b.checkLimit(index);
                    return "in bounds";
                };
            }
            case 21 -> AtomicBuffer::hashCode;
            case 22 -> b -> b.capacity() + "|" + b.wrapAdjustment() + "|" + b.isExpandable();
            default -> numberPut(random, value, variant);
        };
    }

    @FunctionalInterface
    private interface IndexedStep
    {
        ByteBufferAtomicBufferTest.Step at(int index);
    }

    private static ByteBufferAtomicBufferTest.Step typed(final Random random, final int size, final IndexedStep get,
        final IndexedStep put)
    {
        final int index = index(random, size);
        return random.nextBoolean() ? get.at(index) : put.at(index);
    }

    private static Object put(final Runnable write)
    {
        write.run();
        return "written";
    }

    /** @return mostly an index where {@code size} bytes fit, sometimes one around or past the edges. */
    static int index(final Random random, final int size)
    {
        if (random.nextInt(12) == 0)
        {
            return random.nextInt(size + 8) - 4 + (random.nextBoolean() ? 0 : CAPACITY - size);
        }
        return random.nextInt(Math.max(1, CAPACITY - size + 1));
    }

    private static int length(final Random random)
    {
        return random.nextInt(20) == 0 ? random.nextInt(CAPACITY + 2) - 1 : random.nextInt(40);
    }

    private static ByteBufferAtomicBufferTest.Step arrayCopy(final Random random, final int variant)
    {
        final int length = length(random);
        final int index = index(random, length);
        final int offset = random.nextInt(6) - (random.nextInt(10) == 0 ? 1 : 0);
        final byte[] source = new byte[Math.max(0, length + random.nextInt(4))];
        random.nextBytes(source);
        return switch (variant)
        {
            case 0 -> b ->
            {
                final byte[] dst = new byte[Math.max(0, length)];
                b.getBytes(index, dst);
                return dst;
            };
            case 1 -> b ->
            {
                final byte[] dst = new byte[source.length + 3];
                b.getBytes(index, dst, offset, length);
                return dst;
            };
            case 2 -> b -> put(() -> b.putBytes(index, source));
            default -> b -> put(() -> b.putBytes(index, source, offset, length));
        };
    }

    private static ByteBufferAtomicBufferTest.Step byteBufferCopy(final Random random, final int variant)
    {
        final int length = length(random);
        final int index = index(random, length);
        final int other = random.nextInt(8) - (random.nextInt(10) == 0 ? 1 : 0);
        final boolean direct = random.nextBoolean();
        final int capacity = Math.max(0, length) + random.nextInt(12);
        final int limit = random.nextInt(capacity + 1);
        final byte[] content = new byte[capacity];
        random.nextBytes(content);
        return b ->
        {
            final ByteBuffer outside = (direct ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity))
                .put(content).clear().limit(limit).position(Math.min(other < 0 ? 0 : other, limit));
            String result;
            try
            {
                switch (variant)
                {
                    case 0 -> b.getBytes(index, outside, other, length);
                    case 1 -> b.getBytes(index, outside, length);
                    case 2 -> b.putBytes(index, outside, other, length);
                    default -> b.putBytes(index, outside, length);
                }
                result = "copied";
            }
            catch (final RuntimeException e)
            {
                result = "threw " + e.getClass().getName() + ": " + e.getMessage();
            }
            final byte[] after = new byte[capacity];
            outside.duplicate().clear().get(after);
            return result + " position " + outside.position() + " limit " + outside.limit() + " " +
                Arrays.toString(after);
        };
    }

    private static ByteBufferAtomicBufferTest.Step directBufferCopy(final Random random, final int variant)
    {
        final int length = length(random);
        final int index = index(random, length);
        final int other = random.nextInt(8) - (random.nextInt(10) == 0 ? 1 : 0);
        final byte[] content = new byte[Math.max(0, length) + random.nextInt(12)];
        random.nextBytes(content);
        final boolean unsafeSource = random.nextBoolean();
        final int selfIndex = index(random, length);
        return b ->
        {
            // the other buffer is of the same kind, except that ours may also copy from an UnsafeBuffer
            final boolean ours = b instanceof ByteBufferAtomicBuffer;
            final MutableDirectBuffer outside = ours && !unsafeSource ? new ByteBufferAtomicBuffer(content.clone()) :
                new UnsafeBuffer(content.clone());
            String result;
            try
            {
                if (variant == 0)
                {
                    b.putBytes(index, (DirectBuffer)outside, other, length);
                }
                else if (variant == 1)
                {
                    b.putBytes(index, b, selfIndex, length); // overlapping ranges: a move, as memmove
                }
                else
                {
                    b.getBytes(index, outside, other, length);
                }
                result = "copied";
            }
            catch (final RuntimeException e)
            {
                result = "threw " + e.getClass().getName() + ": " + e.getMessage();
            }
            final byte[] after = new byte[outside.capacity()];
            outside.getBytes(0, after);
            return result + " " + Arrays.toString(after);
        };
    }

    private static ByteBufferAtomicBufferTest.Step longAtomic(final Random random,
        final ByteBufferAtomicBufferTest.Pair pair, final long value, final int variant)
    {
        final int index = pair.atomicIndex(random, Long.BYTES);
        final int op = random.nextInt(14);
        final boolean expectCurrent = variant != 0;
        return b ->
        {
            final long expected = expectCurrent ? b.getLong(index) : value;
            return switch (op)
            {
                case 0 -> b.getLongVolatile(index);
                case 1 -> put(() -> b.putLongVolatile(index, value));
                case 2 -> b.getLongAcquire(index);
                case 3 -> put(() -> b.putLongOrdered(index, value));
                case 4 -> put(() -> b.putLongRelease(index, value));
                case 5 -> b.addLongOrdered(index, value);
                case 6 -> b.addLongRelease(index, value);
                case 7 -> put(() -> b.putLongOpaque(index, value));
                case 8 -> b.getLongOpaque(index) + "|" + b.addLongOpaque(index, value);
                case 9 -> b.compareAndSetLong(index, expected, value);
                case 10 -> b.compareAndExchangeLong(index, expected, value);
                case 11 -> b.getAndSetLong(index, value);
                default -> b.getAndAddLong(index, value);
            };
        };
    }

    private static ByteBufferAtomicBufferTest.Step intAtomic(final Random random,
        final ByteBufferAtomicBufferTest.Pair pair, final int value, final int variant)
    {
        final int index = pair.atomicIndex(random, Integer.BYTES);
        final int op = random.nextInt(14);
        final boolean expectCurrent = variant != 0;
        return b ->
        {
            final int expected = expectCurrent ? b.getInt(index) : value;
            return switch (op)
            {
                case 0 -> b.getIntVolatile(index);
                case 1 -> put(() -> b.putIntVolatile(index, value));
                case 2 -> b.getIntAcquire(index);
                case 3 -> put(() -> b.putIntOrdered(index, value));
                case 4 -> put(() -> b.putIntRelease(index, value));
                case 5 -> b.addIntOrdered(index, value);
                case 6 -> b.addIntRelease(index, value);
                case 7 -> put(() -> b.putIntOpaque(index, value));
                case 8 -> b.getIntOpaque(index) + "|" + b.addIntOpaque(index, value);
                case 9 -> b.compareAndSetInt(index, expected, value);
                case 10 -> b.compareAndExchangeInt(index, expected, value);
                case 11 -> b.getAndSetInt(index, value);
                default -> b.getAndAddInt(index, value);
            };
        };
    }

    private static ByteBufferAtomicBufferTest.Step smallAtomic(final Random random,
        final ByteBufferAtomicBufferTest.Pair pair, final long value, final int variant)
    {
        final int shortIndex = pair.atomicIndex(random, Short.BYTES);
        final int byteIndex = random.nextInt(CAPACITY);
        return switch (variant)
        {
            case 0 -> b -> b.getShortVolatile(shortIndex) + "|" + put(() -> b.putShortVolatile(shortIndex,
                (short)value));
            case 1 -> b -> b.getCharVolatile(shortIndex) + "|" + put(() -> b.putCharVolatile(shortIndex,
                (char)value));
            default -> b -> b.getByteVolatile(byteIndex) + "|" + put(() -> b.putByteVolatile(byteIndex,
                (byte)value));
        };
    }

    private static String text(final Random random)
    {
        if (random.nextInt(20) == 0)
        {
            return null;
        }
        final StringBuilder text = new StringBuilder();
        for (int i = random.nextInt(24); i > 0; i--)
        {
            text.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return text.toString();
    }

    private static ByteBufferAtomicBufferTest.Step asciiPut(final Random random, final int variant,
        final boolean ordered, final ByteOrder order)
    {
        final String text = text(random);
        final int index = index(random, 4 + (text == null ? 0 : text.length()));
        final int offset = random.nextInt(4);
        final int length = random.nextInt(30) - 1;
        final CharSequence sequence = text == null ? null : new StringBuilder(text);
        return switch (variant)
        {
            case 0 -> b -> ordered ? b.putStringAscii(index, text, order) : b.putStringAscii(index, text);
            case 1 -> b -> ordered ? b.putStringAscii(index, sequence, order) : b.putStringAscii(index, sequence);
            case 2 -> b -> ordered ? b.putStringWithoutLengthAscii(index, text) :
                b.putStringWithoutLengthAscii(index, sequence);
            default -> b -> ordered ? b.putStringWithoutLengthAscii(index, text, offset, length) :
                b.putStringWithoutLengthAscii(index, sequence, offset, length);
        };
    }

    private static ByteBufferAtomicBufferTest.Step asciiGet(final Random random, final int variant,
        final boolean ordered, final ByteOrder order)
    {
        final int length = random.nextInt(30) - 1;
        final int index = index(random, 4 + Math.max(0, length));
        return switch (variant)
        {
            case 0 -> b -> ordered ? b.getStringAscii(index, order) : b.getStringAscii(index);
            case 1 -> b ->
            {
                final StringBuilder out = new StringBuilder();
                final int n = ordered ? b.getStringAscii(index, out, order) : b.getStringAscii(index, out);
                return n + "|" + out;
            };
            case 2 -> b ->
            {
                final StringBuilder out = new StringBuilder();
                return ordered ? b.getStringAscii(index, length) : b.getStringAscii(index, length, out) + "|" + out;
            };
            default -> b ->
            {
                final StringBuilder out = new StringBuilder();
                return ordered ? b.getStringWithoutLengthAscii(index, length) :
                    b.getStringWithoutLengthAscii(index, length, out) + "|" + out;
            };
        };
    }

    private static ByteBufferAtomicBufferTest.Step utf8(final Random random, final int variant,
        final boolean ordered, final ByteOrder order)
    {
        final String text = text(random);
        final int index = index(random, 4 + (text == null ? 4 : text.length() * 2));
        final int length = random.nextInt(30) - 1;
        final int max = random.nextInt(60);
        return switch (variant)
        {
            case 0 -> b -> ordered ? b.putStringUtf8(index, text, order) : b.putStringUtf8(index, text);
            case 1 -> b -> ordered ? b.putStringUtf8(index, text, order, max) : b.putStringUtf8(index, text, max);
            case 2 -> b -> ordered ? b.getStringUtf8(index, order) : b.getStringUtf8(index) + "|" +
                b.getStringUtf8(index, length);
            default -> b -> ordered ? b.putStringWithoutLengthUtf8(index, text) :
                b.getStringWithoutLengthUtf8(index, length);
        };
    }

    private static ByteBufferAtomicBufferTest.Step numberPut(final Random random, final long value, final int variant)
    {
        final int index = index(random, 20);
        final long natural = value == Long.MIN_VALUE ? 0 : Math.abs(value);
        final int padded = random.nextInt(12);
        final int end = random.nextInt(CAPACITY + 3);
        return switch (variant)
        {
            case 0 -> b -> b.putIntAscii(index, (int)value) + "|" + b.putLongAscii(index, value);
            case 1 -> b -> b.putNaturalIntAscii(index, (int)natural & Integer.MAX_VALUE) + "|" +
                b.putNaturalLongAscii(index, natural);
            case 2 -> b -> put(() -> b.putNaturalPaddedIntAscii(index, padded, (int)natural & Integer.MAX_VALUE));
            default -> b -> b.putNaturalIntAsciiFromEnd((int)natural & Integer.MAX_VALUE, end);
        };
    }

    private static String numberText(final Random random)
    {
        if (random.nextInt(4) == 0)
        {
            return NUMBERS[random.nextInt(NUMBERS.length)];
        }
        final StringBuilder text = new StringBuilder(random.nextBoolean() ? "-" : "");
        for (int i = random.nextInt(22); i > 0; i--)
        {
            text.append((char)('0' + random.nextInt(10)));
        }
        if (random.nextInt(5) == 0 && text.length() > 0)
        {
            text.setCharAt(random.nextInt(text.length()), "x -+/:".charAt(random.nextInt(6)));
        }
        return text.toString();
    }

    private static ByteBufferAtomicBufferTest.Step numberParse(final Random random, final int variant)
    {
        final String text = numberText(random);
        final int index = index(random, text.length());
        final int length = text.length() - (random.nextInt(10) == 0 ? random.nextInt(3) - 1 : 0);
        return b ->
        {
            b.putStringWithoutLengthAscii(index, text);
            return switch (variant)
            {
                case 0 -> b.parseIntAscii(index, length);
                case 1 -> b.parseLongAscii(index, length);
                case 2 -> b.parseNaturalIntAscii(index, length);
                default -> b.parseNaturalLongAscii(index, length);
            };
        };
    }
}
