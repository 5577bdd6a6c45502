package io.directlog.storage.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.directlog.storage.AppendCallback;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogReader;
import io.directlog.storage.LogStats;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.RecoveryReport;
import io.directlog.storage.writer.CallbackGuard;
import io.directlog.storage.writer.WriterClient;
import org.agrona.DirectBuffer;

/**
 * A log: the public {@link Log} API over the parts that do the work, each with one owner thread or one lock:
 * <ul>
 *   <li>{@link AppendIntake}: an append's checks and its way into the writer's queue; any thread.</li>
 *   <li>{@link LogAppender}: the writer-side state machine (copy, group-commit flush, roll, acknowledgements);
 *       writer thread.</li>
 *   <li>{@link SegmentSet}: the segments and the active one; copy-on-write under its own lock.</li>
 *   <li>{@link Visibility}: what readers may see, and the readers waiting for more.</li>
 *   <li>{@link ReadPath}: reads, from resident pages or from disk; any thread, lock-free.</li>
 *   <li>{@link LogSyncer}: the background fdatasync, checkpoint, index files, retention; syncer thread.</li>
 *   <li>{@link LogTruncation}: truncateTo; writer thread, under the index lock.</li>
 *   <li>{@link SpareSegments}: the prepared and recycled segment files the {@link SegmentPreparer} works on.</li>
 *   <li>{@link LogCloser}: close; {@link LogLifecycle}: open, closing, closed, failed.</li>
 * </ul>
 * The order their locks are taken in is written in {@link LogLocks}. Recovery ({@link LogLoader}) returns what
 * it found ({@link RecoveredLog}); the log is built from that before the writer knows it.
 */
public final class DefaultLog implements Log, WriterClient
{
    private final String name;
    private final Path dir;
    private final LogContext context;
    private final LogMeta meta;
    private final int slot;
    private final LogParts parts;
    private final LogLifecycle lifecycle;
    private final SegmentSet segments;
    private final Visibility visibility;
    private final SpareSegments spares;
    private final Checkpoint checkpoint;
    private final ReadPath readPath;
    private final LogAppender appender;
    private final LogSyncer syncer;
    private final LogTruncation truncation;
    private final LogCloser closer;
    private final AppendIntake intake;
    /** Runs this log's callbacks: what they throw is caught and counted, never reaches the writer's loop. */
    private final CallbackGuard callbacks;
    /** What the segments ask of the log (the active sequence, the declared readers' positions, files, pages). */
    private final LogSegmentHost host;
    private final LogSettings settings;
    private final RecoveryReport recoveryReport;

    /** Builds the log from what recovery found; {@link #start()} makes it writable. */
    private DefaultLog(final String name, final Path dir, final LogContext context, final RecoveredLog recovered)
    {
        this.name = name;
        this.dir = dir;
        this.context = context;
        this.meta = recovered.meta();
        this.checkpoint = recovered.checkpoint();
        this.host = recovered.host();
        final LogEventSink events = new LogEventSink(context.events(), this);
        this.lifecycle = new LogLifecycle(name, context, events);
        this.settings = new LogSettings(name, dir, context, meta, lifecycle, recovered.config());
        this.segments = host.segments();
        segments.restore(recovered.segments().toArray(new Segment[0]));
        segments.startOffset(recovered.startOffset());
        this.visibility = new Visibility(name);
        this.spares = new SpareSegments(name, dir, context, lifecycle, settings::config,
            recovered.nextPrepareSequence());
        this.parts = new LogParts(name, dir, context, meta, settings::config, IoBlock.of(context.io()), lifecycle,
            segments, visibility, spares, new WatermarkCell(), new AckSyncGate(), new ConcurrentLinkedQueue<>(),
            new LogLocks(), checkpoint, new WriterSlot(), events);
        this.callbacks = new CallbackGuard("log '" + name + "'", context.writer().callbacks());
        this.appender = new LogAppender(parts, host, callbacks);
        final LogReadView view = new LogReadView(parts, appender);
        final SegmentIndexLoader indexes = new SegmentIndexLoader(view, context);
        this.readPath = new ReadPath(view, context, indexes);
        appender.startWith(recovered.tail());
        this.recoveryReport = recovered.report();
        recovered.spares().forEach(spares::addRecovered);
        checkpoint.segmentList(segments::all);
        this.syncer = new LogSyncer(parts, appender, indexes);
        this.truncation = new LogTruncation(parts, appender, syncer, indexes);
        this.closer = new LogCloser(parts, appender);
        this.slot = context.writer().register(this); // last: the writer may call this log from now on
        parts.slot().set(slot);
        final Throwable writerDeath = context.writer().death(); // after register: see LogWriterAgent.register
        if (writerDeath != null)
        {
            lifecycle.failStop("writer", writerDeath); // reads work; appends fail with why
        }
        this.intake = new AppendIntake(parts, callbacks, slot);
    }

