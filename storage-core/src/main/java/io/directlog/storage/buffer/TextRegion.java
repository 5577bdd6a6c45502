package io.directlog.storage.buffer;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.agrona.AsciiEncoding.MIN_INTEGER_VALUE;
import static org.agrona.AsciiEncoding.MIN_LONG_VALUE;
import static org.agrona.AsciiEncoding.MINUS_SIGN;
import static org.agrona.AsciiEncoding.ZERO;
import static org.agrona.AsciiEncoding.digitCount;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;

/**
 * The text part of {@link ByteBufferAtomicBuffer}: ASCII and UTF-8 strings, with or without an {@code int} length
 * before them, and ASCII decimal numbers written here (parsing is {@link AsciiNumberParser}'s). Same results, bounds
 * checks and exceptions as Agrona's {@code UnsafeBuffer} for the same calls, with two documented differences: the
 * "natural" writers reject a negative value with an {@link IllegalArgumentException} (there they write unspecified
 * bytes), and an {@link IOException} of an {@link Appendable} is rethrown as an {@link UncheckedIOException}
 * (there it is rethrown unchecked as it is).
 */
abstract class TextRegion extends ByteBufferRegion
{
    /** What a null string is written as in UTF-8 (as {@code UnsafeBuffer} does). */
    private static final byte[] NULL_UTF8 = "null".getBytes(UTF_8);

    @Override
    public final String getStringAscii(final int index)
    {
        final int length = getInt(index);
        return 0 == length ? "" : getStringWithoutLengthAscii(index + STR_HEADER_LEN, length);
    }

    @Override
    public final int getStringAscii(final int index, final Appendable appendable)
    {
        final int length = getInt(index);
        return 0 == length ? 0 : getStringWithoutLengthAscii(index + STR_HEADER_LEN, length, appendable);
    }

    @Override
    public final String getStringAscii(final int index, final ByteOrder byteOrder)
    {
        final int length = getInt(index, byteOrder);
        return 0 == length ? "" : getStringWithoutLengthAscii(index + STR_HEADER_LEN, length);
    }

    @Override
    public final int getStringAscii(final int index, final Appendable appendable, final ByteOrder byteOrder)
    {
        final int length = getInt(index, byteOrder);
        return 0 == length ? 0 : getStringWithoutLengthAscii(index + STR_HEADER_LEN, length, appendable);
    }

    @Override
    public final String getStringAscii(final int index, final int length)
    {
        return getStringWithoutLengthAscii(index + STR_HEADER_LEN, length);
    }

    /** Checks the header and the string together, as {@code UnsafeBuffer} does. */
    @Override
    public final int getStringAscii(final int index, final int length, final Appendable appendable)
    {
        return appendAscii(at(index, length + STR_HEADER_LEN) + STR_HEADER_LEN, length, appendable);
    }

    @Override
    public final String getStringWithoutLengthAscii(final int index, final int length)
    {
        final int from = at(index, length);
        return 0 == length ? "" : new String(copy(from, length), US_ASCII);
    }

    @Override
    public final int getStringWithoutLengthAscii(final int index, final int length, final Appendable appendable)
    {
        return appendAscii(at(index, length), length, appendable);
    }

