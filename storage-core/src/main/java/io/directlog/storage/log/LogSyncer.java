package io.directlog.storage.log;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.directlog.storage.Durability;
import io.directlog.storage.LogConfig;
import io.directlog.storage.spi.BlockFile;

/**
 * One log's share of the store's syncer thread: the background fdatasync, the durable watermark written to the
 * checkpoint after it, a DSYNC log's visibility catching up with what is now durable, the index files, and
 * retention.
 * <p>
 * Threads: the syncer thread, under {@link LogLocks#tickLock} (close takes it too, so a tick never writes what
 * close freed); index files and retention under {@link LogLocks#indexLock} (truncation and close take it too).
 */
final class LogSyncer
{
    private static final System.Logger LOG = System.getLogger(DefaultLog.class.getName());
    /** The syncer persists the active segment's index once it grew by this many entries (16 MiB of records). */
    private static final int ACTIVE_INDEX_PERSIST_ENTRIES = 4096;

    private final LogParts parts;
    private final LogAppender appender;
    private final SegmentIndexLoader indexes;
    private volatile long lastSyncNanos = System.nanoTime();
    /** The truncation epoch as the syncer may see it (published by truncation under the index lock). */
    private volatile long syncerEpoch;
    private volatile long retained;
    /** Written by the syncer, read racily by stats(). */
    private long syncs;

    // syncer-owned
    private int persistedActiveEntries;
    private long persistedActiveSequence = -1;
    /** The watermark the last successful sync covered: another one means the writer wrote since. */
    private Watermark lastSynced;
    private Object roundDomain;
    private boolean roundDomainKnown;
    /** This log's part of the syncer round in progress ({@link SyncerRound}), or null. */
    private RoundTick roundTick;

    /**
     * What one log's tick in a {@link SyncerRound} carries from step to step.
     *
     * @param w       the watermark taken before the round's fdatasync.
     * @param active  the active segment then, or null.
     * @param wrote   true when the active segment had writes not yet synced, or an open write descriptor.
     * @param synced  the rolled segments synced.
     * @param started when the sync began.
     */
    private record RoundTick(Watermark w, Segment active, boolean wrote, List<Segment> synced, long started)
    {
    }

    LogSyncer(final LogParts parts, final LogAppender appender, final SegmentIndexLoader indexes)
    {
        this.parts = parts;
        this.appender = appender;
        this.indexes = indexes;
        this.lastSynced = parts.watermark().get();
    }

    /**
     * Makes a rolled segment's writes durable and closes its write descriptors; the writer (before a DSYNC ack)
     * and the syncer both call it, whoever comes first does the work.
     */
    static void syncRolled(final Segment segment) throws IOException
    {
        synchronized (segment)
        {
            final BlockFile f = segment.directFile();
            if (f != null)
            {
                f.datasync();
                segment.closeWriteFiles();
            }
        }
    }

    /**
     * Makes every write so far durable: the rolled segments not synced yet (their write files closed), then the
     * active one. The writer, at truncation and close (the syncer's tick does the same under its gate).
     */
    static void syncAllWritten(final java.util.Queue<Segment> rolledUnsynced, final Segment active)
        throws IOException
    {
        Segment rolled;
        while ((rolled = rolledUnsynced.poll()) != null)
        {
            syncRolled(rolled);
        }
        if (active != null)
        {
            active.syncWrites();
        }
    }

    /**
     * The background fdatasync: bounds what a volatile device cache holds, probes the filesystem's health (an
     * O_DIRECT write into a written extent still succeeds after the journal aborted; only a sync tells), then
     * writes the durable watermark to the checkpoint, lets a DSYNC log's visibility catch up with what is now
     * durable, persists indexes and applies retention. Runs on the syncer thread.
     *
     * @param nowNanos the time.
     */
    void onSyncerTick(final long nowNanos)
    {
        final LogLifecycle lifecycle = parts.lifecycle();
        final Visibility visibility = parts.visibility();
        if (lifecycle.failure() != null || lifecycle.isClosing() ||
            nowNanos - lastSyncNanos < parts.config().get().syncInterval().toNanos() &&
            !visibility.demand().wantsEarlySync(parts.config().get().durability(), parts.watermark(),
                visibility.visibleEndOffset()))
        {
            return;
        }
        synchronized (parts.locks().tickLock)
        {
            if (lifecycle.isClosing() || lifecycle.failure() != null)
            {
                return;
            }
            lastSyncNanos = nowNanos;
            final Watermark w = parts.watermark().get(); // BEFORE the sync: everything it names is written
            final long syncStarted = System.nanoTime();
            final List<Segment> synced = new ArrayList<>();
            if (!syncAndCheckpoint(w, synced, syncStarted))
            {
                return;
            }
            afterSync(w, synced, nowNanos);
        }
    }

