package io.directlog.storage.buffer;

import static org.agrona.AsciiEncoding.INTEGER_ABSOLUTE_MIN_VALUE;
import static org.agrona.AsciiEncoding.INT_MAX_DIGITS;
import static org.agrona.AsciiEncoding.LONG_MAX_DIGITS;
import static org.agrona.AsciiEncoding.LONG_MAX_VALUE_DIGITS;
import static org.agrona.AsciiEncoding.LONG_MIN_VALUE_DIGITS;
import static org.agrona.AsciiEncoding.MINUS_SIGN;
import static org.agrona.AsciiEncoding.isDigit;

import org.agrona.AsciiNumberFormatException;
import org.agrona.DirectBuffer;

/**
 * Parses ASCII decimal numbers in a buffer with the results, the exceptions and the messages of Agrona's
 * {@code UnsafeBuffer}, including which of "error parsing" and "overflow parsing" is reported for text that is both
 * malformed and too long: a digit string longer than the type's most digits is an overflow whatever it holds, and
 * a 19-digit {@code long} is checked against the limit 8 digits at a time, in the order {@code UnsafeBuffer} does.
 * <p>
 * Stateless; reads the buffer through its bounds-checked accessors.
 */
final class AsciiNumberParser
{
    private static final int DIGITS_PER_CHUNK = 8;
    private static final long CHUNK_SCALE = 100_000_000L;

    private AsciiNumberParser()
    {
    }

    static int parseNaturalInt(final DirectBuffer buffer, final int index, final int length)
    {
        checkNotEmpty(buffer, index, length);
        if (length < INT_MAX_DIGITS)
        {
            return (int)digits(buffer, index, length, index, index + length, "int");
        }
        if (length > INT_MAX_DIGITS)
        {
            throw overflow(buffer, index, length, "int");
        }
        final long value = digits(buffer, index, length, index, index + length, "int");
        if (value >= INTEGER_ABSOLUTE_MIN_VALUE)
        {
            throw overflow(buffer, index, length, "int");
        }
        return (int)value;
    }

    static int parseInt(final DirectBuffer buffer, final int index, final int length)
    {
        checkNotEmpty(buffer, index, length);
        final boolean negative = MINUS_SIGN == buffer.getByte(index);
        if (negative && 1 == length)
        {
            throw error(buffer, index, length, "int");
        }
        final int start = negative ? index + 1 : index;
        final int end = index + length;
        if (end - start < INT_MAX_DIGITS)
        {
            final int value = (int)digits(buffer, index, length, start, end, "int");
            return negative ? -value : value;
        }
        if (end - start > INT_MAX_DIGITS)
        {
            throw overflow(buffer, index, length, "int");
        }
        final long value = digits(buffer, index, length, start, end, "int");
        if (value > INTEGER_ABSOLUTE_MIN_VALUE || INTEGER_ABSOLUTE_MIN_VALUE == value && !negative)
        {
            throw overflow(buffer, index, length, "int");
        }
        return (int)(negative ? -value : value);
    }

    static long parseNaturalLong(final DirectBuffer buffer, final int index, final int length)
    {
        checkNotEmpty(buffer, index, length);
        if (length < LONG_MAX_DIGITS)
        {
            return digits(buffer, index, length, index, index + length, "long");
        }
        return checkedLong(buffer, index, length, index, index + length, LONG_MAX_VALUE_DIGITS);
    }

    static long parseLong(final DirectBuffer buffer, final int index, final int length)
    {
        checkNotEmpty(buffer, index, length);
        final boolean negative = MINUS_SIGN == buffer.getByte(index);
        if (negative && 1 == length)
        {
            throw error(buffer, index, length, "long");
        }
        final int start = negative ? index + 1 : index;
        final int end = index + length;
        if (end - start < LONG_MAX_DIGITS)
        {
            final long value = digits(buffer, index, length, start, end, "long");
            return negative ? -value : value;
        }
        // the magnitude of Long.MIN_VALUE wraps to Long.MIN_VALUE, whose negation is itself
        return negative ? -checkedLong(buffer, index, length, start, end, LONG_MIN_VALUE_DIGITS) :
            checkedLong(buffer, index, length, start, end, LONG_MAX_VALUE_DIGITS);
    }

    private static void checkNotEmpty(final DirectBuffer buffer, final int index, final int length)
    {
        buffer.boundsCheck(index, length);
        if (length <= 0)
        {
            throw new AsciiNumberFormatException("empty string: index=" + index + " length=" + length);
        }
    }

    /** @return the value of the digits in [start, end), which must all be digits (fewer than 19 of them). */
    private static long digits(final DirectBuffer buffer, final int index, final int length, final int start,
        final int end, final String type)
    {
        long value = 0;
        for (int i = start; i < end; i++)
        {
            final byte b = buffer.getByte(i);
            if (!isDigit(b))
            {
                throw error(buffer, index, length, type);
            }
            value = value * 10 + (b - '0');
        }
        return value;
    }

    /**
     * A magnitude of 19 digits or more against the limit given as 8, 8 and 3 digits: whole 8-digit chunks first,
     * each compared with the limit's until one is below it, then the digits left.
     */
    private static long checkedLong(final DirectBuffer buffer, final int index, final int length, final int start,
        final int end, final int[] limit)
    {
        if (end - start > LONG_MAX_DIGITS)
        {
            throw overflow(buffer, index, length, "long");
        }
        int i = start;
        int chunk = 0;
        boolean atLimit = true;
        long value = 0;
        while (end - i >= DIGITS_PER_CHUNK && allDigits(buffer, i, DIGITS_PER_CHUNK))
        {
            final int digits = (int)digits(buffer, index, length, i, i + DIGITS_PER_CHUNK, "long");
            if (atLimit)
            {
                if (digits > limit[chunk])
                {
                    throw overflow(buffer, index, length, "long");
                }
                atLimit = digits == limit[chunk];
                chunk++;
            }
            value = value * CHUNK_SCALE + digits;
            i += DIGITS_PER_CHUNK;
        }
        final int rest = (int)digits(buffer, index, length, i, end, "long");
        if (atLimit && rest > limit[chunk])
        {
            throw overflow(buffer, index, length, "long");
        }
        return value * 1000L + rest;
    }

    private static boolean allDigits(final DirectBuffer buffer, final int from, final int count)
    {
        for (int i = from; i < from + count; i++)
        {
            if (!isDigit(buffer.getByte(i)))
            {
                return false;
            }
        }
        return true;
    }

    private static AsciiNumberFormatException error(final DirectBuffer buffer, final int index, final int length,
        final String type)
    {
        return new AsciiNumberFormatException("error parsing " + type + ": " +
            buffer.getStringWithoutLengthAscii(index, length));
    }

    private static AsciiNumberFormatException overflow(final DirectBuffer buffer, final int index, final int length,
        final String type)
    {
        return new AsciiNumberFormatException(type + " overflow parsing: " +
            buffer.getStringWithoutLengthAscii(index, length));
    }
}
