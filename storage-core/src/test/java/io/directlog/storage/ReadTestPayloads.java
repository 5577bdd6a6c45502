package io.directlog.storage;

import java.util.SplittableRandom;
import java.util.zip.CRC32C;

import org.agrona.DirectBuffer;

/** Payloads derived from the offset alone, so readers can check them without shared state. */
final class ReadTestPayloads
{
    private ReadTestPayloads()
    {
    }

    static int length(final long seed, final long offset, final int maxLength)
    {
        return new SplittableRandom(seed * 0x9E3779B97F4A7C15L + offset).nextInt(maxLength + 1);
    }

    static byte[] payload(final long seed, final long offset, final int maxLength)
    {
        final SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + offset);
        final byte[] bytes = new byte[random.nextInt(maxLength + 1)];
        random.nextBytes(bytes);
        return bytes;
    }

    static long crc(final byte[] bytes)
    {
        final CRC32C crc = new CRC32C();
        crc.update(bytes);
        return crc.getValue();
    }

    static long crc(final DirectBuffer buffer, final int length)
    {
        final byte[] copy = new byte[length];
        buffer.getBytes(0, copy);
        return crc(copy);
    }
}
