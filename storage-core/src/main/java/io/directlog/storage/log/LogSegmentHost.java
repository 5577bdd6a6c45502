package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.directlog.storage.cache.CachePage;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.FileMode;

/**
 * What one log's segments ask of their log (see {@link SegmentHost}): built before recovery with the log's
 * {@link SegmentSet} (empty until the log is built from what recovery found) and its readers, so that recovery can
 * build segments before the log exists. Nothing here is asked during recovery: the cache asks only of segments
 * whose pages it holds for a running log.
 * <p>
 * Thread-safe.
 */
final class LogSegmentHost implements SegmentHost
{
    private final LogContext context;
    private final SegmentSet segments;
    private final Set<DefaultLogReader> readers = ConcurrentHashMap.newKeySet();

    LogSegmentHost(final LogContext context, final SegmentSet segments)
    {
        this.context = context;
        this.segments = segments;
    }

    /** @return the segment set the log is built with. */
    SegmentSet segments()
    {
        return segments;
    }

    /** @param reader a declared consumer, from its creation to its close. */
    void addReader(final DefaultLogReader reader)
    {
        readers.add(reader);
    }

    void removeReader(final DefaultLogReader reader)
    {
        readers.remove(reader);
    }

    @Override
    public long activeSequence()
    {
        return segments.activeSequence();
    }

    @Override
    public boolean hasConsumerBefore(final long offset)
    {
        for (final DefaultLogReader r : readers)
        {
            if (r.position() < offset)
            {
                return true;
            }
        }
        return false;
    }

    @Override
    public BlockFile openForRead(final Path path) throws IOException
    {
        return context.io().open(path, FileMode.READ, false);
    }

    @Override
    public void freeRetiredPage(final CachePage retired)
    {
        context.cache().freeRetired(retired);
    }
}
