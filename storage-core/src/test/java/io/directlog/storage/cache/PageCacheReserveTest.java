package io.directlog.storage.cache;

import java.util.concurrent.TimeUnit;

import io.directlog.storage.page.PagePool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A page reserved ahead of a roll is evicted and zeroed in the background, not on the taker's thread. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PageCacheReserveTest
{
    private static final int SIZE = 1 << 20;

    /** Fills the pool's budget with dirty read-only pages, as rolled segments leave it. */
    private static void fillWithReadCache(final PageCache cache, final int pages)
    {
        for (int i = 0; i < pages; i++)
        {
            final CachePage page = cache.acquire(new FixedOwner(pages - i), SIZE, true);
            assertNotNull(page);
            page.buffer().putLong(0, 0xDEADL);
            page.markReadOnly();
        }
    }

    @Test
    void aWritePageTakenAfterReserveIsZeroedByTheCleanerNotByTheTaker()
    {
        try (PagePool pool = new PagePool(4L * SIZE, 4096))
        {
            final PageCache cache = new PageCache(pool, EvictionPolicy.fromSystemProperties());
            fillWithReadCache(cache, 4);
            assertFalse(pool.hasSpare(SIZE), "the budget is full of read cache");
            cache.reserve(SIZE);
            assertEquals(1, cache.stats().evictions(), "reserve evicted one read-only page");
            assertTrue(pool.hasSpare(SIZE));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!pool.allFreePagesZeroed())
            {
                assertTrue(System.nanoTime() < deadline, "the cleaner did not zero the page within 10 s");
                Thread.onSpinWait();
            }
            final CachePage write = cache.acquire(new FixedOwner(0), SIZE, true);
            assertNotNull(write);
            assertEquals(0, write.buffer().getLong(0), "a zeroed page");
            assertEquals(0, pool.zeroedByTaker(), "the taker did not zero it");
            assertEquals(1, cache.stats().evictions(), "the roll itself evicted nothing");
        }
    }
}
