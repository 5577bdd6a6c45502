package io.directlog.storage.cache;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import io.directlog.storage.CacheStats;
import io.directlog.storage.page.PageMemory;
import io.directlog.storage.page.PagePool;

/**
 * The store's page cache: every resident page of every log under the pool's one budget, evicted by a
 * weighted LRU ({@link EvictionPolicy}) when a write page or a page-in needs room.
 * <p>
 * Readers never take the eviction lock to read: they pin pages (a CAS). The lock is taken only to choose a
 * victim, by a thread that needs memory: a writer at a roll, or a reader paging a segment in. Eviction skips
 * pinned pages and write pages, so it never waits for a reader and never takes the writer's page.
 * <p>
 * Thread-safe.
 */
public final class PageCache
{
    private final PagePool pool;
    private final EvictionPolicy policy;
    private final Set<CachePage> resident = ConcurrentHashMap.newKeySet();
    private final Object evictionLock = new Object();
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder pageIns = new LongAdder();
    private final LongAdder evictions = new LongAdder();
    private final LongAdder bytesReadFromDisk = new LongAdder();

    /**
     * @param pool   the memory budget.
     * @param policy the eviction weighting.
     */
    public PageCache(final PagePool pool, final EvictionPolicy policy)
    {
        this.pool = pool;
        this.policy = policy;
    }

    /** @return the pool under this cache. */
    public PagePool pool()
    {
        return pool;
    }

    /**
     * Takes a zeroed page for {@code owner}, evicting read-only pages as needed.
     *
     * @param owner    the segment the page will hold.
     * @param size     the page size.
     * @param writable true for a write page (never evicted until it rolls).
     * @return the page, registered as resident; null when the budget is held by write pages and pinned pages.
     */
    public CachePage acquire(final CacheOwner owner, final int size, final boolean writable)
    {
        long deadline = 0;
        while (true)
        {
            final PageMemory memory = pool.tryAcquire(size);
            if (memory != null)
            {
                final CachePage page = new CachePage(memory, owner, writable);
                resident.add(page);
                return page;
            }
            if (!evictOne(Long.MAX_VALUE))
            {
                // pins of readers (open batches, page-ins in progress) are short-lived: a write page waits a bounded
                // time for one to go rather than fail the append at once
                if (!anyPinnedReadOnly())
                {
                    return null;
                }
                final long now = System.nanoTime();
                if (deadline == 0)
                {
                    deadline = now + PIN_WAIT_NANOS;
                }
                else if (now - deadline >= 0)
                {
                    return null;
                }
                LockSupport.parkNanos(PIN_WAIT_PARK_NANOS);
            }
        }
    }

    /**
     * Keeps a page of this size ready for the next write page, so that a roll neither evicts nor zeroes a page on
     * the writer's thread (zeroing a 64 MiB page there took 14% of the writer's time at 700 MB/s of appends): when
     * the pool has no spare of this size, evicts the least valuable unpinned read-only page now and lets the pool's
     * cleaner zero it in the background. The cost is one page of read cache per segment size, held free.
     * Called by the segment preparer, ahead of the write heads; never waits for pinned pages.
     *
     * @param size the segment size of a log being written.
     */
    public void reserve(final int size)
    {
        if (!pool.hasSpare(size))
        {
            evictOne(Long.MAX_VALUE);
        }
    }

    /** How long a write page sleeps between looks at readers' pins (they are held for one copy out). */
    private static final long PIN_WAIT_PARK_NANOS = 20_000;
    /** How long a write page waits for readers' pins to go before the budget counts as exhausted. */
    private static final long PIN_WAIT_NANOS =
        Long.getLong("directlog.cache.pinWaitMillis", 1000) * 1_000_000L;

