package io.directlog.storage.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Queue;

import io.directlog.storage.spi.BlockFile;

/**
 * Writes a flush's blocks into the active segment, through the O_DSYNC descriptor or the plain one, and remembers
 * which DIRECT writes no fdatasync has covered yet: a DSYNC acknowledgement covers every earlier record, so the
 * write that carries one first makes those durable too (the rolled segments' by syncing them, the active
 * segment's by an fdatasync after this write instead of a write through the O_DSYNC descriptor).
 * <p>
 * Design note: apart from {@link LogAppender} so that the appender keeps to where records go and when they are
 * acknowledged; which descriptor a write takes and what it must sync first is this class's alone.
 * <p>
 * Not thread-safe; owned by the writer thread of its log. The queue of rolled segments is shared with the
 * syncer, which drains it too.
 */
final class FlushWriter
{
    /** Rolled segments the syncer has not synced yet (writer adds, syncer and writer drain). */
    private final Queue<Segment> rolledUnsynced;
    /** The buffered fallback: a DIRECT write reaches only the OS page cache. */
    private final boolean buffered;
    /** The active segment holds writes not made through the O_DSYNC descriptor and not synced by the writer. */
    private boolean unsyncedDirect;
    /** A rolled segment not synced yet holds such writes. */
    private boolean rolledWithUnsyncedDirect;

    FlushWriter(final Queue<Segment> rolledUnsynced, final boolean buffered)
    {
        this.rolledUnsynced = rolledUnsynced;
        this.buffered = buffered;
    }

    /**
     * Writes {@code [from, to)} of the page to the same range of {@code segment}.
     *
     * @param dsync        the write must be durable (and makes every earlier write durable).
     * @param durableAsked a DSYNC or DIRECT append waits for this write.
     * @return the nanoseconds the write (and its fdatasync) took, not counting syncs of rolled segments.
     */
    long write(final Segment segment, final ByteBuffer pageBytes, final int from, final int to, final boolean dsync,
        final boolean durableAsked) throws IOException
    {
        if (dsync)
        {
            syncRolledIfNeeded();
        }
        // a DSYNC ack also covers earlier DIRECT or MEMORY writes in this segment, which are never written
        // again: this write and a cache flush (fdatasync) instead of one write through the O_DSYNC descriptor
        final boolean syncAfter = dsync && unsyncedDirect;
        final BlockFile file = dsync && !syncAfter ? segment.dsyncFile() : segment.directFile();
        final long started = System.nanoTime();
        file.write(pageBytes, from, to - from, from);
        if (syncAfter || buffered && durableAsked && !dsync)
        {
            file.datasync(); // or the buffered fallback: DIRECT would otherwise only reach the page cache
        }
        final long took = System.nanoTime() - started;
        unsyncedDirect = !dsync;
        if (dsync)
        {
            segment.syncing(); // durable, with every earlier write of the segment (see syncAfter)
        }
        else
        {
            segment.wroteUnsynced(); // its descriptor stays open while the log idles, until the syncer's fdatasync
        }
        return took;
    }

    /**
     * Before a write through the plain descriptor for the writer's shared flush (which the writer issues with the
     * other logs' writes): the fdatasync that follows flushes the device, so it also covers this segment's earlier
     * DIRECT writes; rolled segments holding such writes are synced first, as for any DSYNC write.
     */
    void beforeSharedWrite() throws IOException
    {
        syncRolledIfNeeded();
    }

    /** After that write completed in full; the shared flush comes next (if it fails, the log fails). */
    void wroteForSharedFlush(final Segment segment)
    {
        segment.wroteUnsynced(); // the shared fdatasync follows; the syncer's next one says so to the idle close
        unsyncedDirect = false;
    }

    /** A new segment became active; {@code rolled}: the previous one was rolled (and queued for the syncer). */
    void onNewActive(final boolean rolled)
    {
        if (rolled && unsyncedDirect)
        {
            rolledWithUnsyncedDirect = true;
        }
        unsyncedDirect = false;
    }

    /** A DSYNC ack covers every earlier record: rolled segments' DIRECT writes must be durable too. */
    private void syncRolledIfNeeded() throws IOException
    {
        if (rolledWithUnsyncedDirect)
        {
            for (final Segment rolled : rolledUnsynced)
            {
                LogSyncer.syncRolled(rolled);
            }
            rolledWithUnsyncedDirect = false;
        }
    }

    /** Makes every write so far durable: rolled segments synced (and their write files closed), then the active. */
    void syncEverythingWritten(final Segment active) throws IOException
    {
        LogSyncer.syncAllWritten(rolledUnsynced, active);
        rolledWithUnsyncedDirect = false;
    }

    /** Truncation moved the writer into a segment whose written part it has just synced. */
    void onRestart()
    {
        unsyncedDirect = false;
    }
}
