package io.directlog.storage.cache;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.directlog.storage.ThreadWaits;
import io.directlog.storage.page.PagePool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Growing write pages in the cache: charged as the writer needs, room made by evicting read cache. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PageCacheGrowTest
{
    private static final int SEGMENT = 16 << 20;
    private static final int CHUNK = 64 << 10;

    @Test
    void chargesDoubleAndAlwaysCoverTheEndWithinTheCapacity()
    {
        assertEquals(2 * CHUNK, PageCache.nextCharge(CHUNK, CHUNK + 1, SEGMENT, 4096));
        assertEquals(CHUNK * 5, PageCache.nextCharge(CHUNK, CHUNK * 5, SEGMENT, 4096), "a big record jumps ahead");
        assertEquals(CHUNK * 5 + 4096, PageCache.nextCharge(CHUNK, CHUNK * 5 + 1, SEGMENT, 4096));
        assertEquals(SEGMENT, PageCache.nextCharge(SEGMENT - CHUNK, SEGMENT - 1, SEGMENT, 4096), "capped");
        assertThrows(IllegalArgumentException.class, () -> PageCache.nextCharge(CHUNK, SEGMENT + 1, SEGMENT, 4096));
    }

    @Test
    void aWritePageGrowsAsItsSegmentFills()
    {
        try (PagePool pool = new PagePool(SEGMENT, 4096))
        {
            final PageCache cache = new PageCache(pool, EvictionPolicy.fromSystemProperties());
            final CachePage page = cache.acquireGrowing(new FixedOwner(1), SEGMENT, 0, CHUNK);
            assertTrue(page.writable());
            assertEquals(CHUNK, page.chargedEnd());

            assertTrue(cache.tryGrow(page, CHUNK), "already covered");
            assertEquals(CHUNK, page.chargedEnd());
            assertTrue(cache.tryGrow(page, CHUNK + 100));
            assertEquals(2 * CHUNK, page.chargedEnd());
            assertTrue(cache.tryGrow(page, SEGMENT));
            assertEquals(SEGMENT, page.chargedEnd());
            assertEquals(SEGMENT, pool.usedBytes());
        }
    }

    @Test
    void growingEvictsReadCacheWhenTheBudgetIsFull()
    {
        try (PagePool pool = new PagePool(4L * CHUNK, 4096))
        {
            final PageCache cache = new PageCache(pool, EvictionPolicy.fromSystemProperties());
            final CachePage readOnly = cache.acquire(new FixedOwner(1), 2 * CHUNK, true);
            readOnly.markReadOnly();
            final CachePage writing = cache.acquireGrowing(new FixedOwner(1), SEGMENT, 0, CHUNK);

            assertTrue(cache.tryGrow(writing, 3 * CHUNK));

            assertTrue(readOnly.isEvicted(), "the read-only page made room");
            assertEquals(3 * CHUNK, writing.chargedEnd());
            assertEquals(1, cache.stats().evictions());
        }
    }

    @Test
    void growingFailsWhenOnlyWritePagesHoldTheBudget()
    {
        try (PagePool pool = new PagePool(2L * CHUNK, 4096))
        {
            final PageCache cache = new PageCache(pool, EvictionPolicy.fromSystemProperties());
            final CachePage a = cache.acquireGrowing(new FixedOwner(1), SEGMENT, 0, CHUNK);
            final CachePage b = cache.acquireGrowing(new FixedOwner(1), SEGMENT, 0, CHUNK);
            assertNotNull(b);

            assertFalse(cache.tryGrow(a, CHUNK + 1));
            assertNull(cache.acquireGrowing(new FixedOwner(1), SEGMENT, 0, CHUNK));
            assertEquals(CHUNK, a.chargedEnd(), "a failed grow charges nothing");
        }
    }

    @Test
    void anEvictedGrowingPageIsNotTakenOverByAPageIn()
    {
        try (PagePool pool = new PagePool(SEGMENT, 4096))
        {
            final PageCache cache = new PageCache(pool, EvictionPolicy.fromSystemProperties());
            final CachePage rolled = cache.acquireGrowing(new FixedOwner(1), SEGMENT, 0, CHUNK);
            rolled.markReadOnly(); // its segment rolled: the page is read cache now, charged for one chunk

            final CachePage pageIn = cache.tryAcquireForPageIn(new FixedOwner(1), SEGMENT);

            assertNotNull(pageIn);
            assertFalse(pageIn.memory().growing(), "a page-in overwrites the whole page: it takes a fixed one");
            assertEquals(SEGMENT, pageIn.chargedEnd());
            assertEquals(SEGMENT, pool.usedBytes(), "the growing page's chunk went back; the fixed page is charged");
            pageIn.unpin();
        }
    }

    @Test
    void aPageTakenInTheMiddleOfItsSegmentIsChargedFromThereAndGrowsFromThere()
    {
        try (PagePool pool = new PagePool(4L * CHUNK, 4096))
        {
            final PageCache cache = new PageCache(pool, EvictionPolicy.fromSystemProperties());
            final int from = 10 << 20; // a log that gave its page back while idle, its next block at 10 MiB

            final CachePage page = cache.acquireGrowing(new FixedOwner(1), SEGMENT, from, CHUNK);

            assertEquals(CHUNK, pool.usedBytes(), "the 10 MiB below are not charged");
            assertEquals(from + CHUNK, page.chargedEnd());
            assertTrue(cache.tryGrow(page, from + CHUNK + 1));
            assertEquals(from + 2 * CHUNK, page.chargedEnd(), "doubled from its own start");
            assertEquals(2L * CHUNK, pool.usedBytes());
            assertThrows(IllegalArgumentException.class, () -> cache.tryGrow(page, from), "below its start");
        }
    }

    /**
     * The race behind WritePageMemoryTest's rare "983040 in use" of a 1 MiB budget: the writer's try failed while
     * a read page still held the budget, the preparer's {@code reserve} evicted that page, and the writer then
     * found nothing to evict and gave up with the memory free.
     */
    @Test
    void aWritePageIsHadWhenAnotherThreadEvictedTheReadPageItWouldHaveTaken() throws Exception
    {
        try (PagePool pool = new PagePool(2L * CHUNK, 4096))
        {
            final PageCache cache = new PageCache(pool, EvictionPolicy.fromSystemProperties());
            assertNotNull(cache.acquireGrowing(new FixedOwner(0), SEGMENT, 0, CHUNK), "another log's write page");
            final WeighedOnCue owner = new WeighedOnCue();
            cache.acquire(owner, CHUNK, true).markReadOnly(); // an idle log's read page: the budget is full

            final Thread preparer = new Thread(() -> cache.reserve(2 * CHUNK), "test-preparer");
            owner.holdUp = preparer;
            preparer.start(); // it weighs the read page under the eviction lock, and waits there for the cue
            assertTrue(owner.weighing.await(10, TimeUnit.SECONDS), "the preparer did not come to weigh the page");
            final AtomicReference<CachePage> taken = new AtomicReference<>();
            final Thread writer = new Thread(() -> taken.set(cache.acquireGrowing(new FixedOwner(0), SEGMENT, 0,
                CHUNK)), "test-writer");
            writer.start();
            ThreadWaits.awaitBlockedIn(writer, PageCache.class, Duration.ofSeconds(10),
                "the writer, its try failed, waits for the eviction lock");

            owner.cue.countDown(); // the preparer evicts the read page, then the writer looks
            preparer.join(10_000);
            writer.join(10_000);

            assertFalse(writer.isAlive() || preparer.isAlive());
            assertNotNull(taken.get(), "the writer got no page with " + (pool.budget() - pool.usedBytes()) +
                " bytes of the budget free");
            assertEquals(2L * CHUNK, pool.usedBytes());
        }
    }

    /** An owner whose weighing, on one thread, waits for a cue: that thread holds the eviction lock meanwhile. */
    private static final class WeighedOnCue implements CacheOwner
    {
        final CountDownLatch weighing = new CountDownLatch(1);
        final CountDownLatch cue = new CountDownLatch(1);
        volatile Thread holdUp;

        @Override
        public long distanceFromTail()
        {
            if (Thread.currentThread() == holdUp)
            {
                weighing.countDown();
                try
                {
                    assertTrue(cue.await(10, TimeUnit.SECONDS));
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            }
            return 1;
        }

        @Override
        public boolean hasConsumersAhead()
        {
            return false;
        }

        @Override
        public void onPageEvicted(final CachePage page)
        {
        }

        @Override
        public void onPageFreeable(final CachePage page)
        {
        }
    }
}