    /** Bytes over 127 are appended as '?', as {@code UnsafeBuffer} does; the range is checked by the caller. */
    private int appendAscii(final int from, final int length, final Appendable appendable)
    {
        try
        {
            for (int i = 0; i < length; i++)
            {
                final byte b = memory.get(from + i);
                appendable.append(b < 0 ? '?' : (char)b);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return length;
    }

    @Override
    public final String getStringUtf8(final int index)
    {
        final int length = getInt(index);
        return 0 == length ? "" : getStringWithoutLengthUtf8(index + STR_HEADER_LEN, length);
    }

    @Override
    public final String getStringUtf8(final int index, final ByteOrder byteOrder)
    {
        final int length = getInt(index, byteOrder);
        return 0 == length ? "" : getStringWithoutLengthUtf8(index + STR_HEADER_LEN, length);
    }

    @Override
    public final String getStringUtf8(final int index, final int length)
    {
        return new String(copy(at(index + STR_HEADER_LEN, length), length), UTF_8);
    }

    @Override
    public final String getStringWithoutLengthUtf8(final int index, final int length)
    {
        final int from = at(index, length);
        return 0 == length ? "" : new String(copy(from, length), UTF_8);
    }

    /** @return a copy of {@code length} bytes from {@code from} in {@link #memory} (the range is checked). */
    private byte[] copy(final int from, final int length)
    {
        final byte[] bytes = new byte[length];
        memory.get(from, bytes, 0, length);
        return bytes;
    }

    @Override
    public final int putStringAscii(final int index, final String value)
    {
        return putStringAscii(index, (CharSequence)value, NATIVE_ORDER);
    }

    @Override
    public final int putStringAscii(final int index, final CharSequence value)
    {
        return putStringAscii(index, value, NATIVE_ORDER);
    }

    @Override
    public final int putStringAscii(final int index, final String value, final ByteOrder byteOrder)
    {
        return putStringAscii(index, (CharSequence)value, byteOrder);
    }

    /** A null string is written as length 0, as {@code UnsafeBuffer} does. */
    @Override
    public final int putStringAscii(final int index, final CharSequence value, final ByteOrder byteOrder)
    {
        if (null == value)
        {
            putInt(index, 0);
            return STR_HEADER_LEN;
        }
        final int length = value.length();
        at(index, length + STR_HEADER_LEN);
        putInt(index, length, byteOrder);
        putAscii(index + STR_HEADER_LEN, value, 0, length);
        return STR_HEADER_LEN + length;
    }

    @Override
    public final int putStringWithoutLengthAscii(final int index, final String value)
    {
        return null == value ? 0 : putStringWithoutLengthAscii(index, value, 0, value.length());
    }

    @Override
    public final int putStringWithoutLengthAscii(final int index, final CharSequence value)
    {
        return null == value ? 0 : putStringWithoutLengthAscii(index, value, 0, value.length());
    }

    @Override
    public final int putStringWithoutLengthAscii(final int index, final String value, final int valueOffset,
        final int length)
    {
        return putStringWithoutLengthAscii(index, (CharSequence)value, valueOffset, length);
    }

    @Override
    public final int putStringWithoutLengthAscii(final int index, final CharSequence value, final int valueOffset,
        final int length)
    {
        if (null == value)
        {
            return 0;
        }
        final int written = Math.min(value.length() - valueOffset, length);
        at(index, written);
        putAscii(index, value, valueOffset, written);
        return written;
    }

    /** Characters over 127 are written as '?', as {@code UnsafeBuffer} does; the range is checked by the caller. */
    private void putAscii(final int index, final CharSequence value, final int valueOffset, final int length)
    {
        final int to = base + index;
        for (int i = 0; i < length; i++)
        {
            final char c = value.charAt(valueOffset + i);
            memory.put(to + i, c > 127 ? (byte)'?' : (byte)c);
        }
    }

    @Override
    public final int putStringUtf8(final int index, final String value)
    {
        return putStringUtf8(index, value, NATIVE_ORDER, Integer.MAX_VALUE);
    }

    @Override
    public final int putStringUtf8(final int index, final String value, final ByteOrder byteOrder)
    {
        return putStringUtf8(index, value, byteOrder, Integer.MAX_VALUE);
    }

    @Override
    public final int putStringUtf8(final int index, final String value, final int maxEncodedLength)
    {
        return putStringUtf8(index, value, NATIVE_ORDER, maxEncodedLength);
    }

    /** A null string is written as "null", as {@code UnsafeBuffer} does. */
    @Override
    public final int putStringUtf8(final int index, final String value, final ByteOrder byteOrder,
        final int maxEncodedLength)
    {
        final byte[] bytes = null == value ? NULL_UTF8 : value.getBytes(UTF_8);
        if (bytes.length > maxEncodedLength)
        {
            throw new IllegalArgumentException("Encoded string larger than maximum size: " + maxEncodedLength);
        }
        at(index, STR_HEADER_LEN + bytes.length);
        putInt(index, bytes.length, byteOrder);
        putBytes(index + STR_HEADER_LEN, bytes);
        return STR_HEADER_LEN + bytes.length;
    }

    @Override
    public final int putStringWithoutLengthUtf8(final int index, final String value)
    {
        final byte[] bytes = null == value ? NULL_UTF8 : value.getBytes(UTF_8);
        putBytes(index, bytes);
        return bytes.length;
    }

    @Override
    public final int parseNaturalIntAscii(final int index, final int length)
    {
        return AsciiNumberParser.parseNaturalInt(this, index, length);
    }

    @Override
    public final long parseNaturalLongAscii(final int index, final int length)
    {
        return AsciiNumberParser.parseNaturalLong(this, index, length);
    }

    @Override
    public final int parseIntAscii(final int index, final int length)
    {
        return AsciiNumberParser.parseInt(this, index, length);
    }

    @Override
    public final long parseLongAscii(final int index, final int length)
    {
        return AsciiNumberParser.parseLong(this, index, length);
    }

    @Override
    public final int putIntAscii(final int index, final int value)
    {
        if (Integer.MIN_VALUE == value)
        {
            putBytes(index, MIN_INTEGER_VALUE);
            return MIN_INTEGER_VALUE.length;
        }
        return putLongAscii(index, value);
    }

    @Override
    public final int putLongAscii(final int index, final long value)
    {
        if (0 == value)
        {
            putByte(index, ZERO);
            return 1;
        }
        if (Long.MIN_VALUE == value)
        {
            putBytes(index, MIN_LONG_VALUE);
            return MIN_LONG_VALUE.length;
        }
        if (value > 0)
        {
            return putDigits(index, value);
        }
        final int digits = digitCount(-value);
        at(index, digits + 1);
        putByte(index, MINUS_SIGN);
        return 1 + putDigits(index + 1, -value);
    }

    @Override
    public final int putNaturalIntAscii(final int index, final int value)
    {
        return putNaturalLongAscii(index, natural(value));
    }

    @Override
    public final int putNaturalLongAscii(final int index, final long value)
    {
        if (0 == natural(value))
        {
            putByte(index, ZERO);
            return 1;
        }
        return putDigits(index, value);
    }

    /** As {@code UnsafeBuffer}: the digits are written before a value too large for the length is reported. */
    @Override
    public final void putNaturalPaddedIntAscii(final int offset, final int length, final int value)
    {
        final int from = at(offset, length);
        int remainder = natural(value);
        for (int i = length - 1; i >= 0; i--)
        {
            memory.put(from + i, (byte)(ZERO + remainder % 10));
            remainder /= 10;
        }
        if (remainder != 0)
        {
            throw new NumberFormatException("Cannot write " + value + " in " + length + " bytes");
        }
    }

    /** As {@code UnsafeBuffer}: 0 writes nothing and returns {@code endExclusive} (after checking one byte). */
    @Override
    public final int putNaturalIntAsciiFromEnd(final int value, final int endExclusive)
    {
        final int length = digitCount(natural(value));
        at(endExclusive - length, length);
        int index = endExclusive;
        for (int remainder = value; remainder > 0; remainder /= 10)
        {
            index--;
            memory.put(base + index, (byte)(ZERO + remainder % 10));
        }
        return index;
    }

    /** Writes a positive value's digits after checking their range; @return how many. */
    private int putDigits(final int index, final long value)
    {
        final int digits = digitCount(value);
        final int from = at(index, digits);
        long remainder = value;
        for (int i = digits - 1; i >= 0; i--)
        {
            memory.put(from + i, (byte)(ZERO + remainder % 10));
            remainder /= 10;
        }
        return digits;
    }

    private static int natural(final int value)
    {
        natural((long)value);
        return value;
    }

    private static long natural(final long value)
    {
        if (value < 0)
        {
            throw new IllegalArgumentException("a natural number cannot be negative: " + value);
        }
        return value;
    }
}
