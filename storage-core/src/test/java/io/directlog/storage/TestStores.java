package io.directlog.storage;

import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

import org.agrona.DirectBuffer;

/**
 * The shared fixture for stores, logs and payloads: a small store and log that tests change only where they
 * exercise something, and payloads derived from (seed, offset) alone, so a reader checks them without shared
 * state and a seed replays them.
 * <p>
 * Defaults: 1 MiB segments (rolls are frequent), a 64 MiB memory budget, one writer thread, the engine's defaults
 * for the rest. A test that needs two writers or another budget says so on the builder it gets back.
 * <p>
 * Thread-safe: stateless.
 */
public final class TestStores
{
    /** Segment size of {@link #log()}: small, so that tests roll. */
    public static final int SEGMENT = 1 << 20;
    /** Memory budget of {@link #store(Path)}. */
    public static final long MEMORY_BUDGET = 64L << 20;

    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private TestStores()
    {
    }

    /**
     * @param dir the store's directory, usually from {@link TestDirs#create(String)}.
     * @return a builder of the small test store whose logs default to {@link #log()}.
     */
    public static StoreConfig.Builder store(final Path dir)
    {
        return store(dir, log().build());
    }

    /**
     * @param dir the store's directory.
     * @param defaultLog the default configuration of its logs.
     * @return a builder of the small test store.
     */
    public static StoreConfig.Builder store(final Path dir, final LogConfig defaultLog)
    {
        return StoreConfig.builder(dir).memoryBudget(MEMORY_BUDGET).writerThreads(1).defaultLogConfig(defaultLog);
    }

    /** @return a builder of a log with {@link #SEGMENT}-byte segments. */
    public static LogConfig.Builder log()
    {
        return LogConfig.builder().segmentSize(SEGMENT);
    }

    /**
     * @param durability the log's default durability.
     * @return a builder of a log with {@link #SEGMENT}-byte segments and that durability.
     */
    public static LogConfig.Builder log(final Durability durability)
    {
        return log().durability(durability);
    }

    /**
     * @param seed the run's seed ({@link TestSeed#seed()}).
     * @param offset the record's offset (or any id).
     * @param maxLength the largest length.
     * @return the length of {@link #payloadUpTo}'s payload, in [0, maxLength].
     */
    public static int lengthUpTo(final long seed, final long offset, final int maxLength)
    {
        return new SplittableRandom(seed * GOLDEN_GAMMA + offset).nextInt(maxLength + 1);
    }

    /**
     * @param seed the run's seed.
     * @param offset the record's offset (or any id).
     * @param maxLength the largest length.
     * @return random bytes of a random length in [0, maxLength], the same for the same arguments.
     */
    public static byte[] payloadUpTo(final long seed, final long offset, final int maxLength)
    {
        final SplittableRandom random = new SplittableRandom(seed * GOLDEN_GAMMA + offset);
        final byte[] bytes = new byte[random.nextInt(maxLength + 1)];
        random.nextBytes(bytes);
        return bytes;
    }

    /**
     * @param seed the run's seed.
     * @param offset the record's offset (or any id), also written little-endian into the first 8 bytes, so a
     *               record read at the wrong offset is recognised.
     * @param length the exact length.
     * @return the payload, the same for the same arguments.
     */
    public static byte[] payload(final long seed, final long offset, final int length)
    {
        final byte[] b = new byte[length];
        new SplittableRandom(seed * GOLDEN_GAMMA + offset).nextBytes(b);
        for (int i = 0; i < Math.min(8, length); i++)
        {
            b[i] = (byte)(offset >>> (8 * i));
        }
        return b;
    }

    /**
     * @param bytes a payload.
     * @return its CRC32C.
     */
    public static long crc(final byte[] bytes)
    {
        final CRC32C crc = new CRC32C();
        crc.update(bytes);
        return crc.getValue();
    }

    /**
     * @param buffer a payload's bytes from index 0.
     * @param length its length.
     * @return its CRC32C.
     */
    public static long crc(final DirectBuffer buffer, final int length)
    {
        final byte[] copy = new byte[length];
        buffer.getBytes(0, copy);
        return crc(copy);
    }
}
