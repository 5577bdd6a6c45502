package io.directlog.storage.log;

import java.time.Duration;

import io.directlog.storage.RecoveryMode;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.cache.PageCache;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.page.ReadBufferPool;
import io.directlog.storage.writer.LogWriterAgent;

/**
 * What a log shares with its store.
 *
 * @param io            the block-I/O layer.
 * @param cache         the page cache (and its pool, the memory budget).
 * @param readBuffers   aligned buffers for reads that do not page a segment in.
 * @param writer        the writer thread this log is pinned to.
 * @param preparer      the store's segment preparer.
 * @param appendTimeout how long an append waits for room in the writer queue.
 * @param copyOnWrite   true when the filesystem allocates on overwrite: DIRECT becomes DSYNC.
 * @param recoveryMode  what opening does with damage.
 * @param readAhead     the store's read-ahead of segments for sequential readers.
 * @param events        what the log reports to the store's meters as it happens.
 * @param pageIdleRelease how long a log takes no append before its write page goes to the read cache.
 */
public record LogContext(BlockIo io, PageCache cache, ReadBufferPool readBuffers, LogWriterAgent writer,
    SegmentPreparer preparer, Duration appendTimeout, boolean copyOnWrite, RecoveryMode recoveryMode,
    ReadAhead readAhead, LogEvents events, Duration pageIdleRelease)
{
    /** A context with the default {@link StoreConfig#PAGE_IDLE_RELEASE_DEFAULT}. */
    public LogContext(final BlockIo io, final PageCache cache, final ReadBufferPool readBuffers,
        final LogWriterAgent writer, final SegmentPreparer preparer, final Duration appendTimeout,
        final boolean copyOnWrite, final RecoveryMode recoveryMode, final ReadAhead readAhead, final LogEvents events)
    {
        this(io, cache, readBuffers, writer, preparer, appendTimeout, copyOnWrite, recoveryMode, readAhead, events,
            StoreConfig.PAGE_IDLE_RELEASE_DEFAULT);
    }

    /** A context without meters ({@link LogEvents#NONE}). */
    public LogContext(final BlockIo io, final PageCache cache, final ReadBufferPool readBuffers,
        final LogWriterAgent writer, final SegmentPreparer preparer, final Duration appendTimeout,
        final boolean copyOnWrite, final RecoveryMode recoveryMode, final ReadAhead readAhead)
    {
        this(io, cache, readBuffers, writer, preparer, appendTimeout, copyOnWrite, recoveryMode, readAhead,
            LogEvents.NONE);
    }
}
