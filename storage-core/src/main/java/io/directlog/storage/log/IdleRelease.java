package io.directlog.storage.log;

import java.io.IOException;

import io.directlog.storage.cache.CachePage;
import io.directlog.storage.spi.BlockIo;

/**
 * What an idle log lets go of, and takes back at its next append (issue 18: memory and descriptors follow
 * activity, not the number of logs): once it took no append for {@code StoreConfig.pageIdleRelease}, its write page
 * goes to the read cache, then, once no write through it waits for an fdatasync, its active segment's write
 * descriptor closes. The next append opens the descriptor again and takes a new page ({@link #takeBack}).
 * <p>
 * Design note: apart from {@link LogAppender} so that the appender keeps to where records go and when they are
 * written; when a log's resources go and come back is this class's.
 * <p>
 * Not thread-safe; owned by the log's writer thread.
 */
final class IdleRelease
{
    private final BlockIo io;
    private final WritePage page;
    private final SegmentSet segments;
    private final LogLifecycle lifecycle;

    IdleRelease(final BlockIo io, final WritePage page, final SegmentSet segments, final LogLifecycle lifecycle)
    {
        this.io = io;
        this.page = page;
        this.segments = segments;
        this.lifecycle = lifecycle;
    }

    /**
     * The duty cycle's call for a log with nothing left to write that took no append for a while: the page first,
     * the descriptor at a later cycle (the syncer's next fdatasync may be needed in between).
     *
     * @param writtenEnd the end of what the writer wrote into its page.
     * @return 1 when something was let go of, else 0 (the writer may park).
     */
    int release(final int writtenEnd)
    {
        if (page.held())
        {
            return releasePage(writtenEnd) ? 1 : 0;
        }
        final Segment active = segments.active();
        return active != null && lifecycle.failure() == null && !lifecycle.isClosing() &&
            active.closeWriteFilesIfSynced() ? 1 : 0;
    }

    /**
     * Lets go of the write page, unless a reader holds it or the log is closing or failed. The writer must have
     * written everything it copied.
     *
     * @param writtenEnd the end of what the writer wrote into it.
     * @return true when the page went to the read cache.
     */
    boolean releasePage(final int writtenEnd)
    {
        final CachePage held = page.page();
        if (held == null || held.pinCount() > 0 || lifecycle.isClosing() || lifecycle.failure() != null)
        {
            return false;
        }
        page.letGo(writtenEnd);
        return true;
    }

    /**
     * The first append after an idle release or a clean open: the active segment's write descriptor opened again,
     * and a new growing page from {@code start}.
     *
     * @return null, or why the append cannot be taken (out of descriptors, out of budget): it fails, nothing was
     * written, the log goes on.
     */
    Throwable takeBack(final int start)
    {
        try
        {
            SegmentWriteFiles.open(io, segments.active());
        }
        catch (final IOException e)
        {
            return e;
        }
        return page.take(segments.active(), start, 0);
    }
}