    /**
     * Opens or creates the log in {@code dir}, recovering its tail.
     *
     * @param name    the log's name.
     * @param dir     its directory.
     * @param context what it shares with the store.
     * @param config  its settings (the segment size of an existing log wins).
     * @return the open log.
     * @throws IOException when its files cannot be read or written.
     */
    public static DefaultLog open(final String name, final Path dir, final LogContext context, final LogConfig config)
        throws IOException
    {
        final RecoveredLog found = new LogLoader(name, dir, context, config).load();
        final DefaultLog log = new DefaultLog(name, dir, context, found);
        try
        {
            log.start(found);
        }
        catch (final IOException | RuntimeException e)
        {
            closeAfterFailedStart(log, e);
            throw e;
        }
        return log;
    }

    /**
     * Opens a log the store manifest describes, from what it records ({@link KnownLogLoader}: no {@code log.meta},
     * segment header or checkpoint read); when its files do not match that, from its files as {@link #open} does.
     *
     * @param facts what the manifest records of the log.
     * @see #open
     */
    public static DefaultLog openKnown(final String name, final Path dir, final LogContext context,
        final LogConfig config, final LogFacts facts) throws IOException
    {
        RecoveredLog found = new KnownLogLoader(name, dir, context, config, facts).load();
        if (found == null)
        {
            found = new LogLoader(name, dir, context, config, facts).load(); // facts stand in for a lost checkpoint
        }
        final DefaultLog log = new DefaultLog(name, dir, context, found);
        try
        {
            log.start(found);
        }
        catch (final IOException | RuntimeException e)
        {
            closeAfterFailedStart(log, e);
            throw e;
        }
        return log;
    }

    /** Closes a log whose start failed; what the close throws goes with the start's failure, not in its place. */
    private static void closeAfterFailedStart(final DefaultLog log, final Exception failure)
    {
        try
        {
            log.close();
        }
        catch (final RuntimeException closeFailure)
        {
            failure.addSuppressed(closeFailure);
        }
    }

    /**
     * Makes the watermark durable as not clean (a crash from now on must be recovered) and registers with the
     * preparer.
     */
    private void start(final RecoveredLog recovered) throws IOException
    {
        checkpoint.write(parts.watermark().get(), 0);
        // only now, with a checkpoint naming the list without them, may the files recovery gave up lose their names
        spares.retireFromOpen(recovered.recycled(), recovered.deleted());
        context.preparer().register(spares);
    }

    @Override
    public RecoveryReport recoveryReport()
    {
        return recoveryReport;
    }

    // ---------------------------------------------------------------- producer API

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public LogConfig config()
    {
        return settings.config();
    }

    @Override
    public void reconfigure(final LogConfig newConfig)
    {
        settings.reconfigure(newConfig);
    }

    @Override
    public CompletableFuture<Long> append(final byte[] payload)
    {
        return append(payload, 1, settings.config().durability());
    }