    /** After a successful sync and checkpoint write: index files, retention and idle read descriptors. */
    private void afterSync(final Watermark w, final List<Segment> synced, final long nowNanos)
    {
        lastSynced = w;
        try
        {
            persistIndexes(synced, w);
            Retention.apply(this, w, System.currentTimeMillis());
        }
        catch (final IOException | RuntimeException e)
        {
            // derived data and housekeeping: the log stays writable, the next tick tries again
            LOG.log(System.Logger.Level.WARNING, "log '" + parts.name() + "': index or retention work failed: " +
                e.getMessage());
        }
        closeIdleReadFiles(nowNanos);
    }

    // ---------------------------------------------------------------- the syncer's round (SyncerRound)

    /**
     * Offers this log's tick to the syncer's round. A log whose files share a flush domain with other logs'
     * ({@code BlockIo.flushDomain}) joins the round when its sync is due, or when it is due within the round's early
     * window and its writer wrote since its last sync (so that logs whose syncs fall due close together share one
     * round); the round then syncs them all with two fdatasyncs. A log without a domain ticks alone, now.
     *
     * @param nowNanos the time.
     * @param round    the round of this pass of the syncer.
     */
    void offerTick(final long nowNanos, final SyncerRound round)
    {
        final LogLifecycle lifecycle = parts.lifecycle();
        if (lifecycle.failure() != null || lifecycle.isClosing())
        {
            return;
        }
        if (!roundDomainKnown)
        {
            roundDomain = SharedFlushTurn.lookUpDomain(parts);
            roundDomainKnown = true;
        }
        if (roundDomain == null)
        {
            onSyncerTick(nowNanos);
            return;
        }
        final long interval = parts.config().get().syncInterval().toNanos();
        final long elapsed = nowNanos - lastSyncNanos;
        if (elapsed >= interval || parts.visibility().demand().wantsEarlySync(parts.config().get().durability(),
            parts.watermark(), parts.visibility().visibleEndOffset()))
        {
            round.join(roundDomain, this, true);
        }
        else if (elapsed >= interval - SyncerRound.earlyWindow(interval) && parts.watermark().get() != lastSynced)
        {
            round.join(roundDomain, this, false);
        }
    }

    /** @return the lock the round holds while it works on this log (close takes it too). */
    Object tickLock()
    {
        return parts.locks().tickLock;
    }

    /**
     * Round step 1, under {@link #tickLock()}: takes the watermark, holds acknowledgements back (as a tick alone
     * does), syncs the rolled segments and counts the active one's writes as synced: the round's fdatasync, which
     * begins after this, covers them.
     *
     * @return true when the log takes part; false when it is closing or failed (or failed now).
     */
    boolean beginRoundSync(final long nowNanos)
    {
        final LogLifecycle lifecycle = parts.lifecycle();
        if (lifecycle.isClosing() || lifecycle.failure() != null)
        {
            return false;
        }
        lastSyncNanos = nowNanos;
        final Watermark w = parts.watermark().get(); // BEFORE the sync: everything it names is written
        final long started = System.nanoTime();
        parts.ackGate().enterSync();
        try
        {
            final Segment active = parts.segments().active(); // read before the rolled queue: see the roll
            final List<Segment> synced = new ArrayList<>();
            Segment rolled;
            while ((rolled = parts.rolledUnsynced().poll()) != null)
            {
                syncRolled(rolled);
                synced.add(rolled);
            }
            final boolean wrote = active != null && active.takeUnsynced();
            roundTick = new RoundTick(w, active, wrote, synced, started);
            return true;
        }
        catch (final IOException | RuntimeException e)
        {
            lifecycle.failStop("background fdatasync", e);
            parts.ackGate().exitSync();
            parts.context().writer().wakeUp();
            return false;
        }
    }

    /** @return true when this log's active segment had writes to sync in this round (step 1 said so). */
    boolean roundWrote()
    {
        return roundTick.wrote();
    }

    /**
     * Round step 2: the round's fdatasync through this log's active segment, if its write descriptor is open.
     *
     * @return false when none was open (another member's, or a checkpoint file, serves).
     * @throws IOException when the fdatasync fails.
     */
    boolean roundSyncThroughActive() throws IOException
    {
        return roundTick.active() != null && roundTick.active().syncWritesIfOpen();
    }

