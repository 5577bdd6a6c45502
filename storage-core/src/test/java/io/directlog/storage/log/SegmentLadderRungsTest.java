package io.directlog.storage.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.directlog.storage.LogConfig;

class SegmentLadderRungsTest
{
    private static final int K = 1024;

    @Test
    void theDefaultsClimbByFourFrom128KiBToTheSegmentSize()
    {
        final SegmentLadder ladder = SegmentLadder.of(LogConfig.defaults());
        int size = ladder.next(0);
        final StringBuilder rungs = new StringBuilder();
        for (int i = 0; i < 8; i++)
        {
            rungs.append(size / K).append(' ');
            size = ladder.next(size);
        }
        assertEquals("128 512 2048 8192 32768 65536 65536 65536 ", rungs.toString());
    }

    @Test
    void theLastRungIsTheSegmentSizeWhateverItsRatioToTheOneBelow()
    {
        final SegmentLadder ladder = new SegmentLadder(128 * K, 3 * 1024 * K);
        assertEquals(2048 * K, ladder.next(512 * K));
        assertEquals(3 * 1024 * K, ladder.next(2048 * K));
    }

    @Test
    void aRecordBiggerThanTheNextRungTakesTheSmallestRungThatHoldsIt()
    {
        final SegmentLadder ladder = new SegmentLadder(128 * K, 64 * 1024 * K);
        assertEquals(128 * K, ladder.holding(128 * K, 100));
        assertEquals(128 * K, ladder.holding(128 * K, 124 * K));
        assertEquals(512 * K, ladder.holding(128 * K, 124 * K + 8));
        assertEquals(8 * 1024 * K, ladder.holding(512 * K, 3 * 1024 * K));
        assertEquals(64 * 1024 * K, ladder.holding(128 * K, 60 * 1024 * K));
        assertTrue(SegmentLadder.holds(128 * K, 124 * K));
        assertFalse(SegmentLadder.holds(128 * K, 124 * K + 1));
    }

    @Test
    void theLoaderAcceptsAnyWholeBlockSizeUpToTheSegmentSize()
    {
        final SegmentLadder ladder = new SegmentLadder(LogConfig.INITIAL_SEGMENT_SIZE_MIN, 1024 * K);
        assertTrue(ladder.accepts(8 * K, 4096));
        assertTrue(ladder.accepts(32 * K, 4096)); // a rung of another initialSegmentSize
        assertTrue(ladder.accepts(1024 * K, 4096));
        assertFalse(ladder.accepts(4 * K, 4096)); // no room for a record after the header
        assertFalse(ladder.accepts(1024 * K + 4096, 4096));
        assertFalse(ladder.accepts(128 * K + 512, 4096));
        assertFalse(ladder.accepts(0, 4096));
    }
}
