package io.directlog.storage.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
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
import io.directlog.storage.StorageException;
import io.directlog.storage.cache.CachePage;
import io.directlog.storage.format.Checksums;
import io.directlog.storage.format.RecordDescriptor;
import io.directlog.storage.format.SegmentHeaderDescriptor;
import io.directlog.storage.io.BlockFile;
import io.directlog.storage.io.FileMode;
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
    private static final int ALIGN = 4096;

    private final String name;
    private final Path dir;
    private final LogContext context;
    private final LogMeta meta;
    private final int recordLogId;
    private final int maxPayload;
    private final ReadPath readPath;
    private final Set<DefaultLogReader> readers = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<PreparedSegment> prepared = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Segment> rolledUnsynced = new ConcurrentLinkedQueue<>();
    private final AtomicLong nextPrepareSequence;
    private final Object visibilityMonitor = new Object();
    private final CompletableFuture<Void> closedFuture = new CompletableFuture<>();
    private final int slot;
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
    private int writePosition;
    private int flushedPosition;
    private long nextOffset;
    private long lastTimestamp;
    private int unsyncedDirectFrom = -1;
    private boolean rolledWithUnsyncedDirect;
    private long firstDirtyNanos;
    private int recordsSinceFlush;
    private final PendingAcks acks = new PendingAcks();
    private boolean failedAcksDrained;

    // counters: written by the writer, read racily by stats()
    private long appends;
    private long appendedBytes;
    private long flushes;
    private long flushedRecords;
    private long rolls;
    private long stalls;
    private long syncs;

    DefaultLog(final String name, final Path dir, final LogContext context, final LogMeta meta,
        final LogConfig config, final Segment[] segments, final long nextPrepareSequence)
    {
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
        final long timestamp, final long start, final Iterable<PreparedSegment> spare)
    {
        for (final PreparedSegment p : spare)
        {
            prepared.add(p);
        }
        startOffset = start;
        nextOffset = offset;
        endOffset = offset;
        visibleEndOffset = offset;
        lastTimestamp = timestamp;
        activeSegment = active;
        if (active != null)
        {
            page = activePage;
            pageBuffer = activePage.buffer();
            pageBytes = activePage.memory().byteBuffer();
            writePosition = position;
            flushedPosition = position;
            active.publishEnd(position, offset);
        }
        context.preparer().register(this);
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

    /** @param newConfig settings to use from now on (the segment size stays). */
    public void config(final LogConfig newConfig)
    {
        config = newConfig.toBuilder().segmentSize(meta.segmentSize()).build();
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
            callback.onComplete(-1, refused);
            return;
        }
        final Duration timeout = context.appendTimeout();
        if (!context.writer().offerAppend(slot, buffer, index, length, recordCount, durability, callback, timeout))
        {
            final Throwable again = refusal();
            callback.onComplete(-1, again != null ? again : context.writer().timeoutException(timeout, name));
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
        return new LogStats(appends, appendedBytes, flushes, flushedRecords, rolls, stalls, syncs,
            readPath.hits(), readPath.misses());
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

    @Override
    public void truncateTo(final long offset)
    {
        throw new UnsupportedOperationException("truncateTo is not implemented yet (issue 5); log '" + name + "'");
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
            callback.onComplete(-1, failed);
            return;
        }
        if (closed)
        {
            callback.onComplete(-1, new LogClosedException("log '" + name + "' is closed"));
            return;
        }
        final int recordLength = RecordDescriptor.recordLength(length);
        final int aligned = RecordDescriptor.alignedLength(recordLength);
        if (page == null || writePosition + aligned > meta.segmentSize())
        {
            final Throwable rollError = roll();
            if (rollError != null)
            {
                callback.onComplete(-1, rollError);
                return;
            }
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
        buffer.putInt(position + RecordDescriptor.CRC_OFFSET, Checksums.crc32c(buffer,
            position + RecordDescriptor.CRC_COVERAGE_OFFSET, recordLength - RecordDescriptor.CRC_COVERAGE_OFFSET));
        buffer.putIntRelease(position + RecordDescriptor.LENGTH_OFFSET, recordLength); // release: record before length
        activeSegment.index().onRecord(offset, position, timestamp);
        lastTimestamp = timestamp;
        nextOffset = offset + recordCount;
        writePosition = position + aligned;
        endOffset = nextOffset;
        appends++;
        appendedBytes += length;
        if (recordsSinceFlush++ == 0)
        {
            firstDirtyNanos = System.nanoTime();
        }
        final Durability effective = durability == Durability.DIRECT && context.copyOnWrite() ?
            Durability.DSYNC : durability;
        if (config.durability() == Durability.MEMORY)
        {
            publishVisible(writePosition, nextOffset);
        }
        if (effective == Durability.MEMORY && acks.isEmpty())
        {
            callback.onComplete(offset, null);
        }
        else
        {
            acks.add(callback, offset, effective);
        }
        if (writePosition - alignDown(flushedPosition) >= config.flushBytes() * 4L && acks.durable() == 0)
        {
            flush(); // bound the dirty bytes a MEMORY burst leaves behind
        }
    }

    @Override
    public int onDutyCycle(final long nowNanos)
    {
        final Throwable failed = failure;
        if (failed != null)
        {
            return drainOnFailure(failed);
        }
        if (page == null || writePosition == flushedPosition)
        {
            return 0;
        }
        if (acks.durable() > 0 || writePosition - flushedPosition >= config.flushBytes() ||
            nowNanos - firstDirtyNanos >= config.flushInterval().toNanos() || closing)
        {
            flush();
            return 1;
        }
        return 0;
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

    private int drainOnFailure(final Throwable failed)
    {
        if (!failedAcksDrained || !acks.isEmpty())
        {
            failedAcksDrained = true;
            acks.failAll(failed);
            signalWaiters();
            return 1;
        }
        return 0;
    }

    /**
     * Writes everything copied since the last write with one pwrite from the page itself, from the last flushed
     * block boundary to the end of the last written block (the partial tail block goes again, zero-padded,
     * because the page beyond the last record is zero), then acknowledges in order.
     */
    private void flush()
    {
        if (writePosition == flushedPosition)
        {
            acks.completeAll();
            return;
        }
        final Segment segment = activeSegment;
        final boolean dsync = acks.dsync() > 0;
        int from = alignDown(flushedPosition);
        final int to = alignUp(writePosition);
        try
        {
            if (dsync)
            {
                if (rolledWithUnsyncedDirect)
                {
                    // a DSYNC ack covers every earlier record: rolled segments' DIRECT writes must be durable too
                    for (final Segment rolled : rolledUnsynced)
                    {
                        syncRolled(rolled);
                    }
                    rolledWithUnsyncedDirect = false;
                }
                if (unsyncedDirectFrom >= 0 && unsyncedDirectFrom < from)
                {
                    from = alignDown(unsyncedDirectFrom); // rewrite earlier DIRECT blocks through the FUA descriptor
                }
            }
            final BlockFile file = dsync ? segment.dsyncFile() : segment.directFile();
            file.write(pageBytes, from, to - from, from);
            if (!context.io().isDirect() && acks.durable() > 0 && !dsync)
            {
                file.datasync(); // buffered fallback: DIRECT would otherwise only reach the page cache
            }
            if (dsync)
            {
                unsyncedDirectFrom = -1;
            }
            else if (unsyncedDirectFrom < 0 || from < unsyncedDirectFrom)
            {
                unsyncedDirectFrom = from;
            }
        }
        catch (final IOException | RuntimeException e)
        {
            failStop("write of " + (to - from) + " bytes at " + from + " in " + segment.path().getFileName(), e);
            drainOnFailure(failure);
            return;
        }
        flushes++;
        flushedRecords += recordsSinceFlush;
        recordsSinceFlush = 0;
        flushedPosition = writePosition;
        segment.maxTimestamp(lastTimestamp);
        if (config.durability() != Durability.MEMORY)
        {
            publishVisible(flushedPosition, nextOffset);
        }
        acks.completeAll();
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
        PreparedSegment next = prepared.poll();
        if (next == null)
        {
            stalls++;
            context.preparer().signal();
            final long deadline = System.nanoTime() + context.appendTimeout().toNanos();
            while ((next = prepared.poll()) == null)
            {
                final Throwable full = prepareFailure;
                if (full != null)
                {
                    return new LogFullException("log '" + name + "' has no prepared segment left: " +
                        full.getMessage(), full);
                }
                if (System.nanoTime() - deadline >= 0 || closing)
                {
                    return new LogFullException("log '" + name + "' waited " + context.appendTimeout().toMillis() +
                        " ms for a prepared segment");
                }
                LockSupport.parkNanos(50_000);
            }
        }
        final Segment previous = activeSegment;
        final Segment segment = new Segment(this, next.sequence(), nextOffset, next.path(), meta.segmentSize());
        segment.index(new SegmentIndex(meta.segmentSize()));
        final CachePage newPage = context.cache().acquire(segment, meta.segmentSize(), true);
        if (newPage == null)
        {
            prepared.add(next); // keep the file for later; order of prepared files does not matter
            return new MemoryBudgetExceededException("log '" + name + "' cannot get a write page of " +
                meta.segmentSize() + " bytes: memory budget " + context.cache().pool().budget() + " bytes, " +
                context.cache().pool().usedBytes() + " in use by write pages and pinned or hot pages");
        }
        segment.writeFiles(next.direct(), next.dsync());
        segment.page(newPage);
        SegmentHeaderDescriptor.write(newPage.buffer(), meta.logId(), nextOffset, next.sequence(),
            meta.segmentSize(), System.currentTimeMillis());
        final CachePage previousPage = page;
        page = newPage;
        pageBuffer = newPage.buffer();
        pageBytes = newPage.memory().byteBuffer();
        writePosition = SegmentHeaderDescriptor.LENGTH;
        flushedPosition = 0;
        recordsSinceFlush = 0;
        final Segment[] current = segments;
        final Segment[] grown = java.util.Arrays.copyOf(current, current.length + 1);
        grown[current.length] = segment;
        segments = grown; // publish the segment before any offset in it becomes visible
        activeSegment = segment;
        segment.publishEnd(SegmentHeaderDescriptor.LENGTH, nextOffset);
        if (previous != null)
        {
            previousPage.markReadOnly();
            if (unsyncedDirectFrom >= 0)
            {
                rolledWithUnsyncedDirect = true;
            }
            rolledUnsynced.add(previous);
            rolls++;
        }
        unsyncedDirectFrom = -1;
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
            LOG.log(System.Logger.Level.ERROR, e.getMessage(), cause);
            context.writer().wakeUp();
        }
    }

    // ---------------------------------------------------------------- background (syncer, preparer)

    /**
     * The background fdatasync: bounds what a volatile device cache holds and probes the filesystem's health
     * (an O_DIRECT write into a written extent still succeeds after the journal aborted; only a sync tells).
     * Runs on the syncer thread.
     *
     * @param nowNanos the time.
     */
    public void onSyncerTick(final long nowNanos)
    {
        if (failure != null || nowNanos - lastSyncNanos < config.syncInterval().toNanos())
        {
            return;
        }
        lastSyncNanos = nowNanos;
        try
        {
            Segment rolled;
            while ((rolled = rolledUnsynced.poll()) != null)
            {
                syncRolled(rolled);
            }
            final Segment active = activeSegment;
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
        }
        catch (final IOException | RuntimeException e)
        {
            failStop("background fdatasync", e);
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

    void onPrepared(final PreparedSegment segment)
    {
        prepared.add(segment);
        prepareFailure = null;
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

    boolean isClosing()
    {
        return closing;
    }

    // ---------------------------------------------------------------- close

    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closing)
            {
                closedFuture.join();
                return;
            }
            closing = true;
        }
        final Runnable onWriter = this::onClose;
        if (!context.writer().offerCommand(slot, onWriter, Duration.ofSeconds(30)))
        {
            failStop("close", new StorageException("writer queue stayed full for 30 s"));
        }
        try
        {
            closedFuture.get(60, TimeUnit.SECONDS);
        }
        catch (final Exception e)
        {
            LOG.log(System.Logger.Level.WARNING, "log '" + name + "' did not close cleanly", e);
        }
        finally
        {
            context.preparer().deregister(this);
            closeFiles();
        }
    }

    private void onClose()
    {
        try
        {
            if (failure == null && page != null)
            {
                flush();
            }
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
            }
        }
        catch (final IOException | RuntimeException e)
        {
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

    private void closeFiles()
    {
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

    static int alignDown(final int position)
    {
        return position & -ALIGN;
    }

    static int alignUp(final int position)
    {
        return (position + ALIGN - 1) & -ALIGN;
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
