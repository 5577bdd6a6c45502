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

    @Test
    void aLogThatFillsItsSegmentFastSkipsOneRungAndAQuietOneClimbsByOne()
    {
        final SegmentLadder ladder = SegmentLadder.of(LogConfig.defaults());
        final long second = 1_000_000_000L;
        // 64 KiB of a 128 KiB segment in 0.8 s: 800 KiB in 10 s, more than the 512 KiB rung holds
        assertEquals(2048 * K, ladder.next(128 * K, 64 * K, 800_000_000L));
        // the same half in a minute: the next rung lasts longer than MIN_LIFETIME_NANOS
        assertEquals(512 * K, ladder.next(128 * K, 64 * K, 60 * second));
        // at the boundary: 512 KiB in exactly MIN_LIFETIME_NANOS is enough
        assertEquals(512 * K, ladder.next(128 * K, 64 * K, SegmentLadder.MIN_LIFETIME_NANOS / 8));
        // however fast, one rung skipped at most, and never past the segment size
        assertEquals(2048 * K, ladder.next(128 * K, 64 * K, 1));
        assertEquals(2048 * K, ladder.next(128 * K, 64 * K, 0));
        assertEquals(64 * 1024 * K, ladder.next(8192 * K, 4096 * K, 1));
        assertEquals(64 * 1024 * K, ladder.next(64 * 1024 * K, 32 * 1024 * K, 1));
        // a fill the writer did not see start (a reopened log past half full): the plain next rung
        assertEquals(512 * K, ladder.next(128 * K, 0, 1));
    }
}
