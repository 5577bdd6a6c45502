package io.directlog.storage.log;

import java.nio.ByteBuffer;

import io.directlog.storage.MemoryBudgetExceededException;
import io.directlog.storage.cache.CachePage;
import io.directlog.storage.cache.PageCache;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The active segment's write page as its writer holds it (issue 18): a growing page (one segment-sized range of
 * addresses, so O_DIRECT writes still go from page memory at the segment's own positions) taken from the block
 * where the writer goes on, charged against the memory budget ahead of the writer in doubling chunks, and given to
 * the read cache, charged for what it holds, when the segment rolls or the log goes idle. A log holds no page while
 * it has nothing to write: after a clean open, and after an idle release.
 * <p>
 * The writer asks {@link #ensureWritable} before it writes a record or a gap: a plain int compare against the
 * charge it holds; only past it does the cache's lock come in (about ten times for a 64 MiB segment).
 * <p>
 * Design note: apart from {@link LogAppender} so that the appender keeps to where records go and when they are
 * written; how a page is taken, charged and let go is this class's alone.
 * <p>
 * Not thread-safe; owned by the log's writer thread (the opening thread hands the log over before the writer
 * knows it).
 */
final class WritePage
{
    /**
     * The first charge of a new write page: a log of a few small records costs this much of the budget while it is
     * active (10,000 such logs 625 MiB), and a 64 MiB segment grows ten times.
     */
    static final int FIRST_CHUNK = 64 << 10;

    private final String logName;
    private final PageCache cache;
    /** How long the log takes no append before its page goes to the read cache (StoreConfig.pageIdleRelease). */
    private final long idleReleaseNanos;
    /** The writer's mark (its next offset) when {@link #idleFor} last saw it move, and when. */
    private long markSeen = Long.MIN_VALUE;
    private long markMovedNanos;
    private CachePage page;
    private AtomicBuffer buffer;
    private ByteBuffer bytes;
    /** The writer's copy of the page's charged end: it may write below this without asking the budget. */
    private int chargedEnd;

    WritePage(final String logName, final PageCache cache, final long idleReleaseNanos)
    {
        this.logName = logName;
        this.cache = cache;
        this.idleReleaseNanos = idleReleaseNanos;
    }

    /**
     * The idle clock, asked by the writer's duty cycle when nothing is left to write: a plain compare, no clock read
     * of its own (the duty cycle passes the time it read once for all its logs).
     *
     * @param mark     what moves with each append (the writer's next offset).
     * @param nowNanos the duty cycle's time.
     * @return true when {@code mark} has not moved for {@code pageIdleRelease} (the page, if held, and then the
     * active segment's write descriptor may go: see IdleRelease).
     */
    boolean idleFor(final long mark, final long nowNanos)
    {
        if (mark != markSeen)
        {
            markSeen = mark;
            markMovedNanos = nowNanos;
            return false;
        }
        return nowNanos - markMovedNanos >= idleReleaseNanos;
    }

    /** @return true while the writer holds a page. */
    boolean held()
    {
        return page != null;
    }

    /** @return the page, or null. */
    CachePage page()
    {
        return page;
    }

    /** @return the page's bytes for the record encoder. */
    AtomicBuffer buffer()
    {
        return buffer;
    }

    /** @return the page's bytes for the O_DIRECT write. */
    ByteBuffer bytes()
    {
        return bytes;
    }

    /**
     * Holds a page someone else took: crash recovery's (a fixed page of the segment's size) or truncation's.
     *
     * @param taken the write page.
     */
    void hold(final CachePage taken)
    {
        page = taken;
        buffer = taken.buffer();
        bytes = taken.memory().byteBuffer();
        chargedEnd = taken.chargedEnd();
    }

    /**
     * Takes a new growing page for {@code segment}, charged from {@code from} for its first chunk; below
     * {@code from} it holds nothing (readers go to disk). The page held until now, if any (a roll's previous
     * segment's), is let go of once the new one is had, so a failure leaves it held and writable.
     *
     * @param segment the active segment.
     * @param from    the first byte the writer writes: 0 for a new segment, else the block after the last one written.
     * @param heldEnd the end of what the writer wrote into the page held until now (see {@link #letGo}).
     * @return null, or why no page could be had (the append that needed it fails with it; the log goes on).
     */
    MemoryBudgetExceededException take(final Segment segment, final int from, final int heldEnd)
    {
        final int capacity = segment.capacity();
        final CachePage taken = cache.acquireGrowing(segment, capacity, from, Math.min(FIRST_CHUNK, capacity - from));
        if (taken == null)
        {
            return exceeded("cannot get a write page", Math.min(FIRST_CHUNK, capacity - from), capacity);
        }
        if (from > 0)
        {
            taken.writtenFrom(from);
            final SegmentIndex index = segment.index();
            if (index != null)
            {
                index.entryAtNextRecord(); // readers of the next record find this page, not the disk
            }
        }
        letGo(heldEnd);
        hold(taken);
        // readers find it from now on; a page the segment had (let go of while idle) goes, once its readers unpin:
        // the bytes below from are on disk, and one page per segment keeps the read path simple
        final CachePage replaced = segment.page();
        segment.page(taken);
        if (replaced != null && replaced != taken)
        {
            cache.discard(replaced);
        }
        return null;
    }

    /**
     * Makes sure the writer may write below {@code end}: charges more of the page when the write goes past its
     * charge, evicting read cache as a roll does.
     *
     * @param end the end of the bytes about to be written (the record and the gap to its block's end).
     * @return null, or why not: only write pages and pinned pages hold the budget.
     */
    MemoryBudgetExceededException ensureWritable(final int end)
    {
        if (end <= chargedEnd)
        {
            return null;
        }
        if (!cache.tryGrow(page, end))
        {
            return exceeded("cannot grow its write page to hold bytes up to position " + end,
                end - page.memory().chargedFrom(), page.memory().size());
        }
        chargedEnd = page.chargedEnd();
        return null;
    }

    /**
     * Lets go of the page: it becomes read cache (evictable), charged for the blocks below {@code writtenEnd} only.
     * The writer must have written everything it copied (no block of it is written again).
     *
     * @param writtenEnd the end of what the writer wrote into it.
     * @return the page, still the segment's page for readers; null when none was held.
     */
    CachePage letGo(final int writtenEnd)
    {
        final CachePage released = page;
        page = null;
        buffer = null;
        bytes = null;
        chargedEnd = 0;
        if (released != null)
        {
            cache.trimToHeld(released, writtenEnd);
            released.markReadOnly();
        }
        return released;
    }

    private MemoryBudgetExceededException exceeded(final String what, final long charge, final int segmentSize)
    {
        return new MemoryBudgetExceededException("log '" + logName + "' " + what + " (" + charge + " bytes " +
            "charged from its first writable block, segment size " + segmentSize + "): memory budget " +
            cache.pool().budget() + " bytes, " + cache.pool().usedBytes() + " in use by write pages and pinned or " +
            "hot pages");
    }
}
