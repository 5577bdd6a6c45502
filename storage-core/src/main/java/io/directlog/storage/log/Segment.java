package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Path;

import io.directlog.storage.cache.CacheOwner;
import io.directlog.storage.cache.CachePage;
import io.directlog.storage.io.BlockFile;

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
    private final SegmentHost host;
    private final long sequence;
    private final long baseOffset;
    private final Path path;
    private final int capacity;
    private final Object loadLock = new Object();
    private volatile int endPosition;
    private volatile long endOffset;
    private volatile long maxTimestamp;
    private volatile CachePage page;
    private volatile SegmentIndex index;
    private volatile BlockFile readFile;
    private volatile boolean deleted;
    private BlockFile directFile;
    private BlockFile dsyncFile;

    /**
     * @param host       the log.
     * @param sequence   the file's sequence number.
     * @param baseOffset the first record's offset.
     * @param path       the file.
     * @param capacity   the segment's size.
     */
    public Segment(final SegmentHost host, final long sequence, final long baseOffset, final Path path,
        final int capacity)
    {
        this.host = host;
        this.sequence = sequence;
        this.baseOffset = baseOffset;
        this.path = path;
        this.capacity = capacity;
        this.endOffset = baseOffset;
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
     * Publishes visible records. Writer thread only; position before offset.
     *
     * @param position the end of the visible records.
     * @param offset   the offset after them.
     */
    public void publishEnd(final int position, final long offset)
    {
        endPosition = position;
        endOffset = offset;
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

    /** @return a lock for loading the page or the index once when several readers miss together. */
    public Object loadLock()
    {
        return loadLock;
    }

    /** @return the O_DIRECT write descriptor (writer thread). */
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
     * @param direct the O_DIRECT descriptor.
     * @param dsync  the O_DIRECT|O_DSYNC descriptor.
     */
    public void writeFiles(final BlockFile direct, final BlockFile dsync)
    {
        this.directFile = direct;
        this.dsyncFile = dsync;
    }

    /**
     * @return the read descriptor, opened on first use.
     * @throws IOException when it cannot be opened.
     */
    public BlockFile readFile() throws IOException
    {
        BlockFile f = readFile;
        if (f == null)
        {
            synchronized (loadLock)
            {
                f = readFile;
                if (f == null)
                {
                    f = host.openForRead(path);
                    readFile = f;
                }
            }
        }
        return f;
    }

    /** Closes every descriptor. */
    public void closeFiles()
    {
        closeQuietly(directFile);
        closeQuietly(dsyncFile);
        directFile = null;
        dsyncFile = null;
        final BlockFile f = readFile;
        readFile = null;
        closeQuietly(f);
    }

    /** Closes the write descriptors only (after the segment rolled and was synced). */
    public void closeWriteFiles()
    {
        closeQuietly(directFile);
        closeQuietly(dsyncFile);
        directFile = null;
        dsyncFile = null;
    }

    /** @return true once the segment was deleted or truncated away. */
    public boolean isDeleted()
    {
        return deleted;
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
        if (page == evicted)
        {
            page = null;
        }
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