    /**
     * Round step 2 when no member's active segment descriptor is open: the fdatasync through this log's checkpoint.
     *
     * @throws IOException when the fdatasync fails.
     */
    void roundSyncThroughCheckpoint() throws IOException
    {
        parts.checkpoint().syncFile();
    }

    /**
     * Round step 3: writes the watermark to the checkpoint without O_DSYNC (the round's second fdatasync makes it
     * durable). A checkpoint that could not be opened wrote nothing: the next tick writes it, as a tick alone does.
     *
     * @return the slot's open descriptor, or null when nothing was written.
     * @throws IOException when the write fails (the round fail-stops this log).
     */
    BlockFile writeRoundCheckpoint() throws IOException
    {
        final Watermark w = roundTick.w();
        if (w == null)
        {
            return null;
        }
        try
        {
            return parts.checkpoint().writeForSharedSync(w);
        }
        catch (final Checkpoint.Unopened e)
        {
            LOG.log(System.Logger.Level.WARNING, "log '" + parts.name() + "': checkpoint not written, next tick " +
                "tries again: " + e.getMessage());
            return null;
        }
    }

    /** Round step 3's end: the round's fdatasync made the slot {@link #writeRoundCheckpoint} wrote durable. */
    void roundCheckpointSynced()
    {
        parts.checkpoint().sharedSyncDone();
    }

    /**
     * Round step 4, still under {@link #tickLock()}: fail-stops the log when a step failed for it, else counts the
     * sync, lets a DSYNC log's visibility catch up; then lets acknowledgements go, and does the index, retention
     * and descriptor work a tick alone does after its sync.
     *
     * @param what    the failed step, or null.
     * @param failure its error, or null.
     */
    void finishRoundSync(final long nowNanos, final String what, final Throwable failure)
    {
        final RoundTick tick = roundTick;
        roundTick = null;
        final boolean ok = failure == null && parts.lifecycle().failure() == null;
        try
        {
            if (failure != null)
            {
                if (tick.active() != null)
                {
                    tick.active().wroteUnsynced(); // not synced: its descriptors must not close as idle
                }
                parts.lifecycle().failStop(what, failure); // before the gate opens: held-back appends see it
            }
            else if (ok)
            {
                syncs++;
                parts.events().synced(System.nanoTime() - tick.started());
                publishDurable(tick.w());
            }
        }
        finally
        {
            parts.ackGate().exitSync();
            parts.context().writer().wakeUp();
        }
        if (ok)
        {
            afterSync(tick.w(), tick.synced(), nowNanos);
        }
    }

    /** @return a name for this log in the round's failure messages. */
    String name()
    {
        return parts.name();
    }

    /**
     * Closes the read descriptors no read used for {@code StoreConfig.pageIdleRelease} (issue 18: descriptors follow
     * reading, not the number of segments); the next read that misses the cache opens one again.
     *
     * @return how many were closed.
     */
    private int closeIdleReadFiles(final long nowNanos)
    {
        final long idle = parts.context().pageIdleRelease().toNanos();
        int closed = 0;
        for (final Segment s : parts.segments().all())
        {
            closed += s.closeReadFileIfIdle(nowNanos, idle) ? 1 : 0;
        }
        return closed;
    }

    /**
     * Syncs the rolled segments and the active one, then writes {@code w} to the checkpoint.
     *
     * @return false when the sync failed (the log is failed).
     */
    private boolean syncAndCheckpoint(final Watermark w, final List<Segment> synced, final long syncStarted)
    {
        final AckSyncGate ackGate = parts.ackGate();
        final LogContext context = parts.context();
        ackGate.enterSync(); // no acknowledgement while the sync is in flight: it may find the filesystem failed
        try
        {
            final Segment active = parts.segments().active(); // read before the rolled queue: see the roll
            Segment rolled;
            while ((rolled = parts.rolledUnsynced().poll()) != null)
            {
                syncRolled(rolled);
                synced.add(rolled);
            }
            if (active != null)
            {
                active.syncWrites(); // nothing when closed as idle: nothing was written since a sync
            }
            syncs++;
            parts.events().synced(System.nanoTime() - syncStarted);
            if (w != null)
            {
                writeCheckpoint(w);
            }
            publishDurable(w);
            return true;
        }
        catch (final IOException | RuntimeException e)
        {
            parts.lifecycle().failStop("background fdatasync", e); // before the gate opens: held-back appends see it
            return false;
        }
        finally
        {
            ackGate.exitSync();
            context.writer().wakeUp(); // acknowledgements may be waiting for the sync
        }
    }

