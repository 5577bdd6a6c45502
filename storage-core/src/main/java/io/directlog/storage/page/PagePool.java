package io.directlog.storage.page;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The store's one memory budget: aligned pages of any segment size, allocated up to the budget, reused,
 * zeroed before reuse by a background thread (a write page must start all zero, because the bytes after the
 * last record are written to disk as the zero padding of the tail block), freed on close.
 * <p>
 * Design note: one allocator for the whole store so that many small logs and a few big ones share a budget;
 * pages are kept per size and a free page of another size is given back to the OS when the budget needs room.
 * <p>
 * A growing page ({@link #tryAcquireGrowing}) is a segment-sized address range charged in chunks: it counts only
 * the prefix its owner may write, {@link #tryGrow} charges more as the segment fills, and its release gives the
 * whole charge back at once (the mapping is unmapped, not pooled: a fresh anonymous mapping is zero for nothing,
 * so a growing page needs no cleaner). Many logs that each hold a few records then cost a chunk each, not a
 * segment each (issue 18). Each growth is faulted in off the writer's thread ({@link PagePopulator}).
 * <p>
 * Thread-safe: a short lock guards the accounting; zeroing happens outside it.
 */
public final class PagePool implements AutoCloseable
{
    private static final int CLEAN_CHUNK = 1 << 20;
    private final long budget;
    private final int alignment;
    private final Map<Integer, ArrayDeque<PageMemory>> clean = new HashMap<>();
    private final LinkedBlockingQueue<PageMemory> dirty = new LinkedBlockingQueue<>();
    private final Thread cleaner;
    private final PagePopulator populator = new PagePopulator();
    private long allocatedBytes;
    private long freeBytes;
    private long allocations;
    private long zeroedByTaker;
    /** The free page the cleaner is zeroing now (counted in freeBytes, in neither queue), or null. Guarded by this. */
    private PageMemory cleaning;
    /** Asks the cleaner to stop zeroing {@link #cleaning} and free it: a growing page needs its memory. */
    private volatile boolean freeCleaning;
    private volatile boolean closed;

    /**
     * @param budget    bytes all pages together may use.
     * @param alignment the direct-I/O alignment.
     */
    public PagePool(final long budget, final int alignment)
    {
        this.budget = budget;
        this.alignment = alignment;
        cleaner = new Thread(this::cleanLoop, "directlog-page-cleaner");
        cleaner.setDaemon(true);
        cleaner.start();
    }

    /** @return the budget in bytes. */
    public long budget()
    {
        return budget;
    }

    /** @return the direct-I/O alignment of every page. */
    public int alignment()
    {
        return alignment;
    }

    /** @return bytes allocated (in use, free, or waiting to be zeroed). */
    public synchronized long allocatedBytes()
    {
        return allocatedBytes;
    }

    /** @return bytes held in use by callers. */
    public synchronized long usedBytes()
    {
        return allocatedBytes - freeBytes;
    }

    /**
     * @return pages a taker had to zero on its own thread because none was ready (a writer's roll stalls for it:
     * about 10 ms for 64 MiB here); {@code PageCache.reserve} keeps this at zero for write pages.
     */
    public synchronized long zeroedByTaker()
    {
        return zeroedByTaker;
    }

    /** @return how many times native memory was allocated. */
    public synchronized long allocations()
    {
        return allocations;
    }

    /**
     * Takes a zeroed page, allocating one if the budget has room; never waits for eviction.
     *
     * @param size the page size.
     * @return a zeroed page, or null when the budget is used up by pages in use.
     */
    public PageMemory tryAcquire(final int size)
    {
        return tryAcquire(size, true);
    }

    /**
     * Takes a page whose every byte the caller overwrites (a page-in reads the whole segment into it): a free page
     * the cleaner has not zeroed yet is taken as it is, which spares zeroing 64 MiB on the taker's thread (or
     * waiting for the cleaner) before a read that replaces those bytes anyway.
     *
     * @param size the page size.
     * @return a page holding any bytes, or null when the budget is used up by pages in use.
     */
    public PageMemory tryAcquireToOverwrite(final int size)
    {
        return tryAcquire(size, false);
    }

    private PageMemory tryAcquire(final int size, final boolean zeroed)
    {
        final PageMemory toZero;
        synchronized (this)
        {
            if (!awaitCleaningOf(size))
            {
                return null;
            }
            final PageMemory ready = zeroed ? takeClean(size) : takeDirtyOrClean(size);
            if (ready != null)
            {
                return ready;
            }
            // a page of this size still waiting for the cleaner: take it and zero it here rather than allocate
            toZero = takeDirty(size);
            if (toZero != null)
            {
                zeroedByTaker++;
            }
            else if (!reserveAllocation(size))
            {
                return null;
            }
        }
        if (toZero != null)
        {
            toZero.zero();
            return toZero;
        }
        return allocateReserved(size);
    }

    /**
     * A free page of this size in the cleaner's hands is not missing: waits the moment it takes to zero it rather
     * than report the budget used up (which would evict a page, or fail a writer's roll). Called holding this.
     *
     * @return false when interrupted (the interrupt is kept).
     */
    private boolean awaitCleaningOf(final int size)
    {
        while (true)
        {
            if (closed)
            {
                throw new IllegalStateException("page pool is closed");
            }
            if (cleaning == null || cleaning.size() != size || allocatedBytes + size <= budget || hasFreePage(size))
            {
                return true;
            }
            try
            {
                wait(10);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    /**
     * A free page the cleaner is zeroing is in no queue, so it cannot make room for a growing page until the cleaner
     * lets go: ask it to stop and free the page (one chunk's zeroing), rather than report the budget used up.
     * Called holding this.
     * @return true when the cleaner held a page and let go of it; false when it held none, or on interrupt.
     */
    private boolean awaitCleanerFor(final int bytes)
    {
        final boolean held = cleaning != null;
        while (cleaning != null && !closed && allocatedBytes + bytes > budget)
        {
            freeCleaning = true;
            try
            {
                wait(10);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return held;
    }

    /** For a caller that overwrites every byte: a dirty page first, which spares the cleaner. Called holding this. */
    private PageMemory takeDirtyOrClean(final int size)
    {
        final PageMemory dirtyPage = takeDirty(size);
        return dirtyPage != null ? dirtyPage : takeClean(size);
    }

    /** @return a zeroed free page of this size, or null. Called holding this. */
    private PageMemory takeClean(final int size)
    {
        final ArrayDeque<PageMemory> pages = clean.get(size);
        if (pages != null && !pages.isEmpty())
        {
            freeBytes -= size;
            return pages.poll();
        }
        return null;
    }

    /** @return a free page of this size not zeroed yet (out of the cleaner's queue), or null. Called holding this. */
    private PageMemory takeDirty(final int size)
    {
        for (final PageMemory p : dirty)
        {
            if (p.size() == size && dirty.remove(p))
            {
                freeBytes -= size;
                return p;
            }
        }
        return null;
    }

    /**
     * Charges a new page of this size to the budget, giving free pages of other sizes back to the OS to make room.
     * Called holding this.
     *
     * @return false when the budget is used up by pages in use.
     */
    private boolean reserveAllocation(final int size)
    {
        releaseFreePages(size, size); // pages of other sizes
        if (allocatedBytes + size > budget)
        {
            return false;
        }
        allocatedBytes += size;
        allocations++;
        return true;
    }

    /** Allocates a page charged by {@link #reserveAllocation}, outside the lock; a failure gives the charge back. */
    private PageMemory allocateReserved(final int size)
    {
        try
        {
            return PageMemory.allocate(size, alignment);
        }
        catch (final RuntimeException | Error e)
        {
            synchronized (this)
            {
                allocatedBytes -= size;
            }
            throw e;
        }
    }

    /**
     * Gives a page back; it is zeroed in the background and reused. The caller no longer touches it.
     *
     * @param page the page.
     */
    public void release(final PageMemory page)
    {
        if (page.growing())
        {
            synchronized (this)
            {
                allocatedBytes -= page.charge();
                notifyAll();
            }
            page.free(); // munmap: the written prefix goes back to the kernel; a new mapping is zero for nothing
            return;
        }
        synchronized (this)
        {
            if (closed)
            {
                allocatedBytes -= page.size();
                page.free();
                return;
            }
            freeBytes += page.size();
            dirty.add(page); // under the lock: a page is always in a queue, or the cleaner's (see cleaning)
            notifyAll();
        }
    }

    /**
     * Takes a growing page: {@code capacity} bytes of address range of which only {@code charge} count against the
     * budget (see {@link PageMemory#allocateGrowing}). Free fixed pages are given back to the OS to make room.
     *
     * @param capacity the page's size: a segment's.
     * @param charge   the bytes charged now, a positive multiple of the alignment, at most {@code capacity}.
     * @return a zeroed page, or null when the budget is used up by pages in use.
     */
    public PageMemory tryAcquireGrowing(final int capacity, final int charge)
    {
        return tryAcquireGrowing(capacity, 0, charge);
    }

    /**
     * Takes a growing page whose charge counts from {@code from} (see {@link PageMemory#allocateGrowing}).
     *
     * @param capacity the page's size: a segment's.
     * @param from     the first byte its owner will write, a multiple of the alignment.
     * @param charge   the bytes charged now from {@code from}.
     * @return a zeroed page, or null when the budget is used up by pages in use.
     */
    public PageMemory tryAcquireGrowing(final int capacity, final int from, final int charge)
    {
        PageMemory.checkWindow(from, charge, capacity, alignment);
        synchronized (this)
        {
            if (closed)
            {
                throw new IllegalStateException("page pool is closed");
            }
            releaseFreePagesFor(charge);
            if (allocatedBytes + charge > budget && awaitCleanerFor(charge))
            {
                releaseFreePagesFor(charge); // the page the cleaner held is in the clean queue now
            }
            if (allocatedBytes + charge > budget)
            {
                return null;
            }
            allocatedBytes += charge;
            allocations++;
        }
        try
        {
            return PageMemory.allocateGrowing(capacity, alignment, from, charge);
        }
        catch (final RuntimeException | Error e)
        {
            synchronized (this)
            {
                allocatedBytes -= charge;
            }
            throw e;
        }
    }

    /**
     * Charges more of a growing page against the budget, so that its owner may write up to {@code charge}. Never
     * waits and never evicts (the cache does, see {@code PageCache.tryGrow}); free fixed pages are given back to
     * the OS to make room. A charge never shrinks while the page is held.
     *
     * @param page   a growing page the caller holds.
     * @param charge the bytes it may write from its {@link PageMemory#chargedFrom()}, a multiple of the alignment.
     * @return true when the page is charged for {@code charge} bytes (or more) now; false when the budget is
     * used up by pages in use.
     */
    public boolean tryGrow(final PageMemory page, final int charge)
    {
        if (!page.growing())
        {
            throw new IllegalArgumentException("a fixed page of " + page.size() + " bytes cannot grow");
        }
        PageMemory.checkWindow(page.chargedFrom(), charge, page.size(), alignment);
        final int chargedEnd;
        synchronized (this)
        {
            chargedEnd = page.chargedEnd();
            final int delta = charge - page.charge();
            if (delta <= 0)
            {
                return true;
            }
            if (closed)
            {
                throw new IllegalStateException("page pool is closed");
            }
            releaseFreePagesFor(delta);
            if (allocatedBytes + delta > budget && awaitCleanerFor(delta))
            {
                releaseFreePagesFor(delta);
            }
            if (allocatedBytes + delta > budget)
            {
                return false;
            }
            allocatedBytes += delta;
            page.charge(charge);
        }
        populator.ahead(page, chargedEnd, page.chargedEnd()); // charged first, then faulted in off the writer
        return true;
    }

    /** @return true when the populator has served every request so far (tests wait for it). */
    boolean populatorIdle()
    {
        return populator.idle();
    }

    /**
     * Lowers the charge of a growing page its owner no longer writes (a rolled or idle write page, kept as read
     * cache) to what it holds: the bytes past the new charge were never written, so they are zero and not resident,
     * and counting them would charge a read page for up to twice its records. Nothing is unmapped.
     *
     * @param page   a growing page nobody writes any more.
     * @param charge the bytes it holds from its {@link PageMemory#chargedFrom()}, a positive multiple of the
     *               alignment; a charge at or above the current one changes nothing.
     */
    public void trim(final PageMemory page, final int charge)
    {
        if (!page.growing())
        {
            throw new IllegalArgumentException("a fixed page of " + page.size() + " bytes cannot be trimmed");
        }
        PageMemory.checkWindow(page.chargedFrom(), charge, page.size(), alignment);
        synchronized (this)
        {
            final int delta = page.charge() - charge;
            if (delta <= 0)
            {
                return;
            }
            allocatedBytes -= delta;
            page.charge(charge);
            notifyAll();
        }
    }

    private boolean hasFreePage(final int size)
    {
        final ArrayDeque<PageMemory> pages = clean.get(size);
        return (pages != null && !pages.isEmpty()) || dirty.stream().anyMatch(p -> p.size() == size);
    }

    /**
     * @param size a page size.
     * @return true when a page of this size can be had without zeroing it on the taker's thread: a zeroed one, one
     * queued for (or being zeroed by) the cleaner, or room in the budget for a fresh one.
     */
    public synchronized boolean hasSpare(final int size)
    {
        return hasFreePage(size) || (cleaning != null && cleaning.size() == size) || allocatedBytes + size <= budget;
    }

    /** @return true while the cleaner zeroes a free page (tests catch the moment it is in no queue). */
    synchronized boolean cleanerHoldsAPage()
    {
        return cleaning != null;
    }

    /** @return true when no free page waits for the cleaner (none queued, none being zeroed). */
    public synchronized boolean allFreePagesZeroed()
    {
        return dirty.isEmpty() && cleaning == null;
    }

    /** @return true when bytes could be allocated without evicting anything. */
    public synchronized boolean hasRoomFor(final int size)
    {
        final ArrayDeque<PageMemory> pages = clean.get(size);
        return (pages != null && !pages.isEmpty()) || allocatedBytes + size <= budget ||
            allocatedBytes - freeBytes + size <= budget;
    }

    /** Gives free fixed pages of any size back to the OS until {@code bytes} more fit in the budget. */
    private void releaseFreePagesFor(final int bytes)
    {
        releaseFreePages(bytes, -1);
    }

    /**
     * @param size     bytes that must fit.
     * @param keepSize clean pages of this size are kept (the caller would reuse one), or -1.
     */
    private void releaseFreePages(final int size, final int keepSize)
    {
        for (final Map.Entry<Integer, ArrayDeque<PageMemory>> e : clean.entrySet())
        {
            if (e.getKey() == keepSize)
            {
                continue;
            }
            final ArrayDeque<PageMemory> pages = e.getValue();
            while (allocatedBytes + size > budget && !pages.isEmpty())
            {
                freeIdle(pages.poll());
            }
        }
        if (allocatedBytes + size > budget)
        {
            for (final PageMemory p : dirty)
            {
                if (allocatedBytes + size <= budget)
                {
                    break;
                }
                if (dirty.remove(p))
                {
                    freeIdle(p);
                }
            }
        }
    }

    private void cleanLoop()
    {
        while (!closed)
        {
            try
            {
                final PageMemory page;
                synchronized (this)
                {
                    if (dirty.isEmpty())
                    {
                        wait(100);
                        continue;
                    }
                    page = dirty.poll();
                    cleaning = page; // taken and marked in one step: tryAcquire never misses a free page
                }
                final boolean zeroed = page.zeroUnless(CLEAN_CHUNK, () -> freeCleaning);
                synchronized (this)
                {
                    cleaning = null;
                    freeCleaning = false;
                    notifyAll();
                    if (closed || !zeroed)
                    {
                        freeIdle(page);
                    }
                    else
                    {
                        clean.computeIfAbsent(page.size(), k -> new ArrayDeque<>()).add(page);
                    }
                }
            }
            catch (final InterruptedException e)
            {
                return;
            }
        }
    }

    /** Frees every free page and stops the cleaner; pages still in use are freed as they are released. */
    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
        }
        populator.close();
        cleaner.interrupt();
        try
        {
            cleaner.join(10_000);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        synchronized (this)
        {
            clean.values().forEach(pages -> pages.forEach(this::freeIdle));
            clean.clear();
            dirty.forEach(this::freeIdle);
            dirty.clear();
        }
    }

    /** Gives a free page back to the OS; the caller takes it out of its queue. Called holding this. */
    private void freeIdle(final PageMemory page)
    {
        allocatedBytes -= page.size();
        freeBytes -= page.size();
        page.free();
    }
}