    @Override
    public CompletableFuture<Long> append(final byte[] payload, final Durability durability)
    {
        return append(payload, 1, durability);
    }

    @Override
    public CompletableFuture<Long> append(final byte[] payload, final int recordCount, final Durability durability)
    {
        return intake.append(payload, recordCount, durability);
    }

    @Override
    public CompletableFuture<Long> append(final ByteBuffer payload, final Durability durability)
    {
        return intake.append(payload, durability);
    }

    @Override
    public void append(final DirectBuffer buffer, final int index, final int length, final Durability durability,
        final AppendCallback callback)
    {
        append(buffer, index, length, 1, durability, callback);
    }

    @Override
    public void append(final DirectBuffer buffer, final int index, final int length, final int recordCount,
        final Durability durability, final AppendCallback callback)
    {
        intake.append(buffer, index, length, recordCount, durability, callback);
    }

    @Override
    public long endOffset()
    {
        return appender.endOffset();
    }

    @Override
    public long startOffset()
    {
        return segments.startOffset();
    }

    @Override
    public long visibleEndOffset()
    {
        return visibility.visibleEndOffset();
    }

    @Override
    public Durability effectiveDurability(final Durability requested)
    {
        if (requested == Durability.DIRECT && context.copyOnWrite())
        {
            return Durability.DSYNC;
        }
        return requested;
    }

    @Override
    public boolean isWritable()
    {
        return !lifecycle.isClosing() && lifecycle.failure() == null;
    }

    @Override
    public LogStats stats()
    {
        final AppendCounters c = appender.counters();
        return new LogStats(appender.acks().completed(), appender.acks().completedBytes(), c.flushes(), c.flushedRecords(),
            c.flushNanos(), c.rolls(), c.stalls(), syncer.syncs(), readPath.hits(), readPath.misses(),
            spares.preparedCount(), callbacks.errors());
    }

    @Override
    public void truncateTo(final long offset)
    {
        truncation.truncateTo(offset);
    }

    // ---------------------------------------------------------------- read API

    @Override
    public RecordBatch read(final long offset, final int maxBytes)
    {
        return readPath.read(offset, maxBytes, false);
    }

    RecordBatch read(final long offset, final int maxBytes, final boolean sequential)
    {
        return readPath.read(offset, maxBytes, sequential);
    }

    @Override
    public long offsetForTimestamp(final long timestampMillis)
    {
        return readPath.offsetForTimestamp(timestampMillis);
    }

    @Override
    public boolean awaitAppend(final long offset, final Duration timeout) throws InterruptedException
    {
        return visibility.awaitAppend(offset, timeout, lifecycle);
    }

    @Override
    public LogReader reader(final long offset)
    {
        lifecycle.checkOpenForRead();
        final DefaultLogReader reader = new DefaultLogReader(this, offset);
        host.addReader(reader);
        return reader;
    }

    void onReaderClosed(final DefaultLogReader reader)
    {
        host.removeReader(reader);
    }

    Segment[] segments()
    {
        return segments.all();
    }

    /** @return the spare segment files (tests wait on them, and release them without a writer). */
    SpareSegments spares()
    {
        return spares;
    }

    /**
     * Hands the write page to the read cache now, as the writer does once the log took no append for
     * {@code StoreConfig.pageIdleRelease} (tests call this rather than wait for the clock). Not on the writer thread.
     *
     * @return true when the page went to the read cache; false when there was none, something was left to write,
     * or a reader held it.
     */
    boolean releaseWritePageNow()
    {
        final CompletableFuture<Boolean> done = new CompletableFuture<>();
        final Runnable release = () ->
        {
            final int end = appender.writtenEndIfFlushed();
            done.complete(end >= 0 && appender.idle().releasePage(end));
        };
        if (!context.writer().offerCommand(slot, release, context.appendTimeout()))
        {
            throw context.writer().timeoutException(context.appendTimeout(), name);
        }
        return done.join();
    }

    // ---------------------------------------------------------------- writer and syncer threads

