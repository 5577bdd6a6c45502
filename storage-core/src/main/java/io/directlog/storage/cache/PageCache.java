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
    /** Times a thread that needed memory (a writer, mostly) parked because readers' pins held what it could evict. */
    private final LongAdder pinWaits = new LongAdder();

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
        final long[] deadline = new long[1];
        boolean lastTry = false;
        while (true)
        {
            final PageMemory memory = pool.tryAcquire(size);
            if (memory != null)
            {
                final CachePage page = new CachePage(memory, owner, writable);
                resident.add(page);
                return page;
            }
            if (lastTry)
            {
                return null;
            }
            lastTry = !makeRoom(deadline);
        }
    }

    /**
     * Takes a growing write page for {@code owner}: the segment's whole address range, charged against the budget
     * only for its first {@code charge} bytes (see {@link PagePool#tryAcquireGrowing}); the writer calls
     * {@link #tryGrow} before it writes past {@link CachePage#chargedEnd()}. Evicts read-only pages as needed, as
     * {@link #acquire} does.
     *
     * @param owner    the segment the page will hold.
     * @param capacity the segment's size.
     * @param from     the first byte the writer will write (0 for a new segment; the next block when a log takes
     *                 a page again in the middle of its segment), a multiple of the alignment.
     * @param charge   bytes to charge now from {@code from}: the writer's first chunk.
     * @return the page, writable and registered as resident; null when the budget is held by write pages and
     * pinned pages.
     */
    public CachePage acquireGrowing(final CacheOwner owner, final int capacity, final int from, final int charge)
    {
        final long[] deadline = new long[1];
        boolean lastTry = false;
        while (true)
        {
            final PageMemory memory = pool.tryAcquireGrowing(capacity, from, charge);
            if (memory != null)
            {
                final CachePage page = new CachePage(memory, owner, true);
                resident.add(page);
                return page;
            }
            if (lastTry)
            {
                return null;
            }
            lastTry = !makeRoom(deadline);
        }
    }

    /**
     * Lets the writer of a growing page write up to {@code end}: charges the next chunks against the budget (at
     * least doubling the charge, see {@link #nextCharge}), evicting read-only pages when the budget is full.
     * Called by the page's writer; the fast path is the writer's own check of {@link CachePage#chargedEnd()}.
     *
     * @param page a growing write page.
     * @param end  the position the writer must be able to write up to (exclusive).
     * @return true when the page is charged up to {@code end} or beyond; false when the budget is held by write
     * pages and pinned pages (the append fails with the budget's exception, as a roll that gets no page does).
     */
    public boolean tryGrow(final CachePage page, final int end)
    {
        final PageMemory memory = page.memory();
        final int from = memory.chargedFrom();
        if (end <= from)
        {
            throw new IllegalArgumentException("position " + end + " is not above the page's charged start " + from);
        }
        if (end <= memory.chargedEnd())
        {
            return true;
        }
        final int charge = nextCharge(memory.charge(), end - from, memory.size() - from, pool.alignment());
        final long[] deadline = new long[1];
        boolean lastTry = false;
        while (true)
        {
            if (pool.tryGrow(memory, charge))
            {
                return true;
            }
            if (lastTry)
            {
                return false;
            }
            lastTry = !makeRoom(deadline);
        }
    }

    /**
     * A write page the writer lets go of (its segment rolled, or its log went idle) keeps only the charge of what it
     * holds: a growing page is trimmed to {@code end} (see {@link PagePool#trim}); a fixed page keeps its size.
     * Call before {@link CachePage#markReadOnly()}: a writable page is never evicted, so its charge is not
     * changing under an eviction.
     *
     * @param page the write page.
     * @param end  the end of the bytes it holds (block-aligned, or the page's size).
     */
    public void trimToHeld(final CachePage page, final int end)
    {
        final PageMemory memory = page.memory();
        if (!memory.growing())
        {
            return;
        }
        final int unit = pool.alignment();
        final long held = ((long)Math.max(end - memory.chargedFrom(), 1) + unit - 1) / unit * unit;
        pool.trim(memory, (int)Math.min(memory.charge(), held));
    }

    /**
     * The growth policy of write pages: double the charge, and at least cover {@code end} rounded up to the
     * alignment, never beyond the capacity. Doubling keeps the pool's lock off the writer's path (a 64 MiB segment
     * grows ten times from 64 KiB) while a log that holds a few records is charged its first chunk only.
     *
     * @param current  the charge now.
     * @param end      the position to cover, counted from the charge's start.
     * @param capacity the bytes the charge may reach, counted from its start.
     * @param unit     the alignment charges are multiples of.
     * @return the new charge.
     */
    static int nextCharge(final int current, final int end, final int capacity, final int unit)
    {
        if (end > capacity)
        {
            throw new IllegalArgumentException("position " + end + " is beyond the page of " + capacity + " bytes");
        }
        final long doubled = Math.min((long)current * 2, capacity);
        final long covering = ((long)end + unit - 1) / unit * unit;
        return (int)Math.min(capacity, Math.max(doubled, covering));
    }

    /**
     * Evicts one read-only page, or waits a little for readers' pins to go.
     * <p>
     * When it finds nothing to evict, the caller asks the pool once more before it gives up: another thread (the
     * preparer's {@link #reserve}, a page-in) may have evicted the page this one would have, and given its memory
     * back, after the caller's failed try and before this look; an eviction ends under the eviction lock, so that
     * last try sees its memory.
     *
     * @param deadline the caller's wait deadline (0 until the first wait), kept across calls.
     * @return false when nothing can be evicted: the budget is held by write pages, or pins outlasted the wait.
     */
    private boolean makeRoom(final long[] deadline)
    {
        if (evictOne(Long.MAX_VALUE))
        {
            return true;
        }
        // pins of readers (open batches, page-ins in progress) are short-lived: a write page waits a bounded
        // time for one to go rather than fail the append at once
        if (pinnedReadOnlyBytes() == 0)
        {
            return false;
        }
        final long now = System.nanoTime();
        if (deadline[0] == 0)
        {
            deadline[0] = now + PIN_WAIT_NANOS;
        }
        else if (now - deadline[0] >= 0)
        {
            return false;
        }
        pinWaits.increment();
        LockSupport.parkNanos(PIN_WAIT_PARK_NANOS);
        return true;
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

    /**
     * The share of the budget (percent) that pages readers hold pinned may reach through page-ins: the rest stays
     * for write pages and pages the writer may evict (issue 21: the write page wins over readers). Pins on pages
     * already resident are not refused, so this bounds what page-ins add, not every pin.
     */
    private static final long READ_PIN_SHARE_PERCENT = Long.getLong("directlog.cache.readPinSharePercent", 50);

    /**
     * @return bytes of read-only pages some reader (or a page-in in progress) holds pinned now; 0 exactly when no
     *         such page is pinned (every page's memory is a positive size).
     */
    private long pinnedReadOnlyBytes()
    {
        long bytes = 0;
        for (final CachePage page : resident)
        {
            if (!page.writable() && page.pinCount() > 0)
            {
                bytes += page.memory().size();
            }
        }
        return bytes;
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
        final long pinned = pinnedReadOnlyBytes();
        if (pinned > 0 && pinned + size > pool.budget() * READ_PIN_SHARE_PERCENT / 100)
        {
            // readers hold their share of the budget already: more would leave the writer only pinned pages to
            // evict (it would wait for pins, then fail its append); this read goes to disk into its own buffer.
            // The first pinned page is always allowed, so a budget of a segment or two still caches reads
            return null;
        }
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
            // a growing page is charged for part of its size only: a page-in that overwrites all of it takes a
            // fixed page instead
            if (takeOverSize > 0 && !victim.memory().growing() && victim.memory().size() == takeOverSize &&
                resident.remove(victim))
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

    /** @return times a thread that needed memory parked for readers' pins to go (each park is ~20 us or more). */
    public long pinWaits()
    {
        return pinWaits.sum();
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
