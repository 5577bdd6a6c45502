package io.directlog.storage.log;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import io.directlog.storage.cache.CacheOwner;
import io.directlog.storage.cache.CachePage;
import io.directlog.storage.cache.PageCache;
import io.directlog.storage.format.RecordDescriptor;
import io.directlog.storage.spi.BlockFile;

/**
 * One segment file of a log: its place in the log (sequence, base offset), how far its records are visible,
 * its page in the cache if resident, and its index.
 * <p>
 * Thread-safety: {@link #endPosition()} and {@link #endOffset()} are written by the log's writer thread and
 * read by readers: the writer releases endPosition before the log's visible end offset, readers acquire them
 * in the opposite order. The page reference is swapped by the cache on eviction; readers pin before use.
 */
public final class Segment implements CacheOwner
{
    private static final VarHandle PAGE;

    static
    {
        try
        {
            PAGE = MethodHandles.lookup().findVarHandle(Segment.class, "page", CachePage.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final SegmentHost host;
    private final long sequence;
    private final long baseOffset;
    private final Path path;
    private final int capacity;
    private final int blockSize;
    private final boolean recycled;
    /** Its header's FLAG_ZERO_AHEAD: each write also zeroed the block after its last one. */
    private final boolean zeroAhead;
    /** Where the hole in the offsets before this segment starts (its header's FLAG_HOLE_BEFORE), or -1. */
    private final long holeFrom;
    private final Object loadLock = new Object();
    private volatile int endPosition;
    private volatile long endOffset;
    private volatile long maxTimestamp;
    private volatile int sealedPosition = -1;
    private volatile long sealedOffset = -1;
    private volatile boolean indexPersisted;
    private volatile boolean filesClosed;
    private volatile CachePage page;
    private volatile SegmentIndex index;
    private final SegmentReadFile readFile;
    private volatile boolean deleted;
    /** How far sequential readers have read this segment from disk themselves (a hint for read-ahead; see below). */
    private final AtomicInteger readFromDiskTo = new AtomicInteger();
    /** Write descriptors: set and cleared by the writer under this segment's monitor, as the syncer reads them. */
    private BlockFile directFile;
    private BlockFile dsyncFile;
    /** Writes through {@link #directFile} that no fdatasync covers yet (see {@link #closeWriteFilesIfSynced}). */
    private volatile boolean unsynced;

    /**
     * @param host       the log.
     * @param sequence   the file's sequence number.
     * @param baseOffset the first record's offset.
     * @param path       the file.
     * @param capacity   the segment's size.
     * @param blockSize  its write unit (from its header): gaps end at multiples of it.
     * @param recycled   the file was reused without zeroing: bytes after its end may be stale records of this log
     *                   (its header's {@code FLAG_RECYCLED}).
     */
    public Segment(final SegmentHost host, final long sequence, final long baseOffset, final Path path,
        final int capacity, final int blockSize, final boolean recycled)
    {
        this(host, sequence, baseOffset, path, capacity, blockSize, recycled, false, -1);
    }

    /**
     * A segment whose header may record a hole in the offsets before it, or zero-ahead writes.
     *
     * @param zeroAhead its header's {@code FLAG_ZERO_AHEAD} (see {@link #zeroAhead()}).
     * @param holeFrom  where the previous segment's records end when a hole lies before this one (below
     *                  {@code baseOffset}), or -1.
     */
    public Segment(final SegmentHost host, final long sequence, final long baseOffset, final Path path,
        final int capacity, final int blockSize, final boolean recycled, final boolean zeroAhead, final long holeFrom)
    {
        this.holeFrom = holeFrom;
        this.recycled = recycled;
        this.zeroAhead = zeroAhead;
        this.host = host;
        this.sequence = sequence;
        this.baseOffset = baseOffset;
        this.path = path;
        this.capacity = capacity;
        this.blockSize = blockSize;
        this.endOffset = baseOffset;
        this.readFile = new SegmentReadFile(() -> host.openForRead(path));
    }

    /** @return true when bytes after the end may be stale records of this log, not zeros. */
    public boolean recycled()
    {
        return recycled;
    }

    /** @return true when its records are followed by a zero block, not stale bytes (FLAG_ZERO_AHEAD; issue 17). */
    public boolean zeroAhead()
    {
        return zeroAhead;
    }

    /**
     * @return the offset the previous segment's records end at: this segment's base offset, or the start of the
     *     hole before it (offsets {@code [holeFrom, baseOffset)} belong to no record).
     */
    public long precedingEnd()
    {
        return holeFrom >= 0 ? holeFrom : baseOffset;
    }

    /** @return where the hole before this segment starts, or -1 when its offsets follow on from the previous one. */
    public long holeFrom()
    {
        return holeFrom;
    }

    /** @return the file's sequence number. */
    public long sequence()
    {
        return sequence;
    }

    /** @return the first record's offset. */
    public long baseOffset()
    {
        return baseOffset;
    }

    /** @return the segment file. */
    public Path path()
    {
        return path;
    }

    /** @return the segment's capacity in bytes. */
    public int capacity()
    {
        return capacity;
    }

    /** @return the write unit: no block of this size is written twice; gaps end at multiples of it. */
    public int blockSize()
    {
        return blockSize;
    }

    /**
     * @param position a segment position holding a zero length field, below a known end of records.
     * @return where the next record starts: past the gap, or {@code position} itself at a block boundary.
     */
    public int skipGap(final int position)
    {
        return RecordDescriptor.gapEnd(position, blockSize);
    }

    /** @return the end of the visible records (a position in the segment). */
    public int endPosition()
    {
        return endPosition;
    }

    /** @return the offset after the last visible record. */
    public long endOffset()
    {
        return endOffset;
    }

    /**
     * Publishes visible records: position before offset. Called by the log's writer thread, and by the opening
     * thread before the log is handed out; never by readers (see {@link #publishScannedEnd(int)}).
     *
     * @param position the end of the visible records.
     * @param offset   the offset after them.
     */
    public void publishEnd(final int position, final long offset)
    {
        endPosition = position;
        endOffset = offset;
    }

    /**
     * Lowers the end position of a rolled segment to the end its records were found at by a scan or its persisted
     * index (the loader only knows the next segment's base offset, so it starts with the capacity). Called by a
     * reader building the index, under {@link #loadLock()}, only while the segment is not the active one: the
     * writer never publishes a rolled segment's end again, except truncateTo, which first takes the load lock.
     *
     * @param position where the records end.
     */
    public void publishScannedEnd(final int position)
    {
        endPosition = position;
    }

    /**
     * Records where a rolled segment's records end (written when it rolled), for the syncer's index write and for
     * visibility that catches up later. Writer thread (or the opening thread).
     *
     * @param position the end of its records.
     * @param offset   the offset there.
     */
    public void seal(final int position, final long offset)
    {
        sealedPosition = position;
        sealedOffset = offset;
    }

    /** @return the end of a rolled segment's records, or -1 while it is active. */
    public int sealedPosition()
    {
        return sealedPosition;
    }

    /** @return the offset at {@link #sealedPosition()}, or -1. */
    public long sealedOffset()
    {
        return sealedOffset;
    }

    /** @return true once its index was written as {@code <seq>.idx}. */
    public boolean indexPersisted()
    {
        return indexPersisted;
    }

    /** @param persisted whether a valid {@code <seq>.idx} exists. */
    public void indexPersisted(final boolean persisted)
    {
        indexPersisted = persisted;
    }

    /** @return the latest timestamp in the segment (for retention by age). */
    public long maxTimestamp()
    {
        return maxTimestamp;
    }

    /** @param timestamp the latest timestamp written. */
    public void maxTimestamp(final long timestamp)
    {
        maxTimestamp = timestamp;
    }

    /** @return the resident page, or null. Pin it before reading. */
    public CachePage page()
    {
        return page;
    }

    /** @param page the page now holding this segment, or null. */
    public void page(final CachePage page)
    {
        this.page = page;
    }

    /**
     * Takes {@code expected} out of the segment unless another page replaced it meanwhile (a CAS, as an eviction).
     *
     * @param expected the page to take out.
     */
    void dropPage(final CachePage expected)
    {
        PAGE.compareAndSet(this, expected, null);
    }

    /** @return the index, or null until built. */
    public SegmentIndex index()
    {
        return index;
    }

    /** @param index the built index. */
    public void index(final SegmentIndex index)
    {
        this.index = index;
    }

    /**
     * A sequential reader read the segment from disk up to {@code end} (exclusive): a read-ahead that starts later
     * loads only what lies beyond, rather than read again what the reader already had from the device. An atomic
     * maximum, because two readers of one segment can finish their disk reads at once: with a check and then a set
     * the smaller end could overwrite the larger, and the read-ahead would read that range again. One CAS per disk
     * read costs nothing next to the read.
     *
     * @param end the end of the bytes read.
     */
    void readFromDiskTo(final int end)
    {
        readFromDiskTo.accumulateAndGet(end, Math::max);
    }

    /** @return how far sequential readers have read this segment from disk themselves; 0 when they have not. */
    int readFromDiskTo()
    {
        return readFromDiskTo.get();
    }

    /** @return a lock for loading the page or the index once when several readers miss together. */
    public Object loadLock()
    {
        return loadLock;
    }

    /** @return the O_DIRECT write descriptor (writer thread; the syncer under this segment's monitor), or null. */
    public BlockFile directFile()
    {
        return directFile;
    }

    /** @return the O_DIRECT|O_DSYNC write descriptor (writer thread). */
    public BlockFile dsyncFile()
    {
        return dsyncFile;
    }

    /**
     * Sets the write descriptors, under this segment's monitor (the syncer reads them under it). Whatever they
     * wrote before counts as not synced until the next fdatasync.
     *
     * @param direct the O_DIRECT descriptor.
     * @param dsync  the O_DIRECT|O_DSYNC descriptor.
     */
    public synchronized void writeFiles(final BlockFile direct, final BlockFile dsync)
    {
        this.directFile = direct;
        this.dsyncFile = dsync;
        this.unsynced = true;
    }

    /** The writer wrote through {@link #directFile()} without making it durable (no O_DSYNC, no fdatasync). */
    void wroteUnsynced()
    {
        unsynced = true;
    }

    /**
     * Every write so far is durable: a DSYNC write covering the earlier ones, or an fdatasync about to be made
     * (called before it: a write that completes after this call sets the flag again; a failed sync fails the log,
     * whose descriptors are never closed as idle).
     */
    void syncing()
    {
        unsynced = false;
    }

    /**
     * Counts every write so far as synced, as {@link #syncing()} does, for an fdatasync the caller makes next
     * through another file of the same flush domain (the syncer's round). Under the monitor: the idle close
     * ({@link #closeWriteFilesIfSynced}) cannot close the descriptor between the flag's clearing and its read here.
     *
     * @return true when a write was counted as not synced until now, or when the write descriptor is open: a write
     * that completed between the flag's read and its clearing (its flag lost) went through it, and the caller's
     * fdatasync, which begins after this, must run to cover it.
     */
    synchronized boolean takeUnsynced()
    {
        final boolean was = unsynced;
        unsynced = false; // a write completing after this sets it again; one completed before is covered
        return was || directFile != null;
    }

    /**
     * {@link #syncWrites()} when the write descriptor is open.
     *
     * @return false when it was not (nothing synced).
     * @throws IOException when the sync fails.
     */
    synchronized boolean syncWritesIfOpen() throws IOException
    {
        if (directFile == null)
        {
            return false;
        }
        syncWrites();
        return true;
    }

    /**
     * fdatasync through the write descriptor, if open: every write so far made durable. The syncer, and the writer
     * at truncation and close.
     *
     * @throws IOException when the sync fails (the caller fails the log; the writes stay counted as not synced).
     */
    synchronized void syncWrites() throws IOException
    {
        final BlockFile f = directFile;
        if (f == null)
        {
            return;
        }
        unsynced = false; // before: a write completing during the sync sets it again
        try
        {
            f.datasync();
        }
        catch (final IOException | RuntimeException e)
        {
            unsynced = true;
            throw e;
        }
    }

    /**
     * Closes the write descriptors of an idle log's active segment, if no write through them waits for an
     * fdatasync: the close changes no data, and the next fdatasync of the file (after a reopen) covers nothing
     * this descriptor wrote. Writer thread; it opens them again before its next write
     * ({@link SegmentWriteFiles#open}).
     *
     * @return true when they were open and are closed now.
     */
    boolean closeWriteFilesIfSynced()
    {
        if (directFile == null || unsynced)
        {
            return false; // the writer's own field: each idle log is asked every duty cycle, without the monitor
        }
        synchronized (this)
        {
            if (unsynced) // the syncer's failed fdatasync sets it again
            {
                return false;
            }
            closeWriteFiles();
            return true;
        }
    }

    /**
     * Reads through the segment's read descriptor, opened if it is closed (see {@link SegmentReadFile}).
     *
     * @see BlockFile#read
     * @throws IOException when it cannot be opened or read, or the segment's files are closed for good.
     */
    public int read(final ByteBuffer target, final int index, final int length, final long position)
        throws IOException
    {
        if (deleted && !readFile.isOpen())
        {
            throw new java.nio.channels.ClosedChannelException(); // gone: no descriptor is opened for it again
        }
        return readFile.read(target, index, length, position);
    }

    /**
     * Closes the read descriptor if no read used it for {@code idleNanos} (the syncer's housekeeping).
     *
     * @return true when one was closed.
     */
    boolean closeReadFileIfIdle(final long nowNanos, final long idleNanos)
    {
        return readFile.closeIfIdle(nowNanos, idleNanos);
    }

    /** @return true while the read descriptor is open. */
    boolean readFileOpen()
    {
        return readFile.isOpen();
    }

    /** Closes every descriptor; later reads fail (the log is closed, or the segment deleted). */
    public void closeFiles()
    {
        filesClosed = true;
        closeQuietly(directFile);
        closeQuietly(dsyncFile);
        directFile = null;
        dsyncFile = null;
        readFile.closeForGood();
    }

    /** Closes the write descriptors only (after the segment rolled and was synced, or its log went idle). */
    public void closeWriteFiles()
    {
        closeQuietly(directFile);
        closeQuietly(dsyncFile);
        directFile = null;
        dsyncFile = null;
    }

    /** @return true once {@link #closeFiles()} ran. */
    public boolean filesClosed()
    {
        return filesClosed;
    }

    /** @return true once the segment was deleted or truncated away. */
    public boolean isDeleted()
    {
        return deleted;
    }

    /**
     * Takes the segment out of service before its file goes (retention, truncation): readers stop using it, its
     * files close (under its monitor, as a sync would hold it), and its page goes back to the cache.
     *
     * @param cache the cache holding its page.
     */
    void retire(final PageCache cache)
    {
        markDeleted();
        synchronized (this)
        {
            closeFiles();
        }
        final CachePage p = page();
        if (p != null)
        {
            page(null);
            cache.discard(p);
        }
    }

    /** Marks the segment gone: readers holding it treat it as out of range. */
    public void markDeleted()
    {
        deleted = true;
    }

    /**
     * @param offset an offset.
     * @return true when the segment holds it.
     */
    public boolean contains(final long offset)
    {
        return offset >= baseOffset && offset < endOffset;
    }

    @Override
    public long distanceFromTail()
    {
        return host.activeSequence() - sequence;
    }

    @Override
    public boolean hasConsumersAhead()
    {
        return host.hasConsumerBefore(endOffset);
    }

    @Override
    public void onPageEvicted(final CachePage evicted)
    {
        // a CAS: the writer may swap in a new write page at the same moment (after an idle release), which a plain
        // check-then-clear would lose, leaving the write page unknown to readers and to close
        PAGE.compareAndSet(this, evicted, null);
    }

    @Override
    public void onPageFreeable(final CachePage freeable)
    {
        host.freeRetiredPage(freeable);
    }

    private static void closeQuietly(final BlockFile f)
    {
        if (f != null)
        {
            try
            {
                f.close();
            }
            catch (final IOException ignore)
            {
                // closing a descriptor whose data is already synced or never acknowledged: nothing to report
            }
        }
    }

    @Override
    public String toString()
    {
        return "Segment{" + path.getFileName() + ", base=" + baseOffset + ", end=" + endOffset + '}';
    }
}
