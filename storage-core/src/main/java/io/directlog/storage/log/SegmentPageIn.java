package io.directlog.storage.log;

import java.io.IOException;

import io.directlog.storage.StorageReadException;
import io.directlog.storage.cache.CachePage;
import io.directlog.storage.format.SegmentHeaderDescriptor;

/**
 * Reads a rolled segment of one log into a cache page (O_DIRECT, never mmap): whole, for a reader that pages in
 * on its own, or progressively, for the read-ahead thread.
 * <p>
 * Why progressively: a whole page-in of a 64 MiB segment takes 100-300 ms of the device, and a sequential reader
 * that reached the segment meanwhile waited for all of it (the {@code loadLock}) before its first read, so a cold
 * replay ran at about half the device's speed with a p99 read of 100+ ms. A progressive page-in publishes the page
 * first and then reads it in {@link #PAGE_IN_CHUNK} reads, raising {@link CachePage#loadedEnd()} after each: a
 * reader uses the first MiBs while the rest loads, and asks for the next segment at once, which keeps the
 * read-ahead thread, and so the device, busy across segment boundaries. The load lock is held only to take and
 * publish the page, never across the reads; the writer takes no lock here.
 * <p>
 * Thread-safe.
 */
final class SegmentPageIn
{
    /** Bytes per O_DIRECT read of a page-in (see {@link #readWhole}). */
    static final int PAGE_IN_CHUNK = 1 << 20;

    private final ReadSource log;
    private final LogContext context;
    private final SegmentIndexLoader indexes;

    SegmentPageIn(final ReadSource log, final LogContext context, final SegmentIndexLoader indexes)
    {
        this.log = log;
        this.context = context;
        this.indexes = indexes;
    }

    /** Reads a whole rolled segment into a cache page when that is worth it; true when a page is now resident. */
    boolean pageIn(final Segment segment, final boolean sequential)
    {
        if (segment.page() != null)
        {
            return true;
        }
        if (segment.sequence() == log.activeSequence())
        {
            // the active segment's page is the writer's to take (from its next block): a paged-in page would
            // replace the writer's in the segment and lack what it writes next. Its records are read from disk
            // while the log holds no write page (idle, or opened clean); a truncation that makes a rolled
            // segment active again discards its page under the same rule
            return false;
        }
        if (!sequential && !context.cache().pool().hasRoomFor(segment.capacity()))
        {
            return false;
        }
        synchronized (segment.loadLock())
        {
            if (segment.page() != null)
            {
                return true;
            }
            final CachePage page = context.cache().tryAcquireForPageIn(segment, segment.capacity());
            if (page == null)
            {
                return false;
            }
            try
            {
                final int read = readWhole(segment, page);
                context.cache().onPageInBytes(read);
                // the persisted index when there is one: scanning the page would check the CRC32C of all 64 MiB
                // under the load lock (5-10 ms of a read-ahead thread that the device waits for), and every
                // record read from this page is checked at read anyway
                if (segment.index() == null && !indexes.loadPersistedIndex(segment))
                {
                    final SegmentIndex index = new SegmentIndex(segment.capacity());
                    final RecordScanner scanner = new RecordScanner(segment.blockSize());
                    scanner.scan(page.buffer(), SegmentHeaderDescriptor.LENGTH, Math.min(read, segment.capacity()),
                        segment.baseOffset(), log.recordLogId(), index);
                    segment.publishScannedEnd(scanner.position());
                    segment.maxTimestamp(scanner.lastTimestamp());
                    segment.index(index);
                }
                segment.page(page);
                page.unpin(); // the page-in's own pin: now readers pin it, and eviction may take it
                return !discardedByCloseOrRetention(segment, page);
            }
            catch (final IOException | RuntimeException e)
            {
                context.cache().discard(page);
                page.unpin(); // the page-in's pin: its release frees the retired page
                throw failure(segment, e);
            }
        }
    }

    /**
     * Pages a rolled segment in progressively (the read-ahead thread): the page is published before its bytes are
     * read, readers wait only for the chunks they need ({@link CachePage#awaitLoaded}). Falls back to
     * {@link #pageIn} when the segment has no persisted index (readers need the index before the bytes; building
     * it means scanning them). Skipped when the segment is gone, active or resident.
     */
    void pageInProgressively(final Segment segment)
    {
        if (log.isClosed() || segment.isDeleted() || segment.page() != null ||
            segment.sequence() == log.activeSequence())
        {
            return;
        }
        final CachePage page;
        final int from;
        synchronized (segment.loadLock())
        {
            if (segment.page() != null)
            {
                return;
            }
            if (segment.index() == null && !indexes.loadPersistedIndex(segment))
            {
                pageIn(segment, true); // reentrant: the same load lock
                return;
            }
            from = unreadFrom(segment);
            if (from < 0)
            {
                return; // the reader read (nearly) all of it from disk before this page-in's turn came
            }
            page = context.cache().tryAcquireForPageIn(segment, segment.capacity());
            if (page == null)
            {
                return;
            }
            page.startLoading(from);
            segment.page(page); // the page-in keeps its pin until the last chunk: no eviction takes it meanwhile
            if (discardedByCloseOrRetention(segment, page))
            {
                page.loadFailed();
                page.unpin();
                return;
            }
        }
        load(segment, page, from);
    }

