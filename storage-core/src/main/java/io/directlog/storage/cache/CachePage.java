package io.directlog.storage.cache;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.directlog.storage.page.PageMemory;
import org.agrona.concurrent.AtomicBuffer;

/**
 * A segment's residency in memory: the page holding the segment's bytes, pinned by readers with a reference
 * count so that eviction never frees memory a reader is looking at.
 * <p>
 * Pinning is a CAS increment of {@link #pins}; eviction is a CAS from 0 to {@link #EVICTED}, after which no
 * pin can succeed and the memory goes back to the pool. A reader that loses that race reads from disk instead.
 * The writer never pins: its active page is {@link #writable()} and not evictable until the segment rolls.
 * <p>
 * Thread-safe. Written by the writer (position fields of the segment), pinned by any reader.
 */
public final class CachePage
{
    /** The pin count of an evicted page: no pin succeeds any more. */
    public static final int EVICTED = Integer.MIN_VALUE;

    private final PageMemory memory;
    private final CacheOwner owner;
    private final AtomicInteger pins = new AtomicInteger();
    private volatile boolean writable;
    private volatile boolean retired;
    private volatile long lastAccessNanos;
    private volatile int validFrom;
    private volatile boolean fromDisk;
    /** Bytes below this are loaded; {@link Integer#MAX_VALUE} unless a progressive page-in is still reading. */
    private volatile int loadedEnd = Integer.MAX_VALUE;
    private volatile boolean loadFailed;
    /** Readers waiting for a progressive page-in wait here; only readers and the page-in take it, never the writer. */
    private final Object loadProgress = new Object();

    /**
     * @param memory   the page's memory, from the pool.
     * @param owner    the segment it holds.
     * @param writable true for the active segment's write page.
     */
    public CachePage(final PageMemory memory, final CacheOwner owner, final boolean writable)
    {
        this.memory = memory;
        this.owner = owner;
        this.writable = writable;
        this.lastAccessNanos = System.nanoTime();
    }

    /** @return the page's bytes. Read them only while pinned (readers) or as the writer. */
    public AtomicBuffer buffer()
    {
        return memory.buffer();
    }

    /** @return the memory, for I/O from or into it. */
    public PageMemory memory()
    {
        return memory;
    }

    /**
     * @return the end of what the writer may write: the page's size, or for a growing write page the end of its
     * charge so far (see {@link PageCache#tryGrow}). Writer thread.
     */
    public int chargedEnd()
    {
        return memory.chargedEnd();
    }

    /** @return the segment this page holds. */
    public CacheOwner owner()
    {
        return owner;
    }

    /** @return true while this is an active segment's write page (never evicted). */
    public boolean writable()
    {
        return writable;
    }

    /** Called by the writer when its segment rolls: the page becomes read cache. */
    public void markReadOnly()
    {
        writable = false;
    }

    /** @return bytes below this position are not loaded (a page recovered without reading its whole segment). */
    public int validFrom()
    {
        return validFrom;
    }

    /**
     * @param position the first loaded byte; the page now holds bytes read from disk, which readers verify.
     */
    public void validFrom(final int position)
    {
        validFrom = position;
        fromDisk = true;
    }

    /**
     * @param position the first byte the writer writes into a write page taken in the middle of its segment (a log
     *                 that gave its page back while idle, or opened after a clean close): bytes below were never
     *                 loaded, and readers go to disk for them. Unlike {@link #validFrom(int)} the page holds only
     *                 what the writer wrote, so reads from it are not checked as bytes from disk.
     */
    public void writtenFrom(final int position)
    {
        validFrom = position;
    }

    /**
     * @return true when some of the page's bytes were read from disk (a page-in, a recovered or truncated write
     * page): readers check each record's CRC, since the writer did not produce those bytes in this process.
     */
    public boolean fromDisk()
    {
        return fromDisk;
    }

    /** Marks the page as holding bytes read from disk. */
    public void markFromDisk()
    {
        fromDisk = true;
    }

