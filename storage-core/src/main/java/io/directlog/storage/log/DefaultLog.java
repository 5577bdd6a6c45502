package io.directlog.storage.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
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
 *   <li>{@link LogWriterTurn}: the log as its writer thread sees it (appends copied, duty cycles, fail-stop).</li>
 *   <li>{@link LogCloser}: close; {@link LogLifecycle}: open, closing, closed, failed.</li>
 * </ul>
 * The order their locks are taken in is written in {@link LogLocks}. Recovery ({@link LogLoader}) returns what
 * it found ({@link RecoveredLog}); the log is built from that before the writer knows it ({@link LogOpening}).
 */
public final class DefaultLog implements Log
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
    /** The log as its writer thread sees it (registered with the writer). */
    private final LogWriterTurn writerTurn;
    private final AppendIntake intake;
    /** Runs this log's callbacks: what they throw is caught and counted, never reaches the writer's loop. */
    private final CallbackGuard callbacks;
    /** What the segments ask of the log (the active sequence, the declared readers' positions, files, pages). */
    private final LogSegmentHost host;
    private final LogSettings settings;
    private final RecoveryReport recoveryReport;

    /** Builds the log from what recovery found; {@link #start} makes it writable ({@link LogOpening} does both). */
    DefaultLog(final String name, final Path dir, final LogContext context, final RecoveredLog recovered)
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
        this.writerTurn = new LogWriterTurn(parts, appender, closer, callbacks);
        this.slot = context.writer().register(writerTurn); // last: the writer may call this log from now on
        parts.slot().set(slot);
        final Throwable writerDeath = context.writer().death(); // after register: see LogWriterAgent.register
        if (writerDeath != null)
        {
            lifecycle.failStop("writer", writerDeath); // reads work; appends fail with why
        }
        this.intake = new AppendIntake(parts, callbacks, slot);
    }

    /**
     * Makes the watermark durable as not clean (a crash from now on must be recovered) and registers with the
     * preparer.
     */
    void start(final RecoveredLog recovered) throws IOException
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

    /** @return what {@link LogWriterTurn#releasePageNow} returns (tests). */
    boolean releaseWritePageNow()
    {
        return writerTurn.releasePageNow();
    }

    /** @return the log's syncer side (tests tick it with their own clock). */
    LogSyncer syncer()
    {
        return syncer;
    }

    /** @return the log as its writer thread sees it (tests drive its duty cycle without a writer). */
    LogWriterTurn writerTurn()
    {
        return writerTurn;
    }

    // ---------------------------------------------------------------- writer and syncer threads

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

    /** @return what the store manifest records of this log after a clean close (see {@link LogCloser#cleanFacts}). */
    public LogFacts cleanFacts()
    {
        return closer.cleanFacts();
    }

    @Override
    public String toString()
    {
        return "Log{" + name + ", end=" + appender.endOffset() + '}';
    }
}
