package io.directlog.storage.log;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Supplier;

import io.directlog.storage.AppendCallback;
import io.directlog.storage.Durability;
import io.directlog.storage.LogClosedException;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogFullException;
import io.directlog.storage.cache.CachePage;
import io.directlog.storage.format.RecordDescriptor;
import io.directlog.storage.format.SegmentHeaderDescriptor;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockWriteBatch;
import io.directlog.storage.writer.CallbackGuard;
import org.agrona.DirectBuffer;

/**
 * The writer side of one log: copies each append into the active segment's write page, writes the page with
 * one write per group commit (flush; {@link PageRangeWriter}), rolls to the next prepared segment, and
 * acknowledges in order.
 * <p>
 * Threads: everything here is owned by the writer thread the log is pinned to (the opening thread hands it over
 * through {@link #startWith} before the writer knows the log); {@link #endOffset()} and the counters are read by
 * other threads. No lock is taken on the append path. With the syncer it shares the {@link AckSyncGate} (through
 * {@link Acknowledgements}: no acknowledgement while its fdatasync is in flight), the watermark it publishes, and
 * the queue of rolled segments not synced yet.
 */
final class LogAppender
{
    private static final VarHandle END_OFFSET;

    static
    {
        try
        {
            END_OFFSET = MethodHandles.lookup().findVarHandle(LogAppender.class, "endOffset", long.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    private final LogContext context;
    private final LogMeta meta;
    private final Supplier<LogConfig> config;
    private final SegmentHost host;
    private final IoBlock block;
    private final LogLifecycle lifecycle;
    private final SegmentSet segments;
    private final Visibility visibility;
    private final SpareSegments spares;
    private final WatermarkCell watermark;
    private final Acknowledgements acks;
    /** Writes what was copied (alone, or as this log's part of the shared flush); owns the FlushWriter. */
    private final PageRangeWriter pages;
    /** This log's part in its writer's shared flush of DSYNC writes. */
    private final SharedFlushTurn sharedFlush;
    /** Runs this log's callbacks: what they throw is caught and counted, never reaches the writer's loop. */
    private final CallbackGuard callbacks;
    private final RecordEncoder encoder;
    private final SegmentRoll rolls;
    private volatile long endOffset;

    // writer-owned
    /** The active segment's write page while the log has something to write; none while idle. */
    private final WritePage page;
    private final IdleRelease idle;
    private int writePosition;
    private int flushedPosition;
    /** The active segment's capacity (its rung), the fill that asks for the next one, its zero-ahead (0 or a block). */
    private int capacity;
    private int zeroAhead;
    private int prepareAt = Integer.MAX_VALUE;
    private long nextOffset;
    private long lastTimestamp;
    /** The truncation epoch: bumped by each truncation, so a watermark taken before it is never published. */
    private long epoch;
    private int lastRecordPosition = -1;
    private long lastRecordOffset = -1;
    private long firstDirtyNanos;
    private int recordsSinceFlush;
    /** The offset after the last record a completed write covered (writer-owned). */
    private long writtenEndOffset;

    private final AppendCounters counters = new AppendCounters();
    private final LogEventSink events;

    LogAppender(final LogParts parts, final SegmentHost host, final CallbackGuard callbacks)
    {
        this.name = parts.name();
        this.context = parts.context();
        this.meta = parts.meta();
        this.config = parts.config();
        this.host = host;
        this.encoder = new RecordEncoder(meta.logId());
        this.block = parts.block();
        this.lifecycle = parts.lifecycle();
        this.segments = parts.segments();
        this.visibility = parts.visibility();
        this.spares = parts.spares();
        this.watermark = parts.watermark();
        this.callbacks = callbacks;
        this.events = parts.events();
        this.acks = new Acknowledgements(lifecycle, visibility, parts.ackGate(), callbacks);
        this.page = new WritePage(name, context.cache(), context.pageIdleRelease().toNanos());
        this.rolls = new SegmentRoll(parts, host, page, counters);
        this.pages = new PageRangeWriter(parts, page, counters);
        this.idle = new IdleRelease(context.io(), page, segments, lifecycle);
        this.sharedFlush = new SharedFlushTurn(parts, this);
    }

    /**
     * Takes over where recovery found the end. Opening thread, before the writer knows the log.
     *
     * @param tail where the writer goes on (its active segment null when the log has none yet: the first append
     *             rolls).
     */
    void startWith(final RecoveredLog.Tail tail)
    {
        final Segment active = tail.active();
        final long offset = tail.endOffset();
        nextOffset = offset;
        writtenEndOffset = offset;
        endOffset = offset;
        visibility.start(offset);
        lastTimestamp = tail.lastTimestamp();
        segments.activate(active);
        lastRecordPosition = tail.lastRecordAt();
        lastRecordOffset = tail.lastRecordOffset();
        if (active != null)
        {
            if (tail.page() != null)
            {
                page.hold(tail.page()); // crash recovery's page, read from the tail (a clean open takes none)
            }
            writePosition = tail.position();
            flushedPosition = writePosition;
            onActive(active);
            active.publishEnd(writePosition, offset);
            watermark.set(new Watermark(0, active.sequence(), writePosition, offset, lastRecordPosition,
                lastRecordOffset));
        }
        else
        {
            watermark.set(new Watermark(0, -1, 0, offset, -1, -1));
        }
    }

    /** @return the offset the next record gets (published with release ordering after each copy). Any thread. */
    long endOffset()
    {
        return endOffset;
    }

    // ---------------------------------------------------------------- the append path

    void onAppend(final DirectBuffer source, final int index, final int length, final int recordCount,
        final Durability durability, final AppendCallback callback)
    {
        if (acks.refusedAsStopped(callback, name))
        {
            return;
        }
        final int aligned = RecordDescriptor.alignedLength(RecordDescriptor.recordLength(length));
        final Throwable noRoom = makeRoomFor(aligned);
        if (noRoom != null)
        {
            if (noRoom instanceof LogFullException)
            {
                events.refusedFull();
            }
            callbacks.complete(callback, -1, noRoom);
            return;
        }
        final long offset = copy(source, index, length, recordCount, aligned);
        final Durability effective = durability == Durability.DIRECT && context.copyOnWrite() ?
            Durability.DSYNC : durability;
        // MEMORY acknowledgements (and a MEMORY log's visibility) wait for the end of the writer's batch, see
        // onDutyCycle: one publication per batch instead of several fenced stores per record
        acks.add(callback, offset, effective, length);
        if (writePosition - block.down(flushedPosition) >= config.get().flushBytes() * 4L && acks.durable() == 0)
        {
            flush(); // bound the dirty bytes a MEMORY burst leaves behind
        }
    }

    /**
     * Moves {@link #writePosition} to where a record of {@code aligned} bytes goes: in this segment, or at the start
     * of the next one.
     *
     * @return null, or why the record has no room (the roll failed).
     */
    private Throwable makeRoomFor(final int aligned)
    {
        // the block holding the last written byte is on disk: it is never written again (a crash during the
        // rewrite could garble the acknowledged records in it), so the record goes at the next block, after a gap
        final int start = writePosition == flushedPosition ? block.up(writePosition) : writePosition;
        if (segments.active() == null || start + aligned > capacity)
        {
            final Throwable rolled = roll(aligned); // the segment ends at its last record, not after a gap
            return rolled != null ? rolled : page.ensureWritable(writableEnd(writePosition + aligned));
        }
        // idle, or opened clean: a new page from the next block, which needs none of the old one's bytes
        final Throwable none = page.held() ? null : idle.takeBack(start);
        final Throwable noMemory = none != null ? none : page.ensureWritable(writableEnd(start + aligned));
        if (noMemory != null)
        {
            return noMemory; // this append fails; the log goes on (a smaller record may fit, memory may come back)
        }
        if (start != writePosition)
        {
            writePosition = start;
            flushedPosition = start;
        }
        return null;
    }

    /** @return the end of what a copy up to {@code end} writes: the record, the gap, a zero-ahead block. */
    private int writableEnd(final int end)
    {
        return Math.min(capacity, block.up(end) + zeroAhead); // within the active segment's rung
    }

    /**
     * Copies a record at {@link #writePosition}, indexes it and publishes the new end offset.
     *
     * @return the record's offset.
     */
    private long copy(final DirectBuffer source, final int index, final int length, final int recordCount,
        final int aligned)
    {
        final int position = writePosition;
        long timestamp = System.currentTimeMillis();
        if (timestamp < lastTimestamp)
        {
            timestamp = lastTimestamp; // never backwards within a log, whatever the wall clock does
        }
        final long offset = nextOffset;
        encoder.write(page.buffer(), position, offset, timestamp, recordCount, source, index, length);
        segments.active().index().onRecord(offset, position, timestamp, aligned);
        lastTimestamp = timestamp;
        lastRecordPosition = position;
        lastRecordOffset = offset;
        nextOffset = offset + recordCount;
        writePosition = position + aligned;
        if (writePosition >= prepareAt)
        {
            prepareAt = spares.onFilling(); // once a segment: the preparer readies the next rung while this one fills
        }
        END_OFFSET.setRelease(this, nextOffset); // no StoreLoad fence per record: readers need only ordering
        if (recordsSinceFlush++ == 0)
        {
            firstDirtyNanos = System.nanoTime();
        }
        return offset;
    }

    /** The writer's duty cycle for this log (after the close check, see DefaultLog): acknowledge, maybe flush. */
    int onDutyCycle(final long nowNanos)
    {
        final Throwable failed = lifecycle.failure();
        if (failed != null)
        {
            return drainOnFailure(failed);
        }
        int work = 0;
        if (acks.deferredAndFree())
        {
            acknowledge(); // the syncer's sync that held them back has ended (and woke this thread)
            work = 1;
        }
        if (writePosition == flushedPosition)
        {
            return work + (page.idleFor(nextOffset, nowNanos) ? idle.release(writableEnd(writePosition)) : 0);
        }
        if (acks.durable() == 0 && !acks.isEmpty())
        {
            // only MEMORY appends wait: what they copied becomes visible (on a MEMORY log), then they complete
            publishMemoryVisible();
            acknowledge();
        }
        final LogConfig current = config.get();
        // a reader waiting in a DSYNC log: write now (with O_DSYNC, see dsyncDue) rather than at flushBytes or
        // flushInterval; group commit batches what was copied meanwhile, so the lag is about one device write
        if (acks.durable() > 0 || writePosition - flushedPosition >= current.flushBytes() ||
            nowNanos - firstDirtyNanos >= current.flushInterval().toNanos() || lifecycle.isClosing() ||
            visibility.demand().wantsDsyncWrite(current.durability(), visibility.visibleEndOffset()))
        {
            if (!dsyncDue() || !sharedFlush.tryJoin())
            {
                flush();
            }
            return 1;
        }
        return work;
    }

    /** @return the idle release: what a log that takes no append lets go of (tests drive it through DefaultLog). */
    IdleRelease idle()
    {
        return idle;
    }

    /** @return the end of what the writer wrote into its page, or -1 while something is left to write. */
    int writtenEndIfFlushed()
    {
        return writePosition == flushedPosition ? writableEnd(writePosition) : -1;
    }

    long nextDeadlineNanos(final long nowNanos)
    {
        if (writePosition == flushedPosition)
        {
            return Long.MAX_VALUE;
        }
        return firstDirtyNanos + config.get().flushInterval().toNanos();
    }

    private void acknowledge()
    {
        acks.acknowledge(writtenEndOffset);
    }

    int drainOnFailure(final Throwable failed)
    {
        return acks.drainOnFailure(failed);
    }

    /**
     * Writes everything copied since the last write with one pwrite from the page itself, from the block boundary
     * where the last write ended to the end of the last written block (the rest of that block filled as a gap; the
     * next record starts after it, so no block is written twice), then acknowledges in order.
     */
    void flush()
    {
        if (writePosition == flushedPosition)
        {
            publishMemoryVisible();
            acknowledge();
            return;
        }
        final boolean dsync = dsyncDue();
        if (write(dsync))
        {
            completeFlush(dsync);
        }
    }

    /** @return true when this flush must be durable: a DSYNC append waits, or a reader of a DSYNC log does. */
    private boolean dsyncDue()
    {
        return acks.dsync() > 0 ||
            visibility.demand().wantsDsyncWrite(config.get().durability(), visibility.visibleEndOffset());
    }

    /**
     * Writes [the block where the last write ended, the end of the last copied block) of the page.
     *
     * @return true when written; false when the log failed (its pending appends are failed).
     */
    private boolean write(final boolean dsync)
    {
        pages.write(segments.active(), flushedPosition, writePosition, nextOffset, writableEnd(writePosition), dsync,
            acks.durable() > 0);
        return afterWrite();
    }

    /** This log's step of its writer's shared flush before the I/O (see {@link PageRangeWriter#add}). */
    BlockFile addSharedWrite(final BlockWriteBatch batch)
    {
        return pages.add(batch, segments.active(), flushedPosition, writePosition, nextOffset,
            writableEnd(writePosition));
    }

    /**
     * The step after the I/O: the write's outcome ({@code failure} null when complete).
     *
     * @return true when written; false when the log failed (its pending appends are failed).
     */
    boolean onSharedWrite(final Throwable failure, final long nanos)
    {
        pages.onWritten(segments.active(), flushedPosition, writePosition, failure, nanos);
        return afterWrite();
    }

    /** After a write of what was copied: what it moves on, unless it (or the syncer's fdatasync) failed the log. */
    private boolean afterWrite()
    {
        if (lifecycle.failure() != null)
        {
            // this write failed, or the syncer's fdatasync failed while it was in flight: nothing more is acknowledged
            drainOnFailure(lifecycle.failure());
            return false;
        }
        final Segment segment = segments.active();
        counters.onFlush(recordsSinceFlush);
        recordsSinceFlush = 0;
        flushedPosition = writePosition;
        segment.maxTimestamp(lastTimestamp);
        // the syncer takes it before its fdatasync
        watermark.set(epoch, segment.sequence(), flushedPosition, nextOffset, lastRecordPosition, lastRecordOffset);
        return true;
    }

    /** After a completed write ({@code dsync}: a durable one): what it lets readers see, then acknowledgements. */
    void completeFlush(final boolean dsync)
    {
        writtenEndOffset = nextOffset;
        final Durability visibleAt = config.get().durability();
        if (visibleAt == Durability.DIRECT || (visibleAt == Durability.DSYNC && dsync))
        {
            // DIRECT logs show what was written; DSYNC logs only what a DSYNC write made durable (it also
            // rewrote or synced every earlier DIRECT write); MEMORY logs showed it at the copy
            visibility.publishWritten(epoch, epoch, segments.active().sequence(), flushedPosition, nextOffset,
                segments.active());
        }
        publishMemoryVisible();
        acknowledge();
    }

    /** On a MEMORY log, makes everything copied visible; a MEMORY acknowledgement never precedes its visibility. */
    private void publishMemoryVisible()
    {
        visibility.publishCopied(config.get().durability(), segments.active(), writePosition, nextOffset);
    }

    /** Makes records up to {@code w} visible (the syncer's command for a DSYNC log). Writer only. */
    void publishVisible(final Watermark w)
    {
        visibility.publishWritten(epoch, w.epoch(), w.sequence(), w.position(), w.offset(), segments.active());
    }

    // ---------------------------------------------------------------- roll

    /**
     * Moves to the next prepared segment: flushes and acknowledges the current one, opens the next (a prepared
     * file, a new write page, its header; see {@link SegmentRoll}) and makes it the active segment.
     *
     * @param aligned the aligned length of the record the roll is for: the next segment must hold it.
     * @return null, or why the append cannot go on.
     */
    private Throwable roll(final int aligned)
    {
        final Segment previous = segments.active();
        if (previous != null)
        {
            flush();
            if (lifecycle.failure() != null)
            {
                return lifecycle.failure();
            }
        }
        final Segment segment;
        try
        {
            segment = rolls.open(nextOffset, writableEnd(writePosition), aligned);
        }
        catch (final SegmentRoll.Refused e)
        {
            return e.why();
        }
        if (previous != null)
        {
            rolls.seal(previous, writePosition, nextOffset);
        }
        writePosition = SegmentHeaderDescriptor.LENGTH;
        flushedPosition = 0;
        onActive(segment);
        recordsSinceFlush = 0;
        lastRecordPosition = -1;
        lastRecordOffset = -1;
        rolls.activate(segment, nextOffset);
        pages.flushWriter().onNewActive(previous != null);
        context.preparer().signal();
        return lifecycle.failure(); // null unless the roll's checkpoint write failed
    }

    // ---------------------------------------------------------------- for truncation and close (writer thread)

    /** Writes what is copied and acknowledges it, waiting out a sync in flight (truncation, close). */
    void flushAndAcknowledgeNow()
    {
        flush();
        acks.acknowledgeNow(writtenEndOffset);
    }

    /** Close: the final flush (unless failed), what it wrote acknowledged, every other pending append failed. */
    void finalFlush()
    {
        if (lifecycle.failure() == null)
        {
            flush();
        }
        acks.acknowledgeNow(writtenEndOffset); // what the final flush wrote, not failed as closed: a sync was in flight
        final Throwable failed = lifecycle.failure();
        acks.failAll(failed != null ? failed : new LogClosedException("log '" + name + "' is closed"));
    }

    /** Makes every write so far durable: rolled segments synced (and their write files closed), then the active. */
    void syncEverythingWritten() throws IOException
    {
        pages.flushWriter().syncEverythingWritten(segments.active());
    }

    /** @return the watermark of everything copied (close: what the clean checkpoint records). */
    Watermark copiedEnd()
    {
        final Segment active = segments.active();
        if (active == null)
        {
            return new Watermark(epoch, -1, 0, nextOffset, -1, -1);
        }
        return new Watermark(epoch, active.sequence(), writePosition, nextOffset, lastRecordPosition,
            lastRecordOffset);
    }

    int writePosition()
    {
        return writePosition;
    }

    long nextOffset()
    {
        return nextOffset;
    }

    long lastTimestamp()
    {
        return lastTimestamp;
    }

    /** @return the write page, or null while the log holds none (idle, or opened clean and not appended to). */
    CachePage page()
    {
        return page.page();
    }

    /** @return a new truncation epoch: watermarks of the old one are never published again. */
    long nextEpoch()
    {
        return ++epoch;
    }

    /** Truncation, before the bytes change: the end offset moves down first. */
    void lowerEndOffset(final long offset)
    {
        endOffset = offset;
    }

    /** Truncation, at its end: the writer goes on from the cut in {@code target}, writing into {@code writeTo}. */
    void restartAt(final Segment target, final CachePage writeTo, final int position, final long offset,
        final Watermark cut)
    {
        segments.activate(target);
        page.hold(writeTo);
        if (target.index() != null)
        {
            target.index().entryAtNextRecord(); // the page holds bytes from the cut's block only
        }
        writePosition = position;
        flushedPosition = position;
        onActive(target);
        nextOffset = offset;
        writtenEndOffset = offset;
        endOffset = offset;
        lastRecordPosition = cut.lastRecordPosition();
        lastRecordOffset = cut.lastRecordOffset();
        pages.flushWriter().onRestart();
        recordsSinceFlush = 0;
        watermark.set(cut);
    }

    private void onActive(final Segment active)
    {
        capacity = active.capacity();
        zeroAhead = active.zeroAhead() ? active.blockSize() : 0;
        prepareAt = spares.onActive(capacity, writePosition);
    }

    /** @return the writer's counters (read racily by stats()). */
    AppendCounters counters()
    {
        return counters;
    }

    /** @return the acknowledgements: what was completed (read racily by stats()). */
    Acknowledgements acks()
    {
        return acks;
    }
}