    /**
     * Marks the page as being read in from its start by a progressive page-in, before it is published: readers use
     * the bytes below {@link #loadedEnd()} while the rest loads (see {@link #awaitLoaded}).
     */
    public void startLoading()
    {
        startLoading(0);
    }

    /**
     * Marks the page as being read in from {@code from} by a progressive page-in, before it is published: the bytes
     * below {@code from} are never loaded (readers go to disk for them, see {@link #validFrom(int)}).
     *
     * @param from the first byte the page-in reads, a multiple of the alignment.
     */
    public void startLoading(final int from)
    {
        if (from > 0)
        {
            validFrom(from);
        }
        loadedEnd = from;
    }

    /** @return bytes below this position are loaded; {@link Integer#MAX_VALUE} when all are. */
    public int loadedEnd()
    {
        return loadedEnd;
    }

    /**
     * The page-in read every byte below {@code end} ({@link Integer#MAX_VALUE}: all of them); wakes readers waiting.
     *
     * @param end the new loaded end, above the last.
     */
    public void loadedTo(final int end)
    {
        synchronized (loadProgress)
        {
            loadedEnd = end;
            loadProgress.notifyAll();
        }
    }

    /** The page-in stopped short (an I/O error, close, retention): readers waiting for more read from disk. */
    public void loadFailed()
    {
        synchronized (loadProgress)
        {
            loadFailed = true;
            loadProgress.notifyAll();
        }
    }

    /**
     * Waits until a progressive page-in has loaded the bytes below {@code end}. Call while pinned.
     *
     * @param end          the position needed.
     * @param timeoutNanos how long to wait at most.
     * @return the loaded end, at least {@code end}; or -1 when the page-in failed or did not get there in time (or
     * the thread was interrupted, whose flag stays set): the caller reads from disk instead.
     */
    public int awaitLoaded(final int end, final long timeoutNanos)
    {
        int loaded = loadedEnd;
        if (loaded >= end)
        {
            return loaded;
        }
        final long deadline = System.nanoTime() + timeoutNanos;
        synchronized (loadProgress)
        {
            while ((loaded = loadedEnd) < end && !loadFailed)
            {
                final long left = deadline - System.nanoTime();
                if (left <= 0)
                {
                    return -1;
                }
                try
                {
                    TimeUnit.NANOSECONDS.timedWait(loadProgress, left);
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                    return -1;
                }
            }
        }
        return loaded >= end ? loaded : -1;
    }

    /** @return when a reader last used the page. */
    public long lastAccessNanos()
    {
        return lastAccessNanos;
    }

    /**
     * Pins the page for reading.
     *
     * @return true when pinned; false when it was evicted (read from disk instead).
     */
    public boolean tryPin()
    {
        while (true)
        {
            final int p = pins.get();
            if (p < 0)
            {
                return false;
            }
            if (pins.compareAndSet(p, p + 1))
            {
                lastAccessNanos = System.nanoTime();
                return true;
            }
        }
    }

    /** Releases a pin; the last pin of a retired page frees it. */
    public void unpin()
    {
        final int remaining = pins.decrementAndGet();
        if (remaining == 0 && retired)
        {
            owner.onPageFreeable(this);
        }
    }

    /** @return the number of readers holding the page. */
    public int pinCount()
    {
        return Math.max(0, pins.get());
    }

    /**
     * Takes the page away from readers, if none holds it.
     *
     * @return true when evicted: the caller owns the memory now.
     */
    public boolean tryEvict()
    {
        return !writable && pins.compareAndSet(0, EVICTED);
    }

    /** @return true once evicted. */
    public boolean isEvicted()
    {
        return pins.get() == EVICTED;
    }

    /**
     * Marks the page for release as soon as no reader holds it.
     *
     * @return true when it was evicted now (caller frees); false when the last reader's unpin will call back.
     */
    public boolean retire()
    {
        writable = false;
        retired = true;
        return pins.compareAndSet(0, EVICTED);
    }

    /**
     * Called by the one that takes the page's memory after a retire-triggered unpin.
     *
     * @return true when this call moved the page to evicted.
     */
    public boolean tryEvictRetired()
    {
        return pins.compareAndSet(0, EVICTED);
    }
}