    @Override
    public void onAppend(final DirectBuffer source, final int index, final int length, final int recordCount,
        final Durability durability, final AppendCallback callback)
    {
        appender.onAppend(source, index, length, recordCount, durability, callback);
    }

    @Override
    public int onDutyCycle(final long nowNanos)
    {
        return closer.closeIfDue() ? 1 : appender.onDutyCycle(nowNanos);
    }

    @Override
    public boolean needsDutyCycles()
    {
        // settled: everything copied is written and no append waits (a failed log drained its appends)
        return closer.closeDue() || appender.writtenEndIfFlushed() < 0 || !appender.acks().isEmpty();
    }

    @Override
    public long nextDeadlineNanos(final long nowNanos)
    {
        return appender.nextDeadlineNanos(nowNanos);
    }

    @Override
    public void onFailure(final String what, final Throwable cause, final AppendCallback unfinished)
    {
        final boolean held = unfinished != null && appender.acks().holds(unfinished);
        lifecycle.failStop(what, cause);
        final Throwable failed = lifecycle.failure();
        appender.drainOnFailure(failed);
        if (unfinished != null && !held)
        {
            callbacks.complete(unfinished, -1, failed);
        }
    }

    /**
     * The background fdatasync, checkpoint, index files and retention (see {@link LogSyncer}). Syncer thread.
     *
     * @param nowNanos the time.
     */
    public void onSyncerTick(final long nowNanos)
    {
        syncer.onSyncerTick(nowNanos);
    }

    /**
     * Offers this log's tick to the syncer's round, which shares the device flushes of the logs on one flush domain
     * (see {@link SyncerRound}); a log without one ticks alone, now. Syncer thread.
     *
     * @param nowNanos the time.
     * @param round    this pass's round (run after every log was offered).
     */
    public void onSyncerTick(final long nowNanos, final SyncerRound round)
    {
        syncer.offerTick(nowNanos, round);
    }

    // ---------------------------------------------------------------- close

    /** @return true once close() began: the log takes no more appends; the store opens it anew when asked. */
    public boolean isClosing()
    {
        return lifecycle.isClosing();
    }

    @Override
    public void close()
    {
        closer.close();
    }

    /** @return the writer thread this log is pinned to. */
    public Thread writerThread()
    {
        return context.writer().thread();
    }

    /** Waits until {@link #close()} has closed this log's files; call only after close() began. */
    public void awaitCloseFinished()
    {
        closer.awaitCloseFinished();
    }

    /** @return true once close has closed this log's files. */
    public boolean isCloseFinished()
    {
        return closer.isCloseFinished();
    }

    /**
     * @return what the store manifest records of this log, once its close recorded a clean shutdown; null before,
     * or when the close did not (the next open then recovers the log from its files), or when a segment follows a
     * hole in the offsets (issue 17): the manifest has no field for where the hole starts, and a log opened from it
     * would take the segment before the hole as ending at the next one's base, so its clean open reads the headers.
     */
    public LogFacts cleanFacts()
    {
        final Watermark end = checkpoint.cleanEnd();
        if (end == null || !closer.isCloseFinished())
        {
            return null;
        }
        final List<LogFacts.SegmentFacts> live = new ArrayList<>();
        for (final Segment s : segments.all())
        {
            if (!s.isDeleted() && s.holeFrom() >= 0)
            {
                return null;
            }
            if (!s.isDeleted())
            {
                live.add(new LogFacts.SegmentFacts(s.sequence(), s.baseOffset(), s.capacity(), s.blockSize(),
                    s.recycled(), s.zeroAhead()));
            }
        }
        return new LogFacts(name, meta.logId(), meta.segmentSize(), meta.created(), checkpoint.generation(),
            end.sequence(), end.position(), end.offset(), end.lastRecordPosition(), end.lastRecordOffset(), live);
    }

    @Override
    public String toString()
    {
        return "Log{" + name + ", end=" + appender.endOffset() + '}';
    }
}