    private boolean anyPinnedReadOnly()
    {
        for (final CachePage page : resident)
        {
            if (!page.writable() && page.pinCount() > 0)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Takes a page for a read miss only if that is worth it: the budget has room, or some resident page is worth
     * less than the one a page-in would bring.
     *
     * @param owner the segment to page in.
     * @param size  its size.
     * @return a page holding any bytes (the page-in overwrites all of them), pinned once by the caller (so that no eviction takes its memory while it is being
     * read into and published: unpin it then), or null to read from disk without caching.
     */
    public CachePage tryAcquireForPageIn(final CacheOwner owner, final int size)
    {
        final long candidate = candidateValue(owner);
        final PageMemory[] evicted = new PageMemory[1];
        while (true)
        {
            PageMemory memory = pool.tryAcquireToOverwrite(size);
            if (memory == null)
            {
                // the victim's memory is taken over as it is: given back to the pool, it would be zeroed by the
                // cleaner first (64 MiB, ~15 ms), which the page-in would then wait for or race
                if (!evictOne(candidate, size, evicted))
                {
                    return null;
                }
                memory = evicted[0];
                evicted[0] = null;
            }
            if (memory != null)
            {
                final CachePage page = new CachePage(memory, owner, false);
                page.markFromDisk();
                page.tryPin(); // a new page: always succeeds; pinned before any evictor can see it
                resident.add(page);
                pageIns.increment();
                return page;
            }
        }
    }

    /**
     * Frees a page whose segment is gone (deleted, truncated away, log closed), now or at its last unpin.
     *
     * @param page the page.
     */
    public void discard(final CachePage page)
    {
        if (page.retire())
        {
            free(page);
        }
    }

    /**
     * Called from {@link CacheOwner#onPageFreeable(CachePage)} paths: frees a retired page once unpinned.
     *
     * @param page the retired page.
     */
    public void freeRetired(final CachePage page)
    {
        if (page.tryEvictRetired())
        {
            free(page);
        }
    }

    private void free(final CachePage page)
    {
        if (resident.remove(page))
        {
            pool.release(page.memory());
        }
    }

    private boolean evictOne(final long belowValue)
    {
        return evictOne(belowValue, 0, null);
    }

    /**
     * Evicts the unpinned read-only page of least value, if below {@code belowValue}.
     *
     * @param takeOverSize when positive, a victim of this size is not given back to the pool ...
     * @param takenOver    ... but handed to the caller in {@code takenOver[0]}, still counted as in use.
     * @return true when a page was evicted, or one was worth evicting but a reader pinned it first (try again).
     */
    private boolean evictOne(final long belowValue, final int takeOverSize, final PageMemory[] takenOver)
    {
        synchronized (evictionLock)
        {
            CachePage victim = null;
            long victimValue = Long.MAX_VALUE;
            for (final CachePage page : resident)
            {
                if (page.writable() || page.pinCount() > 0 || page.isEvicted())
                {
                    continue;
                }
                final long value = policy.value(page);
                if (value < victimValue)
                {
                    victim = page;
                    victimValue = value;
                }
            }
            if (victim == null || victimValue >= belowValue || !victim.tryEvict())
            {
                return victim != null && victimValue < belowValue;
            }
            victim.owner().onPageEvicted(victim);
            evictions.increment();
            if (takeOverSize > 0 && victim.memory().size() == takeOverSize && resident.remove(victim))
            {
                takenOver[0] = victim.memory();
            }
            else
            {
                free(victim);
            }
            return true;
        }
    }

    private long candidateValue(final CacheOwner owner)
    {
        long value = System.nanoTime();
        final long closeness = policy.tailSegments() - owner.distanceFromTail();
        if (closeness > 0)
        {
            value += closeness * policy.tailBonusNanos();
        }
        if (owner.hasConsumersAhead())
        {
            value += policy.consumerBonusNanos();
        }
        return value;
    }

    /** Counts a read served from a resident page. */
    public void onHit()
    {
        hits.increment();
    }

    /**
     * Counts a read that went to disk.
     *
     * @param bytes bytes read.
     */
    public void onMiss(final long bytes)
    {
        misses.increment();
        bytesReadFromDisk.add(bytes);
    }

    /**
     * Counts bytes read by a page-in.
     *
     * @param bytes bytes read.
     */
    public void onPageInBytes(final long bytes)
    {
        bytesReadFromDisk.add(bytes);
    }

    /** @return the counters now. */
    public CacheStats stats()
    {
        long pinned = 0;
        for (final CachePage page : resident)
        {
            if (page.pinCount() > 0)
            {
                pinned++;
            }
        }
        return new CacheStats(hits.sum(), misses.sum(), pageIns.sum(), evictions.sum(), bytesReadFromDisk.sum(),
            pinned, resident.size(), pool.usedBytes(), pool.budget());
    }
}
