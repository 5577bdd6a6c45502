package io.directlog.storage.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.page.PagePool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a log relies on from the page cache and its pages: new write pages are zeroed, write pages and pinned pages
 * are never evicted, the least valuable read-only page goes first and its owner is told, an evicted page can no
 * longer be pinned, a discarded page's memory goes back at its last unpin, and a page-in is refused rather than
 * evicting pages worth more.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PageCacheContractTest
{
    private static final int SIZE = 64 << 10;
    /** No tail or consumer bonus: the least recently used page is the least valuable. */
    private static final EvictionPolicy LRU = new EvictionPolicy(0, 0, 0);
    private final PagePool pool = new PagePool(2L * SIZE, 4096);

    @AfterEach
    void closePool()
    {
        pool.close();
    }

    /** A segment as the cache sees it; records the callbacks it gets. */
    private static final class Owner implements CacheOwner
    {
        final long distance;
        final boolean consumersAhead;
        final List<CachePage> evicted = new CopyOnWriteArrayList<>();
        final List<CachePage> freeable = new CopyOnWriteArrayList<>();
        PageCache cache;

        Owner(final long distance, final boolean consumersAhead)
        {
            this.distance = distance;
            this.consumersAhead = consumersAhead;
        }

        @Override
        public long distanceFromTail()
        {
            return distance;
        }

        @Override
        public boolean hasConsumersAhead()
        {
            return consumersAhead;
        }

        @Override
        public void onPageEvicted(final CachePage page)
        {
            evicted.add(page);
        }

        @Override
        public void onPageFreeable(final CachePage page)
        {
            freeable.add(page);
            cache.freeRetired(page);
        }
    }

    private CachePage readOnlyPage(final PageCache cache, final Owner owner)
    {
        final CachePage page = cache.acquire(owner, SIZE, true);
        assertNotNull(page);
        page.buffer().putLong(0, 0xDEADL);
        page.markReadOnly();
        return page;
    }

    @Test
    void aNewWritePageIsZeroedAndWritable()
    {
        final PageCache cache = new PageCache(pool, LRU);
        final CachePage dirty = readOnlyPage(cache, new Owner(1, false));
        cache.discard(dirty); // its memory goes back to the pool holding 0xDEAD
        final CachePage page = cache.acquire(new Owner(0, false), SIZE, true);
        assertTrue(page.writable());
        for (int i = 0; i < SIZE; i += 8)
        {
            assertEquals(0, page.buffer().getLong(i), "byte " + i + " of a new write page");
        }
    }

    @Test
    void writePagesAreNeverEvictedAndAFullBudgetOfThemRefusesAnother()
    {
        final PageCache cache = new PageCache(pool, LRU);
        final CachePage a = cache.acquire(new Owner(0, false), SIZE, true);
        final CachePage b = cache.acquire(new Owner(0, false), SIZE, true);
        assertNull(cache.acquire(new Owner(0, false), SIZE, true), "the budget is held by write pages");
        assertNull(cache.tryAcquireForPageIn(new Owner(5, false), SIZE));
        assertFalse(a.tryEvict(), "a write page refuses eviction");
        assertFalse(a.isEvicted() || b.isEvicted());
        assertEquals(0, cache.stats().evictions());
    }

    @Test
    void theLeastRecentlyUsedReadOnlyPageIsEvictedAndItsOwnerTold()
    {
        final PageCache cache = new PageCache(pool, LRU);
        final Owner older = new Owner(3, false);
        final Owner newer = new Owner(2, false);
        final CachePage first = readOnlyPage(cache, older);
        final CachePage second = readOnlyPage(cache, newer);
        assertTrue(second.tryPin()); // a later use
        second.unpin();
        final CachePage taken = cache.acquire(new Owner(0, false), SIZE, true);
        assertNotNull(taken);
        assertTrue(first.isEvicted());
        assertFalse(second.isEvicted());
        assertEquals(List.of(first), older.evicted);
        assertTrue(newer.evicted.isEmpty());
        assertFalse(first.tryPin(), "an evicted page cannot be pinned: its reader goes to disk");
        assertEquals(1, cache.stats().evictions());
    }

    @Test
    void aPinnedPageIsNeverEvictedAndAPageInIsRefusedInstead()
    {
        final PageCache cache = new PageCache(pool, LRU);
        final CachePage a = readOnlyPage(cache, new Owner(3, false));
        final CachePage b = readOnlyPage(cache, new Owner(2, false));
        assertTrue(a.tryPin());
        assertTrue(b.tryPin());
        assertNull(cache.tryAcquireForPageIn(new Owner(1, true), SIZE), "nothing unpinned to evict");
        assertFalse(a.tryEvict());
        assertEquals(1, a.pinCount());
        a.unpin();
        b.unpin();
        final CachePage in = cache.tryAcquireForPageIn(new Owner(1, true), SIZE);
        assertNotNull(in, "unpinned, a page is worth less than a fresh page-in");
        assertEquals(1, in.pinCount(), "a page-in comes pinned by its caller");
        assertTrue(in.fromDisk());
        assertFalse(in.writable());
    }

    @Test
    void aPageInIsRefusedWhenEveryResidentPageIsWorthMore()
    {
        // a page near the tail weighs a long bonus; a page-in far from the tail would only push it out
        final PageCache cache = new PageCache(pool, new EvictionPolicy(4, TimeUnit.HOURS.toNanos(1), 0));
        readOnlyPage(cache, new Owner(0, false));
        readOnlyPage(cache, new Owner(1, false));
        assertNull(cache.tryAcquireForPageIn(new Owner(10, false), SIZE));
        assertEquals(0, cache.stats().evictions());
    }

    @Test
    void aDiscardedPageIsFreedAtItsLastUnpinNotBefore()
    {
        final PageCache cache = new PageCache(pool, LRU);
        final Owner owner = new Owner(2, false);
        owner.cache = cache;
        final CachePage page = readOnlyPage(cache, owner);
        final long used = pool.usedBytes();
        assertTrue(page.tryPin());
        assertTrue(page.tryPin());
        cache.discard(page);
        assertEquals(used, pool.usedBytes(), "a reader still holds it");
        page.unpin();
        assertEquals(used, pool.usedBytes());
        page.unpin();
        assertEquals(List.of(page), owner.freeable);
        assertTrue(page.isEvicted());
        assertEquals(used - SIZE, pool.usedBytes(), "the last unpin gave the memory back");
    }

    @Test
    void aRolledWritePageBecomesEvictableReadCache()
    {
        final PageCache cache = new PageCache(pool, LRU);
        final Owner rolled = new Owner(1, false);
        final CachePage page = cache.acquire(rolled, SIZE, true);
        cache.acquire(new Owner(0, false), SIZE, true);
        assertFalse(page.tryEvict());
        page.markReadOnly();
        assertFalse(page.writable());
        final CachePage next = cache.acquire(new Owner(0, false), SIZE, true);
        assertNotNull(next);
        assertSame(page, rolled.evicted.get(0));
    }
}
