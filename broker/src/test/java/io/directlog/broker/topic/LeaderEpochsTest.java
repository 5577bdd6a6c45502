package io.directlog.broker.topic;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.TreeMap;

import org.junit.jupiter.api.Test;

/** Kafka's LeaderEpochFileCache.endOffsetFor cases, over epochs 2 (from 0), 5 (from 40) and 7 (from 90). */
class LeaderEpochsTest
{
    private static final TreeMap<Integer, Long> STARTS = new TreeMap<>();

    static
    {
        STARTS.put(2, 0L);
        STARTS.put(5, 40L);
        STARTS.put(7, 90L);
    }

    private static long[] ask(final int epoch, final int current)
    {
        return LeaderEpochs.endOffsetFor(STARTS, epoch, current, 130, 120);
    }

    @Test
    void anEpochEndsWhereTheNextStoredOneStarts()
    {
        assertArrayEquals(new long[] {2, 40}, ask(2, 9));
        assertArrayEquals(new long[] {5, 90}, ask(5, 9));
    }

    @Test
    void anEpochWithoutBatchesAnswersTheLargestStoredOneBelowIt()
    {
        assertArrayEquals(new long[] {2, 40}, ask(4, 9)); // terms 3 and 4 elected leaders that wrote nothing
        assertArrayEquals(new long[] {5, 90}, ask(6, 9));
    }

    @Test
    void anEpochBelowEveryStoredOneEndsWhereTheFirstStarts()
    {
        assertArrayEquals(new long[] {1, 0}, ask(1, 9));
    }

    @Test
    void theLastStoredEpochBeforeTheCurrentOneEndsAtTheScannedEnd()
    {
        // batches from the scanned end (120) to the log end (130) are the current leader's
        assertArrayEquals(new long[] {7, 120}, ask(7, 9));
        assertArrayEquals(new long[] {7, 120}, ask(8, 9));
    }

    @Test
    void theCurrentEpochEndsAtTheLogEnd()
    {
        assertArrayEquals(new long[] {9, 130}, ask(9, 9));
        assertArrayEquals(new long[] {7, 130}, ask(7, 7));
    }

    @Test
    void undefinedAndFutureEpochsAreUndefined()
    {
        assertArrayEquals(new long[] {-1, -1}, ask(-1, 9));
        assertArrayEquals(new long[] {-1, -1}, ask(10, 9));
    }
}
