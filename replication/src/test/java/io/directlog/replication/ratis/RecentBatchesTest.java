package io.directlog.replication.ratis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

class RecentBatchesTest
{
    private static ByteString bytes(final int n)
    {
        return ByteString.copyFrom(new byte[n]);
    }

    @Test
    void keepsTheNewestWithinTheBudgetAndOnlyForTheirTerm()
    {
        final RecentBatches recent = new RecentBatches(300);
        final ByteString a = bytes(100);
        final ByteString b = bytes(100);
        final ByteString c = bytes(100);
        final ByteString d = bytes(100);
        recent.put(1, 1, a);
        recent.put(2, 1, b);
        recent.put(3, 1, c);
        assertEquals(300, recent.bytes());
        recent.put(4, 2, d);
        assertEquals(300, recent.bytes());
        assertNull(recent.get(1, 1), "the oldest went first");
        assertSame(b, recent.get(2, 1));
        assertSame(d, recent.get(4, 2));
        assertNull(recent.get(4, 1), "another term's entry at that index");
    }

    @Test
    void aTruncatedOrRewrittenTailIsDropped()
    {
        final RecentBatches recent = new RecentBatches(1000);
        for (int i = 1; i <= 5; i++)
        {
            recent.put(i, 1, bytes(10));
        }
        recent.removeFrom(4);
        assertNull(recent.get(4, 1));
        assertNull(recent.get(5, 1));
        assertEquals(30, recent.bytes());
        recent.put(2, 2, bytes(10));
        assertNull(recent.get(3, 1), "writing index 2 again replaces everything from there");
        assertEquals(20, recent.bytes());
    }

    @Test
    void aZeroBudgetHoldsNothingAndANegativeOneIsRefused()
    {
        final RecentBatches none = new RecentBatches(0);
        none.put(1, 1, bytes(1));
        assertNull(none.get(1, 1));
        assertThrows(IllegalArgumentException.class, () -> new RecentBatches(-1));
    }
}