    /** A DSYNC log with DIRECT-only traffic: what the sync made durable may now be shown. */
    private void publishDurable(final Watermark w)
    {
        if (w != null && parts.config().get().durability() == Durability.DSYNC &&
            w.offset() > parts.visibility().visibleEndOffset())
        {
            // best effort: a full queue just means the next tick tries again
            parts.context().writer().offerCommand(parts.slot().get(), () -> appender.publishVisible(w), Duration.ZERO);
        }
    }

    /**
     * Writes the durable watermark to the checkpoint (nothing when it is not new: the publication after it may still
     * be due). A checkpoint that could not be opened wrote nothing: the next tick writes it; the log goes on, as
     * recovery from an older watermark scans further and finds the same records.
     */
    private void writeCheckpoint(final Watermark w) throws IOException
    {
        try
        {
            parts.checkpoint().write(w, 0);
        }
        catch (final Checkpoint.Unopened e)
        {
            LOG.log(System.Logger.Level.WARNING, "log '" + parts.name() + "': checkpoint not written, next tick " +
                "tries again: " + e.getMessage());
        }
    }

    /** Writes {@code <seq>.idx} for rolled segments just synced, and for the active one every 16 MiB or so. */
    private void persistIndexes(final List<Segment> synced, final Watermark w) throws IOException
    {
        synchronized (parts.locks().indexLock)
        {
            for (final Segment s : synced)
            {
                final SegmentIndex index = s.index();
                if (!s.isDeleted() && index != null && s.sealedPosition() >= 0 && !s.indexPersisted() &&
                    w != null && w.epoch() == syncerEpoch)
                {
                    IndexFile.write(parts.context().io(), parts.dir(), parts.meta().logId(), s, index,
                        s.sealedPosition(), s.sealedOffset(), s.maxTimestamp());
                    s.indexPersisted(true);
                }
            }
            final Segment active = parts.segments().active();
            if (w == null || active == null || active.sequence() != w.sequence() || w.epoch() != syncerEpoch)
            {
                return;
            }
            final SegmentIndex index = active.index();
            if (persistedActiveSequence != active.sequence())
            {
                persistedActiveSequence = active.sequence();
                persistedActiveEntries = 0;
            }
            if (index != null && index.count() - persistedActiveEntries >= ACTIVE_INDEX_PERSIST_ENTRIES)
            {
                persistedActiveEntries = index.count();
                IndexFile.write(parts.context().io(), parts.dir(), parts.meta().logId(), active, index, w.position(),
                    w.offset(), active.maxTimestamp());
            }
        }
    }

    /** @param epoch the new truncation epoch. Truncation, under the index lock. */
    void epoch(final long epoch)
    {
        syncerEpoch = epoch;
    }

    /** @return background fdatasyncs so far. */
    long syncs()
    {
        return syncs;
    }

    // ---------------------------------------------------------------- retention (what Retention reads and does)

    LogConfig config()
    {
        return parts.config().get();
    }

    Segment[] segments()
    {
        return parts.segments().all();
    }

    Segment activeSegment()
    {
        return parts.segments().active();
    }

    long visibleEndOffset()
    {
        return parts.visibility().visibleEndOffset();
    }

    /**
     * Builds or loads a segment's index (for retention by age, which needs its latest timestamp).
     *
     * @param segment a rolled segment.
     * @throws IOException when it cannot be read.
     */
    void ensureIndex(final Segment segment) throws IOException
    {
        indexes.ensureIndex(segment);
    }

    /**
     * Drops the oldest segments (retention), if they are still the first ones: out of the segment array, start
     * offset moved, pages discarded (pins respected), files deleted or recycled, directory fsync'ed.
     *
     * @param victims the segments, oldest first.
     * @throws IOException when a file cannot be deleted or the directory synced.
     */
    void dropOldest(final Segment[] victims) throws IOException
    {
        final LogContext context = parts.context();
        synchronized (parts.locks().indexLock)
        {
            if (!parts.segments().dropOldest(victims))
            {
                return; // a truncation or a roll changed the picture: next tick
            }
            // the new start is durable before a file goes: a segment missing at open is then never retention's
            parts.checkpoint().rewriteSegmentList();
            for (final Segment s : victims)
            {
                s.retire(context.cache());
                IndexFile.delete(context.io(), parts.dir(), s.sequence());
                parts.spares().giveBack(s.path(), true, 2 * victims.length);
            }
            context.io().syncDirectory(parts.dir());
            retained += victims.length;
        }
    }

    /** @return segments dropped by retention so far. */
    long retainedSegments()
    {
        return retained;
    }
}
