package io.directlog.replication;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

class KafkaBatchStamperTest
{
    private static byte[] batch(final int records, final int extra)
    {
        final ByteBuffer b = ByteBuffer.allocate(61 + extra);
        b.putInt(8, b.capacity() - 12).putInt(12, -1).put(16, (byte)2).putInt(57, records);
        for (int i = 17; i < b.capacity(); i++)
        {
            if (i < 57 || i >= 61)
            {
                b.put(i, (byte)i);
            }
        }
        return b.array();
    }

    @Test
    void stampWritesBaseOffsetAndEpochAndNothingElse()
    {
        final byte[] original = batch(3, 20);
        final byte[] stamped = original.clone();
        BatchStamper.KAFKA_V2.stamp(stamped, 0, stamped.length, 0x0102030405060708L, 7);
        final ByteBuffer b = ByteBuffer.wrap(stamped);
        assertEquals(0x0102030405060708L, b.getLong(0));
        assertEquals(7, b.getInt(12));
        for (int i = 16; i < stamped.length; i++)
        {
            assertEquals(original[i], stamped[i], "byte " + i + " (inside the CRC) changed");
        }
        assertEquals(original[8], stamped[8]);
    }

    @Test
    void clearRestoresTheProducersValues()
    {
        final byte[] original = batch(1, 5);
        final byte[] copy = original.clone();
        BatchStamper.KAFKA_V2.stamp(copy, 0, copy.length, 99, 4);
        BatchStamper.KAFKA_V2.clear(copy, 0, copy.length);
        assertArrayEquals(original, copy);
    }

    @Test
    void validateRefusesWhatIsNotAMagicTwoBatchOfTheDeclaredCount()
    {
        final byte[] good = batch(2, 10);
        BatchStamper.KAFKA_V2.validate(good, 0, good.length, 2);

        final IllegalArgumentException count = assertThrows(IllegalArgumentException.class,
            () -> BatchStamper.KAFKA_V2.validate(good, 0, good.length, 3));
        assertTrue(count.getMessage().contains("declared 3"), count.getMessage());

        final byte[] shortBatch = new byte[20];
        assertThrows(IllegalArgumentException.class, () -> BatchStamper.KAFKA_V2.validate(shortBatch, 0, 20, 1));

        final byte[] magic1 = batch(2, 10);
        magic1[16] = 1;
        final IllegalArgumentException m = assertThrows(IllegalArgumentException.class,
            () -> BatchStamper.KAFKA_V2.validate(magic1, 0, magic1.length, 2));
        assertTrue(m.getMessage().contains("magic 1"), m.getMessage());

        final byte[] wrongLength = batch(2, 10);
        ByteBuffer.wrap(wrongLength).putInt(8, 5);
        assertThrows(IllegalArgumentException.class,
            () -> BatchStamper.KAFKA_V2.validate(wrongLength, 0, wrongLength.length, 2));
    }
}