    /**
     * Where a read-ahead page-in starts: after the chunks a sequential reader already read from disk while the
     * page-in waited its turn. Why: with many logs read at once the one read-ahead thread falls behind the reader,
     * which meanwhile reads each segment from disk itself; paging in from position 0 then read most segments twice
     * (issue 21's catch-up: 1.6-2x the bytes delivered came off the device, bandwidth the writer's appends wait for).
     *
     * @return the first byte to load (a multiple of {@link #PAGE_IN_CHUNK}), or -1 when less than a chunk is left.
     */
    private static int unreadFrom(final Segment segment)
    {
        return unreadFrom(segment.readFromDiskTo(), segment.endPosition());
    }

    /**
     * @param readTo how far readers read the segment from disk.
     * @param end    the segment's end position.
     * @return the first byte a page-in loads (readTo rounded down to a chunk), or -1 when less than a chunk is left.
     */
    static int unreadFrom(final int readTo, final int end)
    {
        final int from = readTo / PAGE_IN_CHUNK * PAGE_IN_CHUNK;
        return from > 0 && end - from < PAGE_IN_CHUNK ? -1 : from;
    }

    /** Reads the published page chunk by chunk, outside the load lock; stops when the segment lets go of it. */
    private void load(final Segment segment, final CachePage page, final int from)
    {
        final int capacity = segment.capacity();
        int position = from;
        try
        {
            while (position < capacity)
            {
                if (segment.page() != page || segment.isDeleted() || segment.filesClosed())
                {
                    // close, retention or truncation took the page (and discarded it: its memory goes at the unpin
                    // below); readers waiting on it read from disk
                    page.loadFailed();
                    return;
                }
                final int length = Math.min(PAGE_IN_CHUNK, capacity - position);
                final int read = segment.read(page.memory().byteBuffer(), position, length, position);
                position += Math.max(0, read);
                if (read < length)
                {
                    page.buffer().setMemory(position, capacity - position, (byte)0); // a short file: zeros after it
                    position = capacity;
                }
                page.loadedTo(position < capacity ? position : Integer.MAX_VALUE);
            }
            context.cache().onPageInBytes(position - from);
        }
        catch (final IOException | RuntimeException e)
        {
            // a race with close or retention, or an I/O error: a reader that meets the segment next pages it in or
            // reads it from disk, and reports what it meets
            page.loadFailed();
            segment.dropPage(page);
            context.cache().discard(page);
        }
        finally
        {
            page.unpin(); // the page-in's pin: eviction may take the page now (or a discard frees it)
        }
    }

    /**
     * Close or retention ran while the page was taken: they set their flag before looking for a page to discard,
     * so either they saw this one or this check sees their flag.
     */
    private boolean discardedByCloseOrRetention(final Segment segment, final CachePage page)
    {
        if (segment.filesClosed() || segment.isDeleted())
        {
            segment.dropPage(page);
            context.cache().discard(page);
            return true;
        }
        return false;
    }

    private RuntimeException failure(final Segment segment, final Exception e)
    {
        if (e instanceof RuntimeException re)
        {
            return re;
        }
        return new StorageReadException("log '" + log.name() + "': page-in of " + segment.path() + " failed: " +
            e.getMessage(), e);
    }

    /**
     * Reads the segment into the page in {@link #PAGE_IN_CHUNK} reads. Why not one read of the whole segment: on the
     * virtio disk measured, O_DIRECT sequential reads ran at about 1.2-1.4 GiB/s in 1 MiB requests and 0.9 GiB/s
     * in 64 MiB ones (dd, same files, same minute); the kernel splits a huge request into a burst the device serves
     * worse than a steady stream.
     *
     * @return the bytes read (less than the capacity only at the end of a short file, whose missing rest is then
     * zeroed: the page was taken without zeroing).
     */
    private static int readWhole(final Segment segment, final CachePage page) throws IOException
    {
        final int capacity = segment.capacity();
        int position = 0;
        while (position < capacity)
        {
            final int length = Math.min(PAGE_IN_CHUNK, capacity - position);
            final int read = segment.read(page.memory().byteBuffer(), position, length, position);
            position += Math.max(0, read);
            if (read < length)
            {
                page.buffer().setMemory(position, capacity - position, (byte)0);
                break;
            }
        }
        return position;
    }
}
