package io.directlog.benchmarks;

import java.util.Random;

/**
 * Seeded record payloads: every run writes the same bytes.
 * <p>
 * Thread-safe (stateless).
 */
public final class Payloads
{
    /** The seed of every benchmark's data. */
    public static final long SEED = 42;

    private Payloads()
    {
    }

    /**
     * @param length bytes.
     * @return {@code length} bytes from {@code new Random(42)}.
     */
    public static byte[] random(final int length)
    {
        final byte[] bytes = new byte[length];
        new Random(SEED).nextBytes(bytes);
        return bytes;
    }
}
