package io.directlog.storage.log;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.directlog.storage.AppendCallback;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogClosedException;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogFailedException;
import io.directlog.storage.LogFullException;
import io.directlog.storage.LogReader;
import io.directlog.storage.LogStats;
import io.directlog.storage.MemoryBudgetExceededException;
import io.directlog.storage.OffsetOutOfRangeException;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.RecordTooLargeException;
import io.directlog.storage.RecoveryReport;
import io.directlog.storage.StorageException;
import io.directlog.storage.cache.CachePage;
import io.directlog.storage.format.CheckpointDescriptor;
import io.directlog.storage.format.Checksums;
import io.directlog.storage.format.RecordDescriptor;
import io.directlog.storage.format.SegmentHeaderDescriptor;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.FileMode;
import io.directlog.storage.page.PageMemory;
import io.directlog.storage.writer.CallbackGuard;
import io.directlog.storage.writer.WriterClient;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A log: the producer-facing API, the writer-side state machine (copy into the page, group-commit flush, roll,
 * fail-stop), and the read path.
 * <p>
 * Threads: fields in the "writer-owned" block are touched only by the writer thread this log is pinned to
 * (after {@link #open} hands them over through the writer's queue). Fields marked volatile are published by
 * the writer for readers and producers. Readers never take a lock the writer waits on.
 */
public final class DefaultLog implements Log, WriterClient, SegmentHost
{
    private static final System.Logger LOG = System.getLogger(DefaultLog.class.getName());
    /** The syncer persists the active segment's index once it grew by this many entries (16 MiB of records). */
    private static final int ACTIVE_INDEX_PERSIST_ENTRIES = 4096;
    private static final VarHandle END_OFFSET;

    static
    {
        try
        {
            END_OFFSET = MethodHandles.lookup().findVarHandle(DefaultLog.class, "endOffset", long.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    private final Path dir;
    private final LogContext context;
    private final LogMeta meta;
    private final int recordLogId;
    private final int maxPayload;
    private final ReadPath readPath;
    private final Set<DefaultLogReader> readers = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedDeque<PreparedSegment> prepared = new ConcurrentLinkedDeque<>();
    private final ConcurrentLinkedQueue<RecycledFile> recycled = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Segment> rolledUnsynced = new ConcurrentLinkedQueue<>();
    private final AtomicLong nextPrepareSequence;
    private final Object visibilityMonitor = new Object();
    private final CompletableFuture<Void> closedFuture = new CompletableFuture<>();
    /** Completed once close has closed the files (or given up on them): the log's directory may be opened again. */
    private final CompletableFuture<Void> closeFinished = new CompletableFuture<>();
    /** Set by the writer when the close itself failed (not when the log had failed before): close() throws it. */
    private volatile Throwable closeFailure;
    private final int slot;
    private final int align;
    private final Checkpoint checkpoint;
    /** Serialises the syncer's tick with close: close frees what the tick writes (the checkpoint's memory). */
    private final Object tickLock = new Object();
    /** Serialises reconfigure(): the file and the field change together. */
    private final Object reconfigureLock = new Object();
    private volatile boolean failureLogged;
    private final Object segmentsLock = new Object();
    private final Object indexLock = new Object();
    private volatile RecoveryReport recoveryReport;
    private final WatermarkCell watermark = new WatermarkCell();
    private volatile LogConfig config;
    private volatile Segment[] segments;
    private volatile long startOffset;
    private volatile long visibleEndOffset;
    private volatile long endOffset;
    private volatile Throwable failure;
    private volatile Throwable prepareFailure;
    private volatile boolean closing;
    private volatile boolean closed;
    private volatile int waiters;
    private volatile Segment activeSegment;
    private volatile long lastSyncNanos = System.nanoTime();

    // writer-owned
    private CachePage page;
    private UnsafeBuffer pageBuffer;
    private ByteBuffer pageBytes;
    private final Checksums.Calculator crc = new Checksums.Calculator();
    private int writePosition;
    private int flushedPosition;
    private long nextOffset;
    private long lastTimestamp;
    /** The active segment holds writes not made through the O_DSYNC descriptor and not synced by the writer. */
    private boolean unsyncedDirect;
    private long epoch;
    private int lastRecordPosition = -1;
    private long lastRecordOffset = -1;
    private final ArrayDeque<Segment> invisibleRolled = new ArrayDeque<>();
    private boolean rolledWithUnsyncedDirect;
    private long firstDirtyNanos;
    private int recordsSinceFlush;
    private final PendingAcks acks;
    /** Runs this log's callbacks: what they throw is caught and counted, never reaches the writer's loop. */
    private final CallbackGuard callbacks;
    private final AckSyncGate ackGate = new AckSyncGate();
    /** Acknowledgements held back by a sync in flight (writer-owned). */
    private boolean acksDeferred;
    /** The offset after the last record a completed write covered (writer-owned). */
    private long writtenEndOffset;
    private boolean failedAcksDrained;
    /** close() ran on this writer with its queue full: the next duty cycle closes the log (writer-owned). */
    private boolean closeAtNextDutyCycle;

    // counters: written by the writer, read racily by stats()
    private long flushes;
    private long flushedRecords;
    private long flushNanos;
    private long rolls;
    private long stalls;
    private long syncs;

    // syncer-owned
    private int persistedActiveEntries;
    private long persistedActiveSequence = -1;

    DefaultLog(final String name, final Path dir, final LogContext context, final LogMeta meta,
        final LogConfig config, final Segment[] segments, final long nextPrepareSequence, final Checkpoint checkpoint)
    {
        this.align = Math.max(4096, context.io().alignment());
        this.checkpoint = checkpoint;
        this.name = name;
        this.dir = dir;
        this.context = context;
        this.meta = meta;
        this.config = config;
        this.recordLogId = RecordDescriptor.recordLogId(meta.logId());
        this.maxPayload = RecordDescriptor.maxPayloadLength(meta.segmentSize());
        this.segments = segments;
        this.nextPrepareSequence = new AtomicLong(nextPrepareSequence);
        this.readPath = new ReadPath(this, context);
        this.callbacks = new CallbackGuard("log '" + name + "'", context.writer().callbacks());
        this.acks = new PendingAcks(callbacks);
        this.slot = context.writer().register(this);
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
        return new LogLoader(name, dir, context, config).load();
    }

    // ---------------------------------------------------------------- handing over recovered state

    void startWith(final Segment active, final CachePage activePage, final int position, final long offset,
        final long timestamp, final long start, final int lastRecordAt, final long lastRecordOffsetAt)
    {
        startOffset = start;
        nextOffset = offset;
        writtenEndOffset = offset;
        endOffset = offset;
        visibleEndOffset = offset;
        lastTimestamp = timestamp;
        activeSegment = active;
        lastRecordPosition = lastRecordAt;
        lastRecordOffset = lastRecordOffsetAt;
        if (active != null)
        {
            page = activePage;
            pageBuffer = activePage.buffer();
            pageBytes = activePage.memory().byteBuffer();
            writePosition = position;
            flushedPosition = position;
            active.publishEnd(position, offset);
            watermark.set(new Watermark(0, active.sequence(), position, offset, lastRecordAt, lastRecordOffsetAt));
        }
        else
        {
            watermark.set(new Watermark(0, -1, 0, offset, -1, -1));
        }
    }

    /** Keeps the first {@code count} segments (the loader dropped the rest). */
    void trimSegments(final int count)
    {
        if (count < segments.length)
        {
            segments = java.util.Arrays.copyOf(segments, count);
        }
    }

    /** @return the end offset recovery found (before the log is handed out). */
    long endOffsetAtOpen()
    {
        return nextOffset;
    }

    /**
     * Finishes opening: records the report, queues the spare segments, makes the watermark durable as not clean
     * (a crash from now on must be recovered), and registers with the preparer.
     */
    void recovered(final RecoveryReport report, final Iterable<PreparedSegment> spare) throws IOException
    {
        recoveryReport = report;
        for (final PreparedSegment p : spare)
        {
            prepared.add(p);
        }
        checkpoint.write(watermark.get(), 0);
        context.preparer().register(this);
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
        return config;
    }

    @Override
    public void reconfigure(final LogConfig newConfig)
    {
        if (newConfig == null)
        {
            throw new NullPointerException("config must not be null");
        }
        if (newConfig.segmentSize() != meta.segmentSize())
        {
            throw new IllegalArgumentException("log '" + name + "' has segmentSize " + meta.segmentSize() +
                "; it is fixed when the log is created and cannot change (asked " + newConfig.segmentSize() + ")");
        }
        // persisted first, applied after: a crash in between reopens the log with what every holder was told
        synchronized (reconfigureLock)
        {
            if (closing)
            {
                throw new LogClosedException("log '" + name + "' is closed; reopen it with store.log(name, config)");
            }
            try
            {
                LogConfigFile.write(context.io(), dir, newConfig);
            }
            catch (final IOException e)
            {
                throw new StorageException("cannot persist the config of log '" + name + "' in " + dir + ": " +
                    e.getMessage() + "; the log keeps its settings", e);
            }
            config = newConfig;
        }
    }

    @Override
    public CompletableFuture<Long> append(final byte[] payload)
    {
        return append(payload, 1, config.durability());
    }

    @Override
    public CompletableFuture<Long> append(final byte[] payload, final Durability durability)
    {
        return append(payload, 1, durability);
    }

    @Override
    public CompletableFuture<Long> append(final byte[] payload, final int recordCount, final Durability durability)
    {
        if (payload == null)
        {
            throw new NullPointerException("payload");
        }
        final FutureCallback future = new FutureCallback();
        append(new UnsafeBuffer(payload), 0, payload.length, recordCount, durability, future);
        return future;
    }

    @Override
    public CompletableFuture<Long> append(final ByteBuffer payload, final Durability durability)
    {
        if (payload == null)
        {
            throw new NullPointerException("payload");
        }
        final FutureCallback future = new FutureCallback();
        final UnsafeBuffer view = payload.isDirect() ? new UnsafeBuffer(payload, payload.position(), payload.remaining()) :
            new UnsafeBuffer(payload.array(), payload.arrayOffset() + payload.position(), payload.remaining());
        append(view, 0, payload.remaining(), 1, durability, future);
        return future;
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
        if (buffer == null || durability == null || callback == null)
        {
            throw new NullPointerException(buffer == null ? "buffer" : durability == null ? "durability" : "callback");
        }
        if (length < 0 || index < 0 || (long)index + length > buffer.capacity())
        {
            throw new IndexOutOfBoundsException("index=" + index + " length=" + length + " outside a buffer of " +
                buffer.capacity() + " bytes");
        }
        if (recordCount < 1)
        {
            throw new IllegalArgumentException("recordCount=" + recordCount + " must be at least 1");
        }
        if (length > maxPayload)
        {
            throw new RecordTooLargeException("record of " + length + " bytes is larger than log '" + name +
                "' can hold: at most " + maxPayload + " bytes with segmentSize " + meta.segmentSize());
        }
        final Throwable refused = refusal();
        if (refused != null)
        {
            callbacks.complete(callback, -1, refused);
            return;
        }
        final Duration timeout = context.appendTimeout();
        if (!context.writer().offerAppend(slot, buffer, index, length, recordCount, durability, callback, timeout))
        {
            final Throwable again = refusal();
            if (again == null)
            {
                context.events().appendTimedOut(this);
            }
            callbacks.complete(callback, -1, again != null ? again : context.writer().timeoutException(timeout, name));
        }
    }

    private Throwable refusal()
    {
        if (closing)
        {
            return new LogClosedException("log '" + name + "' is closed");
        }
        final Throwable failed = failure;
        if (failed != null)
        {
            return failed;
        }
        return null;
    }

    @Override
    public long endOffset()
    {
        return endOffset;
    }

    @Override
    public long startOffset()
    {
        return startOffset;
    }

    @Override
    public long visibleEndOffset()
    {
        return visibleEndOffset;
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
        return !closing && failure == null;
    }

    @Override
    public LogStats stats()
    {
        return new LogStats(acks.completed(), acks.completedBytes(), flushes, flushedRecords, flushNanos, rolls, stalls,
            syncs, readPath.hits(), readPath.misses(), prepared.size(), callbacks.errors());
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
        if (offset < 0)
        {
            throw new IllegalArgumentException("offset=" + offset + " must not be negative (log '" + name + "')");
        }
        if (timeout == null)
        {
            throw new NullPointerException("timeout must not be null");
        }
        if (visibleEndOffset > offset)
        {
            return true;
        }
        final long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (visibilityMonitor)
        {
            waiters++;
            try
            {
                while (visibleEndOffset <= offset)
                {
                    checkOpenForRead();
                    final long remaining = deadline - System.nanoTime();
                    if (remaining <= 0)
                    {
                        return false;
                    }
                    TimeUnit.NANOSECONDS.timedWait(visibilityMonitor, remaining);
                }
                return true;
            }
            finally
            {
                waiters--;
            }
        }
    }

    @Override
    public LogReader reader(final long offset)
    {
        checkOpenForRead();
        final DefaultLogReader reader = new DefaultLogReader(this, offset);
        readers.add(reader);
        return reader;
    }

    void onReaderClosed(final DefaultLogReader reader)
    {
        readers.remove(reader);
    }

    void checkOpenForRead()
    {
        if (closed)
        {
            throw new LogClosedException("log '" + name + "' is closed");
        }
    }

    Segment[] segments()
    {
        return segments;
    }

    LogMeta meta()
    {
        return meta;
    }

    int recordLogId()
    {
        return recordLogId;
    }

    // ---------------------------------------------------------------- SegmentHost

    @Override
    public long activeSequence()
    {
        final Segment active = activeSegment;
        return active == null ? Long.MAX_VALUE : active.sequence();
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

    // ---------------------------------------------------------------- writer thread

    @Override
    public void onAppend(final DirectBuffer source, final int index, final int length, final int recordCount,
        final Durability durability, final AppendCallback callback)
    {
        final Throwable failed = failure;
        if (failed != null)
        {
            drainOnFailure(failed);
            callbacks.complete(callback, -1, failed);
            return;
        }
        if (closed)
        {
            callbacks.complete(callback, -1, new LogClosedException("log '" + name + "' is closed"));
            return;
        }
        final int recordLength = RecordDescriptor.recordLength(length);
        final int aligned = RecordDescriptor.alignedLength(recordLength);
        // the block holding the last written byte is on disk: it is never written again (a crash during the
        // rewrite could garble the acknowledged records in it), so the record goes at the next block, after a gap
        final int start = writePosition == flushedPosition ? alignUp(writePosition) : writePosition;
        if (page == null || start + aligned > meta.segmentSize())
        {
            final Throwable rollError = roll(); // the segment ends at its last record, not after a gap
            if (rollError != null)
            {
                if (rollError instanceof LogFullException)
                {
                    context.events().refusedFull(this);
                }
                callbacks.complete(callback, -1, rollError);
                return;
            }
        }
        else if (start != writePosition)
        {
            writePosition = start;
            flushedPosition = start;
        }
        final int position = writePosition;
        final UnsafeBuffer buffer = pageBuffer;
        long timestamp = System.currentTimeMillis();
        if (timestamp < lastTimestamp)
        {
            timestamp = lastTimestamp; // never backwards within a log, whatever the wall clock does
        }
        final long offset = nextOffset;
        buffer.putLong(position + RecordDescriptor.OFFSET_OFFSET, offset);
        buffer.putLong(position + RecordDescriptor.TIMESTAMP_OFFSET, timestamp);
        buffer.putInt(position + RecordDescriptor.COUNT_OFFSET, recordCount);
        buffer.putInt(position + RecordDescriptor.LOG_ID_OFFSET, recordLogId);
        buffer.putBytes(position + RecordDescriptor.HEADER_LENGTH, source, index, length);
        buffer.putInt(position + RecordDescriptor.CRC_OFFSET, crc.crc32c(buffer,
            position + RecordDescriptor.CRC_COVERAGE_OFFSET, recordLength - RecordDescriptor.CRC_COVERAGE_OFFSET));
        buffer.putIntRelease(position + RecordDescriptor.LENGTH_OFFSET, recordLength); // release: record before length
        activeSegment.index().onRecord(offset, position, timestamp, aligned);
        lastTimestamp = timestamp;
        lastRecordPosition = position;
        lastRecordOffset = offset;
        nextOffset = offset + recordCount;
        writePosition = position + aligned;
        END_OFFSET.setRelease(this, nextOffset); // no StoreLoad fence per record: readers need only ordering
        if (recordsSinceFlush++ == 0)
        {
            firstDirtyNanos = System.nanoTime();
        }
        final Durability effective = durability == Durability.DIRECT && context.copyOnWrite() ?
            Durability.DSYNC : durability;
        // MEMORY acknowledgements (and a MEMORY log's visibility) wait for the end of the writer's batch, see
        // onDutyCycle: one publication per batch instead of several fenced stores per record
        acks.add(callback, offset, effective, length);
        if (writePosition - alignDown(flushedPosition) >= config.flushBytes() * 4L && acks.durable() == 0)
        {
            flush(); // bound the dirty bytes a MEMORY burst leaves behind
        }
    }

    @Override
    public int onDutyCycle(final long nowNanos)
    {
        if (closeAtNextDutyCycle)
        {
            closeAtNextDutyCycle = false;
            onClose();
            finishCloseOnWriter();
            return 1;
        }
        final Throwable failed = failure;
        if (failed != null)
        {
            return drainOnFailure(failed);
        }
        int work = 0;
        if (acksDeferred && !ackGate.isSyncing())
        {
            acknowledge(); // the syncer's sync that held them back has ended (and woke this thread)
            work = 1;
        }
        if (page == null || writePosition == flushedPosition)
        {
            return work;
        }
        if (acks.durable() == 0 && !acks.isEmpty())
        {
            // only MEMORY appends wait: what they copied becomes visible (on a MEMORY log), then they complete
            publishMemoryVisible();
            acknowledge();
        }
        if (acks.durable() > 0 || writePosition - flushedPosition >= config.flushBytes() ||
            nowNanos - firstDirtyNanos >= config.flushInterval().toNanos() || closing)
        {
            flush();
            return 1;
        }
        return work;
    }

    /**
     * Completes the pending appends that may be acknowledged (MEMORY ones, and DIRECT or DSYNC ones a completed
     * write covered), in order, unless the syncer's fdatasync is in flight: then they wait for it (their writes
     * are done), and a failure it finds fails them instead (see {@link AckSyncGate}).
     */
    private void acknowledge()
    {
        if (!ackGate.tryEnterAcks())
        {
            acksDeferred = true;
            return;
        }
        try
        {
            final Throwable failed = failure;
            if (failed != null)
            {
                drainOnFailure(failed);
            }
            else
            {
                // held-back acknowledgements come back after more records were copied: only what was written goes
                acks.completeUpTo(writtenEndOffset);
            }
            acksDeferred = false;
        }
        finally
        {
            ackGate.exitAcks();
        }
    }

    /** Acknowledges what is pending now, waiting out a sync in flight (close and truncation must not defer). */
    private void acknowledgeNow()
    {
        acknowledge();
        while (acksDeferred)
        {
            Thread.yield();
            acknowledge();
        }
    }

    @Override
    public long nextDeadlineNanos(final long nowNanos)
    {
        if (page == null || writePosition == flushedPosition)
        {
            return Long.MAX_VALUE;
        }
        return firstDirtyNanos + config.flushInterval().toNanos();
    }

    private void logFailure(final Throwable e)
    {
        if (!failureLogged)
        {
            failureLogged = true;
            if (Thread.currentThread() == context.writer().thread())
            {
                // never on the writer: formatting and printing a stack trace (a blocking stderr pipe, the console
                // handler's lock held by another thread) took over 100 ms on a loaded machine while appends still
                // queued behind the failure waited to be failed
                final Thread logger = new Thread(() -> LOG.log(System.Logger.Level.ERROR, e.getMessage(),
                    e.getCause()), "directlog-failure-log");
                logger.setDaemon(true);
                logger.start();
                return;
            }
            LOG.log(System.Logger.Level.ERROR, e.getMessage(), e.getCause());
        }
    }

    private int drainOnFailure(final Throwable failed)
    {
        if (!failedAcksDrained || !acks.isEmpty())
        {
            failedAcksDrained = true;
            acks.failAll(failed);
            signalWaiters();
            logFailure(failed); // after the pending appends were failed: logging a stack trace takes time
            return 1;
        }
        return 0;
    }

    /**
     * Writes everything copied since the last write with one pwrite from the page itself, from the block boundary
     * where the last write ended to the end of the last written block (the rest of that block filled as a gap; the
     * next record starts after it, so no block is written twice), then acknowledges in order.
     */
    private void flush()
    {
        if (writePosition == flushedPosition)
        {
            publishMemoryVisible();
            acknowledge();
            return;
        }
        final Segment segment = activeSegment;
        final boolean dsync = acks.dsync() > 0;
        final int from = alignDown(flushedPosition);
        final int to = Math.min(segment.capacity(), alignUp(writePosition));
        try
        {
            if (dsync && rolledWithUnsyncedDirect)
            {
                // a DSYNC ack covers every earlier record: rolled segments' DIRECT writes must be durable too
                for (final Segment rolled : rolledUnsynced)
                {
                    syncRolled(rolled);
                }
                rolledWithUnsyncedDirect = false;
            }
            // a DSYNC ack also covers earlier DIRECT or MEMORY writes in this segment, which are never written
            // again: this write and a cache flush (fdatasync) instead of one write through the O_DSYNC descriptor
            final boolean syncAfter = dsync && unsyncedDirect;
            fillGap(pageBuffer, writePosition, to);
            final BlockFile file = dsync && !syncAfter ? segment.dsyncFile() : segment.directFile();
            final long started = System.nanoTime();
            file.write(pageBytes, from, to - from, from);
            if (syncAfter || !context.io().isDirect() && acks.durable() > 0 && !dsync)
            {
                file.datasync(); // or the buffered fallback: DIRECT would otherwise only reach the page cache
            }
            final long took = System.nanoTime() - started;
            flushNanos += took;
            context.events().flushed(this, took);
            unsyncedDirect = !dsync;
        }
        catch (final IOException | RuntimeException e)
        {
            failStop("write of " + (to - from) + " bytes at " + from + " in " + segment.path().getFileName(), e);
            drainOnFailure(failure);
            return;
        }
        if (failure != null)
        {
            // the syncer's fdatasync failed while this write was in flight: nothing more is acknowledged
            drainOnFailure(failure);
            return;
        }
        flushes++;
        flushedRecords += recordsSinceFlush;
        recordsSinceFlush = 0;
        flushedPosition = writePosition;
        writtenEndOffset = nextOffset;
        segment.maxTimestamp(lastTimestamp);
        // the syncer takes it before its fdatasync
        watermark.set(epoch, segment.sequence(), flushedPosition, nextOffset, lastRecordPosition, lastRecordOffset);
        final Durability visibility = config.durability();
        if (visibility == Durability.DIRECT || (visibility == Durability.DSYNC && dsync))
        {
            // DIRECT logs show what was written; DSYNC logs only what a DSYNC write made durable (it also
            // rewrote or synced every earlier DIRECT write); MEMORY logs showed it at the copy
            publishVisible(epoch, segment.sequence(), flushedPosition, nextOffset);
        }
        publishMemoryVisible();
        acknowledge();
    }

    /**
     * Fills {@code [end, blockEnd)} as a gap: the next record goes at the block boundary (the block is not written
     * again), and the filler tells the gap from sectors a torn write left unwritten (see RecordDescriptor).
     */
    private static void fillGap(final UnsafeBuffer buffer, final int end, final int blockEnd)
    {
        if (blockEnd > end)
        {
            buffer.setMemory(end + 4, blockEnd - end - 4, RecordDescriptor.GAP_FILL); // the length field stays 0
        }
    }

    /** On a MEMORY log, makes everything copied visible; a MEMORY acknowledgement never precedes its visibility. */
    private void publishMemoryVisible()
    {
        if (config.durability() == Durability.MEMORY && visibleEndOffset != nextOffset)
        {
            publishVisible(writePosition, nextOffset);
        }
    }

    /** Makes records up to {@code w} visible: rolled segments it passes first, then the active one. Writer only. */
    private void publishVisible(final Watermark w)
    {
        publishVisible(w.epoch(), w.sequence(), w.position(), w.offset());
    }

    /** Makes records up to the given watermark visible (its fields, so a flush allocates nothing). Writer only. */
    private void publishVisible(final long wEpoch, final long wSequence, final int wPosition, final long wOffset)
    {
        if (wEpoch != epoch || wOffset <= visibleEndOffset)
        {
            return;
        }
        Segment rolled;
        while ((rolled = invisibleRolled.peekFirst()) != null)
        {
            if (rolled.sequence() < wSequence)
            {
                rolled.publishEnd(rolled.sealedPosition(), rolled.sealedOffset());
                invisibleRolled.pollFirst();
            }
            else
            {
                if (rolled.sequence() == wSequence)
                {
                    rolled.publishEnd(wPosition, wOffset);
                }
                break;
            }
        }
        final Segment active = activeSegment;
        if (active != null && active.sequence() == wSequence)
        {
            active.publishEnd(wPosition, wOffset); // release: the segment's end before the log's
        }
        visibleEndOffset = wOffset;
        signalWaiters();
    }

    private void publishVisible(final int position, final long offset)
    {
        activeSegment.publishEnd(position, offset); // release: the segment's end before the log's
        visibleEndOffset = offset;
        signalWaiters();
    }

    private void signalWaiters()
    {
        if (waiters > 0)
        {
            synchronized (visibilityMonitor)
            {
                visibilityMonitor.notifyAll();
            }
        }
    }

    /**
     * Moves to the next prepared segment: flushes and acknowledges the current one, takes a prepared file and a
     * zeroed page, writes the header into the page (it goes to disk with the first flush).
     *
     * @return null, or why the append cannot go on.
     */
    private Throwable roll()
    {
        if (page != null)
        {
            flush();
            if (failure != null)
            {
                return failure;
            }
        }
        PreparedSegment next = prepared.pollFirst();
        if (next == null)
        {
            stalls++;
            context.preparer().prioritise(this);
            final long deadline = System.nanoTime() + context.appendTimeout().toNanos();
            while ((next = prepared.pollFirst()) == null)
            {
                final Throwable full = prepareFailure;
                if (full != null)
                {
                    return new LogFullException("log '" + name + "' has no prepared segment left: " +
                        full.getMessage(), full);
                }
                if (failure != null)
                {
                    return failure;
                }
                if (closing)
                {
                    return new LogClosedException("log '" + name + "' is closing");
                }
                if (System.nanoTime() - deadline >= 0)
                {
                    return new LogFullException("log '" + name + "' waited " + context.appendTimeout().toMillis() +
                        " ms for a prepared segment");
                }
                LockSupport.parkNanos(50_000);
            }
        }
        final Segment previous = activeSegment;
        final Segment segment = new Segment(this, next.sequence(), nextOffset, next.path(), meta.segmentSize(), align,
            next.recycled());
        segment.index(new SegmentIndex(meta.segmentSize()));
        final CachePage newPage = context.cache().acquire(segment, meta.segmentSize(), true);
        if (newPage == null)
        {
            prepared.addFirst(next); // keep the file for later, first in line: files are taken in sequence order
            return new MemoryBudgetExceededException("log '" + name + "' cannot get a write page of " +
                meta.segmentSize() + " bytes: memory budget " + context.cache().pool().budget() + " bytes, " +
                context.cache().pool().usedBytes() + " in use by write pages and pinned or hot pages");
        }
        segment.writeFiles(next.direct(), next.dsync());
        segment.page(newPage);
        SegmentHeaderDescriptor.write(newPage.buffer(), meta.logId(), nextOffset, next.sequence(),
            meta.segmentSize(), align, System.currentTimeMillis(),
            next.recycled() ? SegmentHeaderDescriptor.FLAG_RECYCLED : 0);
        final CachePage previousPage = page;
        if (previous != null)
        {
            previous.seal(writePosition, nextOffset);
            if (visibleEndOffset < nextOffset && config.durability() != Durability.MEMORY)
            {
                invisibleRolled.addLast(previous); // its end becomes visible once durable (publishVisible)
            }
            // queued for the syncer before the new segment becomes active: a syncer that sees the new active
            // segment also finds the old one here (or already synced), so its watermark's segment is synced
            rolledUnsynced.add(previous);
        }
        page = newPage;
        pageBuffer = newPage.buffer();
        pageBytes = newPage.memory().byteBuffer();
        writePosition = SegmentHeaderDescriptor.LENGTH;
        flushedPosition = 0;
        recordsSinceFlush = 0;
        lastRecordPosition = -1;
        lastRecordOffset = -1;
        synchronized (segmentsLock)
        {
            final Segment[] current = segments;
            final Segment[] grown = java.util.Arrays.copyOf(current, current.length + 1);
            grown[current.length] = segment;
            segments = grown; // publish the segment before any offset in it becomes visible
        }
        activeSegment = segment;
        segment.publishEnd(SegmentHeaderDescriptor.LENGTH, nextOffset);
        if (previous != null)
        {
            previousPage.markReadOnly();
            if (unsyncedDirect)
            {
                rolledWithUnsyncedDirect = true;
            }
            rolls++;
        }
        unsyncedDirect = false;
        context.preparer().signal();
        return null;
    }

    /**
     * Makes a rolled segment's writes durable and closes its write descriptors; the writer (before a DSYNC ack)
     * and the syncer both call it, whoever comes first does the work.
     */
    void syncRolled(final Segment segment) throws IOException
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
     * Fail-stop: every pending and later append fails with the same sticky exception; nothing more is
     * acknowledged; records already durable stay readable. Writing again needs a reopen, which recovers.
     */
    void failStop(final String what, final Throwable cause)
    {
        if (failure == null)
        {
            final LogFailedException e = new LogFailedException("log '" + name + "' stopped after a failed " + what +
                ": " + cause.getMessage() + " (reopen the store to recover)", cause);
            failure = e;
            context.events().failStopped(this);
            context.writer().wakeUp();
            if (Thread.currentThread() != context.writer().thread())
            {
                logFailure(e);
            }
        }
    }

    // ---------------------------------------------------------------- background (syncer, preparer)

    /**
     * The background fdatasync: bounds what a volatile device cache holds, probes the filesystem's health (an
     * O_DIRECT write into a written extent still succeeds after the journal aborted; only a sync tells), then
     * writes the durable watermark to the checkpoint, lets a DSYNC log's visibility catch up with what is now
     * durable, persists indexes and applies retention. Runs on the syncer thread.
     *
     * @param nowNanos the time.
     */
    public void onSyncerTick(final long nowNanos)
    {
        if (failure != null || closing || nowNanos - lastSyncNanos < config.syncInterval().toNanos())
        {
            return;
        }
        synchronized (tickLock)
        {
            if (closing || failure != null)
            {
                return;
            }
            lastSyncNanos = nowNanos;
            syncerTick();
        }
    }

    private void syncerTick()
    {
        final Watermark w = watermark.get(); // BEFORE the sync: everything it names is written, so synced below
        final long syncStarted = System.nanoTime();
        final List<Segment> synced = new ArrayList<>();
        ackGate.enterSync(); // no acknowledgement while the sync is in flight: it may find the filesystem failed
        try
        {
            final Segment active = activeSegment; // read before the rolled queue: see roll()
            Segment rolled;
            while ((rolled = rolledUnsynced.poll()) != null)
            {
                syncRolled(rolled);
                synced.add(rolled);
            }
            if (active != null)
            {
                synchronized (active)
                {
                    final BlockFile f = active.directFile();
                    if (f != null)
                    {
                        f.datasync();
                    }
                }
            }
            syncs++;
            context.events().synced(this, System.nanoTime() - syncStarted);
            if (w != null && checkpoint.write(w, 0) && config.durability() == Durability.DSYNC &&
                w.offset() > visibleEndOffset)
            {
                // DIRECT-only traffic in a DSYNC log: what the sync made durable may now be shown (best effort:
                // a full queue just means the next tick tries again)
                context.writer().offerCommand(slot, () -> publishVisible(w), Duration.ZERO);
            }
        }
        catch (final IOException | RuntimeException e)
        {
            failStop("background fdatasync", e); // before the gate opens: held-back appends see the failure
            return;
        }
        finally
        {
            ackGate.exitSync();
            context.writer().wakeUp(); // acknowledgements may be waiting for the sync
        }
        try
        {
            persistIndexes(synced, w);
            Retention.apply(this, w, System.currentTimeMillis());
        }
        catch (final IOException | RuntimeException e)
        {
            // derived data and housekeeping: the log stays writable, the next tick tries again
            LOG.log(System.Logger.Level.WARNING, "log '" + name + "': index or retention work failed: " + e.getMessage());
        }
    }

    /** Writes {@code <seq>.idx} for rolled segments just synced, and for the active one every 16 MiB or so. */
    private void persistIndexes(final List<Segment> synced, final Watermark w) throws IOException
    {
        synchronized (indexLock)
        {
            for (final Segment s : synced)
            {
                final SegmentIndex index = s.index();
                if (!s.isDeleted() && index != null && s.sealedPosition() >= 0 && !s.indexPersisted() &&
                    w != null && w.epoch() == epochForSyncer())
                {
                    IndexFile.write(context.io(), dir, meta.logId(), s, index, s.sealedPosition(), s.sealedOffset(),
                        s.maxTimestamp());
                    s.indexPersisted(true);
                }
            }
            final Segment active = activeSegment;
            if (w == null || active == null || active.sequence() != w.sequence() || w.epoch() != epochForSyncer())
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
                IndexFile.write(context.io(), dir, meta.logId(), active, index, w.position(), w.offset(),
                    active.maxTimestamp());
            }
        }
    }

    private volatile long syncerEpoch;

    /** @return the truncation epoch as the syncer may see it (published by truncateTo under the index lock). */
    private long epochForSyncer()
    {
        return syncerEpoch;
    }

    // ---------------------------------------------------------------- truncation

    @Override
    public void truncateTo(final long offset)
    {
        if (isWriterThread())
        {
            throw new IllegalStateException("truncateTo(" + offset + ") of log '" + name + "' called on its writer " +
                "thread (inside an append callback): it waits for that thread; call it from another thread");
        }
        if (closing)
        {
            throw new LogClosedException("log '" + name + "' is closed");
        }
        final Throwable failed = failure;
        if (failed != null)
        {
            throw (LogFailedException)failed;
        }
        if (offset < startOffset || offset > endOffset)
        {
            throw new OffsetOutOfRangeException(name, offset, startOffset, endOffset);
        }
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final Runnable command = () ->
        {
            try
            {
                onTruncate(offset);
                done.complete(null);
            }
            catch (final Throwable e)
            {
                done.completeExceptionally(e);
            }
        };
        if (!context.writer().offerCommand(slot, command, context.appendTimeout()))
        {
            context.events().appendTimedOut(this);
            throw context.writer().timeoutException(context.appendTimeout(), name);
        }
        try
        {
            done.get();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new StorageException("interrupted while truncating log '" + name + "' (it completes anyway)", e);
        }
        catch (final ExecutionException e)
        {
            final Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re)
            {
                throw re;
            }
            throw new CompletionException(cause);
        }
    }

    /**
     * The writer side of {@link #truncateTo(long)}: flushes, makes everything written durable, writes a
     * TRUNCATING checkpoint at the cut (so a crash part-way cuts there too, without calling the rest corruption),
     * drops later segments (deleted or recycled, directory fsync'ed), zeroes the cut segment from the cut on disk
     * (fdatasync), makes it the active segment again with a fresh write page (readers holding the old page keep
     * it by their pins), and writes a plain checkpoint. Holds the index lock throughout: the syncer's index writes
     * and retention never interleave with it.
     */
    private void onTruncate(final long offset) throws IOException
    {
        if (failure != null)
        {
            throw (LogFailedException)failure;
        }
        if (page != null)
        {
            flush();
            acknowledgeNow(); // appends before the truncation complete before it, as they would without a sync
            if (failure != null)
            {
                throw (LogFailedException)failure;
            }
        }
        synchronized (indexLock)
        {
            if (offset < startOffset || offset > nextOffset)
            {
                throw new OffsetOutOfRangeException(name, offset, startOffset, nextOffset);
            }
            if (offset == nextOffset)
            {
                return;
            }
            try
            {
                truncateLocked(offset);
            }
            catch (final IOException | RuntimeException e)
            {
                if (!(e instanceof IllegalArgumentException))
                {
                    failStop("truncateTo(" + offset + ")", e);
                }
                throw e;
            }
        }
    }

    private void truncateLocked(final long offset) throws IOException
    {
        final Segment[] current = segments;
        final Segment target = ReadPath.find(current, offset);
        int ti = current.length - 1;
        while (current[ti] != target)
        {
            ti--;
        }
        readPath.ensureIndex(target);
        final Located at = locate(target, offset);
        final Segment oldActive = activeSegment;
        final int oldEnd = target == oldActive ? writePosition :
            target.sealedPosition() >= 0 ? target.sealedPosition() : target.endPosition();
        // 0. everything written so far durable, so the watermark below is true
        Segment rolled;
        while ((rolled = rolledUnsynced.poll()) != null)
        {
            syncRolled(rolled);
        }
        rolledWithUnsyncedDirect = false;
        synchronized (oldActive)
        {
            if (oldActive.directFile() != null)
            {
                oldActive.directFile().datasync();
            }
        }
        // 1. the intent, durable: a crash from here on ends the log at the cut
        epoch++;
        syncerEpoch = epoch;
        final Watermark cut = new Watermark(epoch, target.sequence(), at.position(), offset, at.previousPosition(),
            at.previousOffset());
        checkpoint.write(cut, CheckpointDescriptor.FLAG_TRUNCATING);
        for (int k = ti; k < current.length; k++)
        {
            IndexFile.delete(context.io(), dir, current[k].sequence());
            current[k].indexPersisted(false);
        }
        // 2. readers first see the lower end, then the bytes change
        endOffset = offset;
        if (visibleEndOffset > offset)
        {
            visibleEndOffset = offset;
        }
        synchronized (segmentsLock)
        {
            segments = java.util.Arrays.copyOf(current, ti + 1);
        }
        for (final Segment s : invisibleRolled)
        {
            if (s.sequence() < target.sequence())
            {
                s.publishEnd(s.sealedPosition(), s.sealedOffset()); // synced above: visible once the cut is
            }
        }
        invisibleRolled.clear();
        final CachePage oldPage = page;
        for (int k = ti + 1; k < current.length; k++)
        {
            final Segment s = current[k];
            s.markDeleted();
            synchronized (s)
            {
                s.closeFiles();
            }
            final CachePage p = s.page();
            if (p != null)
            {
                s.page(null);
                context.cache().discard(p);
            }
            giveBack(s.path(), false, 0); // records above the cut: never reused unzeroed
        }
        if (ti + 1 < current.length)
        {
            context.io().syncDirectory(dir);
        }
        // 3. the cut segment becomes the active one, with a fresh write page holding the cut's block
        final int size = target.capacity();
        final int block = alignDown(at.position());
        final int blockEnd = Math.min(size, alignUp(at.position()));
        if (target != oldActive)
        {
            synchronized (target)
            {
                if (target.directFile() == null)
                {
                    target.writeFiles(context.io().open(target.path(), FileMode.DIRECT, false),
                        context.io().open(target.path(), FileMode.DIRECT_DSYNC, false));
                }
            }
            final CachePage readOnly = target.page();
            if (readOnly != null)
            {
                target.page(null);
                context.cache().discard(readOnly);
            }
        }
        CachePage newPage = context.cache().acquire(target, size, true);
        final CachePage writeTo;
        if (newPage != null)
        {
            if (blockEnd > block)
            {
                target.directFile().read(newPage.memory().byteBuffer(), block, blockEnd - block, block);
            }
            newPage.validFrom(block);
            writeTo = newPage;
        }
        else if (target == oldActive)
        {
            writeTo = oldPage; // no room for a second page: zero in place (open batches over the cut see zeros)
            if (block < oldPage.validFrom())
            {
                target.directFile().read(oldPage.memory().byteBuffer(), block, blockEnd - block, block);
                oldPage.validFrom(block);
            }
        }
        else
        {
            throw new MemoryBudgetExceededException("log '" + name + "' cannot get a write page to truncate into " +
                target.path().getFileName());
        }
        writeTo.buffer().setMemory(at.position(), Math.max(oldEnd, blockEnd) - at.position(), (byte)0);
        fillGap(writeTo.buffer(), at.position(), blockEnd);
        final int zeroEnd = Math.min(size, alignUp(Math.max(oldEnd, blockEnd)));
        target.directFile().write(writeTo.memory().byteBuffer(), block, zeroEnd - block, block);
        target.directFile().datasync();
        synchronized (target.loadLock())
        {
            if (target.index() != null)
            {
                target.index().truncateTo(at.position());
            }
        }
        if (writeTo != oldPage)
        {
            target.page(writeTo);
            if (oldPage != null && target == oldActive)
            {
                context.cache().discard(oldPage); // readers holding it keep it until they unpin
            }
        }
        target.seal(-1, -1);
        target.publishEnd(at.position(), offset);
        // 4. the writer goes on from the cut
        activeSegment = target;
        page = writeTo;
        pageBuffer = writeTo.buffer();
        pageBytes = writeTo.memory().byteBuffer();
        writePosition = at.position();
        flushedPosition = at.position();
        nextOffset = offset;
        writtenEndOffset = offset;
        endOffset = offset;
        lastRecordPosition = at.previousPosition();
        lastRecordOffset = at.previousOffset();
        unsyncedDirect = false;
        recordsSinceFlush = 0;
        watermark.set(cut);
        visibleEndOffset = offset;
        checkpoint.write(cut, 0);
        signalWaiters();
    }

    /** Where a record starts, and the record before it in the same segment (-1 when unknown). */
    private record Located(int position, int previousPosition, long previousOffset)
    {
    }

    /** Finds the record that starts at {@code offset} in {@code segment}: from the write page, or from disk. */
    private Located locate(final Segment segment, final long offset) throws IOException
    {
        final SegmentIndex index = segment.index();
        int position = Math.max(SegmentHeaderDescriptor.LENGTH, index == null ? -1 : index.floorPosition(offset));
        int previous = -1;
        long previousOffset = -1;
        final CachePage writePage = segment == activeSegment ? page : null;
        final PageMemory scratch = PageMemory.allocate(2 * align, align);
        int loaded = -1;
        try
        {
            while (true)
            {
                final DirectBufferView header;
                if (writePage != null && position >= writePage.validFrom())
                {
                    header = new DirectBufferView(writePage.buffer(), position);
                }
                else
                {
                    final int block = alignDown(position);
                    if (block != loaded)
                    {
                        final int length = Math.min(2 * align, segment.capacity() - block);
                        segment.readFile().read(scratch.byteBuffer(), 0, length, block);
                        loaded = block;
                    }
                    header = new DirectBufferView(scratch.buffer(), position - block);
                }
                final int length = header.buffer.getInt(header.at + RecordDescriptor.LENGTH_OFFSET);
                if (length == 0 && RecordDescriptor.isGap(position, segment.blockSize()))
                {
                    position = segment.skipGap(position);
                    continue;
                }
                final long first = header.buffer.getLong(header.at + RecordDescriptor.OFFSET_OFFSET);
                final int count = header.buffer.getInt(header.at + RecordDescriptor.COUNT_OFFSET);
                if (length < RecordDescriptor.HEADER_LENGTH || first > offset)
                {
                    throw new StorageException("log '" + name + "': no record starts at offset " + offset + " in " +
                        segment.path().getFileName() + " (stopped at position " + position + ")");
                }
                if (first == offset)
                {
                    return new Located(position, previous, previousOffset);
                }
                if (offset < first + count)
                {
                    throw new IllegalArgumentException("log '" + name + "': offset " + offset +
                        " lies inside the batch [" + first + ", " + (first + count) + "); truncate to " + first +
                        " or " + (first + count));
                }
                previous = position;
                previousOffset = first;
                position += RecordDescriptor.alignedLength(length);
            }
        }
        finally
        {
            scratch.free();
        }
    }

    /** A record header's place in some buffer. */
    private record DirectBufferView(UnsafeBuffer buffer, int at)
    {
    }

    /**
     * A segment file the log no longer needs: back to the preparer (renamed) or deleted.
     *
     * @param path      the file.
     * @param belowHead true when every record in it is below the log's start offset, and so below any offset a
     *                  segment made from it will hold (retention): the preparer may reuse it without zeroing it.
     * @param extra     spares to keep beyond the prepared target: retention keeps up to twice as many as it drops
     *                  at once (one pass's worth is about what the writer takes before the next pass, and passes
     *                  drop unevenly), so that a log in steady state creates no files.
     */
    void giveBack(final Path path, final boolean belowHead, final int extra) throws IOException
    {
        if (!closing && prepared.size() + recycled.size() < config.preparedSegments() + extra)
        {
            // unique: the open deleted every recycle-*.tmp before this log's counter started (and its own renames
            // are named open-<n>); no clock in the name, so a workload's file names repeat from run to run
            final Path to = SegmentFiles.recycled(dir, Long.toString(recycleCounter.getAndIncrement()));
            context.io().rename(path, to);
            // ABSOLUTE_CONSISTENCY refuses what a recycled segment's recovery would have to take on trust
            recycled.add(new RecycledFile(to, belowHead && !config.zeroRecycledSegments() &&
                context.recoveryMode() != io.directlog.storage.RecoveryMode.ABSOLUTE_CONSISTENCY));
            context.preparer().signal();
        }
        else
        {
            context.io().delete(path);
        }
    }

    private final AtomicLong recycleCounter = new AtomicLong();

    /** @param path a file opening found, for the preparer to zero and reuse: it may hold records of any offset. */
    void offerRecycled(final Path path)
    {
        recycled.add(new RecycledFile(path, false));
    }

    /** @return a recycled file to prepare, or null. */
    RecycledFile pollRecycled()
    {
        return recycled.poll();
    }

    // ---------------------------------------------------------------- retention (syncer thread)

    /**
     * Drops the oldest segments (retention), if they are still the first ones: out of the segment array, start
     * offset moved, pages discarded (pins respected), files deleted or recycled, directory fsync'ed.
     *
     * @param victims the segments, oldest first.
     * @throws IOException when a file cannot be deleted or the directory synced.
     */
    void dropOldest(final Segment[] victims) throws IOException
    {
        synchronized (indexLock)
        {
            synchronized (segmentsLock)
            {
                final Segment[] current = segments;
                if (current.length <= victims.length)
                {
                    return;
                }
                for (int i = 0; i < victims.length; i++)
                {
                    if (current[i] != victims[i] || current[i] == activeSegment)
                    {
                        return; // a truncation or a roll changed the picture: next tick
                    }
                }
                segments = java.util.Arrays.copyOfRange(current, victims.length, current.length);
                startOffset = segments[0].baseOffset();
            }
            // the new start is durable before a file goes: a segment missing at open is then never retention's
            checkpoint.rewriteSegmentList();
            for (final Segment s : victims)
            {
                s.markDeleted();
                synchronized (s)
                {
                    s.closeFiles();
                }
                final CachePage p = s.page();
                if (p != null)
                {
                    s.page(null);
                    context.cache().discard(p);
                }
                IndexFile.delete(context.io(), dir, s.sequence());
                giveBack(s.path(), true, 2 * victims.length);
            }
            context.io().syncDirectory(dir);
            retained += victims.length;
        }
    }

    private volatile long retained;

    /** @return segments dropped by retention so far. */
    long retainedSegments()
    {
        return retained;
    }

    /**
     * Builds or loads a segment's index (for retention by age, which needs its latest timestamp).
     *
     * @param segment a rolled segment.
     * @throws IOException when it cannot be read.
     */
    void ensureIndex(final Segment segment) throws IOException
    {
        readPath.ensureIndex(segment);
    }

    /** @return the active segment (for retention). */
    Segment activeSegment()
    {
        return activeSegment;
    }

    /** Asks the cache to keep a zeroed page ready for this log's next roll (see PageCache.reserve). Preparer thread. */
    void reserveWritePage()
    {
        if (!closing)
        {
            context.cache().reserve(meta.segmentSize());
        }
    }

    int preparedCount()
    {
        return prepared.size();
    }

    int preparedTarget()
    {
        return config.preparedSegments();
    }

    long takePrepareSequence()
    {
        return nextPrepareSequence.getAndIncrement();
    }

    /**
     * A prepared segment is ready. The preparer checked {@link #isClosing()} before preparing, but close() may have
     * run deregister and {@link #closeFiles()} since: added first, closing read after, so either close's drain
     * sees the segment or this sees closing and closes it (whoever removes it from the queue closes it). The file
     * stays on disk as a spare.
     */
    void onPrepared(final PreparedSegment segment)
    {
        prepared.add(segment);
        prepareFailure = null;
        if (closing && prepared.remove(segment))
        {
            closeQuietly(segment.direct());
            closeQuietly(segment.dsync());
        }
    }

    void onPrepareFailed(final Throwable cause)
    {
        prepareFailure = cause;
    }

    Path directory()
    {
        return dir;
    }

    int segmentSize()
    {
        return meta.segmentSize();
    }

    /** @return true once close() began: the log takes no more appends; the store opens it anew when asked. */
    public boolean isClosing()
    {
        return closing;
    }

    // ---------------------------------------------------------------- close

    @Override
    public void close()
    {
        final boolean onWriter = isWriterThread();
        synchronized (this)
        {
            if (closing)
            {
                if (!onWriter)
                {
                    closeFinished.join();
                }
                return;
            }
            closing = true;
        }
        if (onWriter)
        {
            closeOnWriter();
            return;
        }
        final Runnable onWriterCommand = this::onClose;
        if (!context.writer().offerCommand(slot, onWriterCommand, Duration.ofSeconds(30)))
        {
            failStop("close", new StorageException("writer queue stayed full for 30 s"));
        }
        // not interruptible: an interrupted caller must not close the files under the writer's final flush
        boolean interrupted = false;
        boolean done = false;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!done)
        {
            try
            {
                closedFuture.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                done = true;
            }
            catch (final InterruptedException e)
            {
                interrupted = true;
            }
            catch (final Exception e)
            {
                break;
            }
        }
        context.preparer().deregister(this);
        if (done)
        {
            closeFiles();
        }
        else
        {
            // the writer never ran the close: leave its files open rather than close them under it
            LOG.log(System.Logger.Level.WARNING, "log '" + name + "' did not close within 60 s; its files stay open");
        }
        closeFinished.complete(null);
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
        final Throwable failed = closeFailure;
        if (failed != null)
        {
            // the caller must know: the next open recovers this log as after a crash (issue 17, defect 7)
            LOG.log(System.Logger.Level.WARNING, "log '" + name + "': close could not record a clean shutdown (" +
                failed.getMessage() + "): the next open recovers it as after a crash");
            throw new StorageException("log '" + name + "': close could not record a clean shutdown (" +
                failed.getMessage() + "); the next open recovers it as after a crash", failed);
        }
    }

    /** @return the writer thread this log is pinned to. */
    public Thread writerThread()
    {
        return context.writer().thread();
    }

    private boolean isWriterThread()
    {
        return Thread.currentThread() == context.writer().thread();
    }

    /**
     * close() called on this log's own writer thread (from a callback): the writer cannot wait for itself, so it
     * closes the log after the work already queued, through a command, and close() returns at once. With the
     * queue full it cannot queue one without waiting for itself either: the next duty cycle closes the log then
     * (appends still queued behind it are refused as closed).
     */
    private void closeOnWriter()
    {
        final Runnable command = () ->
        {
            onClose();
            finishCloseOnWriter();
        };
        if (!context.writer().offerCommand(slot, command, Duration.ZERO))
        {
            closeAtNextDutyCycle = true;
        }
    }

    private void finishCloseOnWriter()
    {
        try
        {
            context.preparer().deregister(this);
            closeFiles();
        }
        finally
        {
            closeFinished.complete(null);
        }
    }

    /** Waits until {@link #close()} has closed this log's files; call only after close() began. */
    public void awaitCloseFinished()
    {
        closeFinished.join();
    }

    /** @return true once close has closed this log's files. */
    public boolean isCloseFinished()
    {
        return closeFinished.isDone();
    }

    private void onClose()
    {
        try
        {
            if (failure == null && page != null)
            {
                flush();
            }
            acknowledgeNow(); // what the final flush wrote, not failed as closed because a sync was in flight
            acks.failAll(failure != null ? failure : new LogClosedException("log '" + name + "' is closed"));
            if (failure == null)
            {
                Segment rolled;
                while ((rolled = rolledUnsynced.poll()) != null)
                {
                    syncRolled(rolled);
                }
                final Segment active = activeSegment;
                if (active != null && active.directFile() != null)
                {
                    active.directFile().datasync();
                }
                synchronized (tickLock)
                {
                    recordCleanShutdown(active);
                }
            }
        }
        catch (final IOException | RuntimeException e)
        {
            closeFailure = e;
            failStop("close", e);
        }
        finally
        {
            closed = true;
            signalWaiters();
            context.writer().deregister(slot);
            closedFuture.complete(null);
        }
    }

    /**
     * After the final flush and fdatasync: persists the indexes the next open needs (rolled segments not yet
     * persisted, and the active one), fsyncs the directory, and writes the clean checkpoint last.
     */
    private void recordCleanShutdown(final Segment active) throws IOException
    {
        synchronized (indexLock)
        {
            for (final Segment s : segments)
            {
                if (s != active && !s.isDeleted() && !s.indexPersisted() && s.index() != null &&
                    s.sealedPosition() >= 0 && writeIndexAtClose(s, s.sealedPosition(), s.sealedOffset(),
                    s.maxTimestamp()))
                {
                    s.indexPersisted(true);
                }
            }
            final Watermark end;
            if (active != null)
            {
                writeIndexAtClose(active, writePosition, nextOffset, lastTimestamp);
                end = new Watermark(epoch, active.sequence(), writePosition, nextOffset, lastRecordPosition,
                    lastRecordOffset);
            }
            else
            {
                end = new Watermark(epoch, -1, 0, nextOffset, -1, -1);
            }
            try
            {
                context.io().syncDirectory(dir);
            }
            catch (final IOException e)
            {
                // it makes only the index renames durable (derived data): without it the next open may not find
                // them and scans instead; the clean shutdown itself needs nothing from the directory
                LOG.log(System.Logger.Level.WARNING, "log '" + name + "': the directory fsync at close failed (" +
                    e.getMessage() + "): the next open may scan instead of reading the index files");
            }
            checkpoint.write(end, CheckpointDescriptor.FLAG_CLEAN);
        }
    }

    /**
     * Writes a segment's index at close. The index is derived data and takes new blocks (a file written then
     * renamed), so on a full filesystem it fails where nothing else of the close needs space (the checkpoint is
     * overwritten in place): the clean shutdown is still recorded, and the next open scans what the missing index
     * would have told it (issue 17, defect 7).
     *
     * @return true when written.
     */
    private boolean writeIndexAtClose(final Segment s, final int endPosition, final long endOffset,
        final long maxTimestamp)
    {
        try
        {
            IndexFile.write(context.io(), dir, meta.logId(), s, s.index(), endPosition, endOffset, maxTimestamp);
            return true;
        }
        catch (final IOException e)
        {
            LOG.log(System.Logger.Level.WARNING, "log '" + name + "': the index of " + s.path().getFileName() +
                " could not be written at close (" + e.getMessage() + "): the clean shutdown is recorded without " +
                "it, and the next open scans that segment instead");
            try
            {
                IndexFile.delete(context.io(), dir, s.sequence()); // an older one must not be taken for it
            }
            catch (final IOException ignore)
            {
                // an older index does not match the checkpoint's end either: the open scans
            }
            return false;
        }
    }

    private void closeFiles()
    {
        synchronized (tickLock)
        {
            closeFilesUnderTickLock();
        }
    }

    private void closeFilesUnderTickLock()
    {
        checkpoint.close();
        PreparedSegment p;
        while ((p = prepared.poll()) != null)
        {
            closeQuietly(p.direct());
            closeQuietly(p.dsync());
        }
        for (final Segment s : segments)
        {
            synchronized (s)
            {
                s.closeFiles();
            }
            final CachePage resident = s.page();
            if (resident != null)
            {
                s.page(null);
                context.cache().discard(resident);
            }
        }
    }

    private static void closeQuietly(final BlockFile f)
    {
        try
        {
            f.close();
        }
        catch (final IOException ignore)
        {
            // an unused prepared file: nothing was written through it
        }
    }

    boolean isClosed()
    {
        return closed;
    }

    /** @return the direct-I/O block: 4096 or the BlockIo's larger alignment; flushes and reads align to it. */
    int align()
    {
        return align;
    }

    int alignDown(final int position)
    {
        return position / align * align;
    }

    int alignUp(final int position)
    {
        return (position + align - 1) / align * align;
    }

    @Override
    public String toString()
    {
        return "Log{" + name + ", end=" + endOffset + '}';
    }

    /** The future behind the CompletableFuture API: itself the callback, so one allocation per append. */
    static final class FutureCallback extends CompletableFuture<Long> implements AppendCallback
    {
        @Override
        public void onComplete(final long offset, final Throwable error)
        {
            if (error == null)
            {
                complete(offset);
            }
            else
            {
                completeExceptionally(error);
            }
        }
    }
}
