package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.format.SegmentHeaderDescriptor;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;
import io.directlog.storage.page.PageMemory;

/**
 * The store's background thread that keeps every log's prepared segments ahead of its write head:
 * create under a temporary name, fallocate, fill with zeros by real O_DIRECT writes (FALLOC_FL_ZERO_RANGE alone
 * leaves unwritten extents on ext4, whose conversion on first write is a journaled metadata change), each chunk
 * fdatasynced before the next is written (so appends' cache flushes never wait for a whole file of zeros),
 * rename to the final name, fsync the directory, open. So the writer's later O_DIRECT writes change no metadata.
 * A file retention gave back was written through already: by default only its header block is zeroed (the
 * segment is flagged recycled), so that a log in steady state does not write every byte twice.
 * <p>
 * It also asks the page cache to keep a zeroed page ready for each log's next roll, so that the writer takes
 * both the file and the page ready-made.
 * <p>
 * When space runs out it tells the log (appends fail fast with LogFullException once no prepared segment is
 * left; reads go on) and retries every second; appends resume by themselves when it succeeds.
 * <p>
 * Thread-safe: {@link #signal()} from any thread; the loop is its own thread.
 */
public final class SegmentPreparer implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(SegmentPreparer.class.getName());
    /**
     * Zeros written between two fdatasyncs of a file being prepared. On a device with a volatile write cache (and no
     * FUA) every DSYNC append ends in a cache flush, and a flush writes out everything cached, whoever wrote it: with
     * one sync at the end of a 64 MiB fill, an append that flushed during it waited for up to 64 MiB of zeros (p99
     * 4 ms and p99.9 17 ms at 1 producer, against 0.28 ms for the raw device's O_DSYNC overwrites). Syncing each
     * chunk bounds what any append's flush pays for the preparer to one chunk. One chunk is also one write.
     */
    static final int ZERO_SYNC_BYTES = 1 << 20;
    /** How long the loop sleeps without a signal: it tops logs up even if a signal was lost. */
    private static final long IDLE_WAIT_MILLIS = 500;
    /** How long it waits after a failure (out of space, usually) before it tries again. */
    private static final long RETRY_WAIT_MILLIS = 1000;
    /** How long close() waits for the loop to finish a preparation in flight. */
    private static final long CLOSE_JOIN_MILLIS = 30_000;

    private final BlockIo io;
    private final Set<SpareSegmentQueue> logs = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<SpareSegmentQueue> urgent = new ConcurrentLinkedQueue<>();
    private final Semaphore wakeups = new Semaphore(0);
    /** Guards {@link #filling}; notified when a fill ends. */
    private final Object fillingLock = new Object();
    /** The log the preparer thread is filling now, or null; guarded by fillingLock. */
    private SpareSegmentQueue filling;
    private final Thread thread;
    private final PageMemory zeros;
    private volatile boolean running = true;
    private volatile long prepared;

    /**
     * @param io the I/O layer.
     */
    public SegmentPreparer(final BlockIo io)
    {
        this.io = io;
        this.zeros = PageMemory.allocate(ZERO_SYNC_BYTES, IoBlock.of(io).length());
        thread = new Thread(this::run, "directlog-segment-preparer");
        thread.setDaemon(true);
        thread.start();
    }

    /** @return segments prepared so far. */
    public long preparedCount()
    {
        return prepared;
    }

    void register(final SpareSegmentQueue log)
    {
        logs.add(log);
        signal();
    }

    void deregister(final SpareSegmentQueue log)
    {
        logs.remove(log);
    }

    /**
     * A log's writer is waiting for a prepared segment: serve that log before any other.
     *
     * @param log the waiting log.
     */
    void prioritise(final SpareSegmentQueue log)
    {
        urgent.add(log);
        signal();
    }

    /** Wakes the preparer: a segment was taken. */
    public void signal()
    {
        wakeups.release();
    }

    private void run()
    {
        while (running)
        {
            boolean failed = false;
            SpareSegmentQueue first;
            while ((first = urgent.poll()) != null)
            {
                failed |= fill(first);
            }
            for (final SpareSegmentQueue log : logs)
            {
                failed |= fill(log);
                if (!urgent.isEmpty())
                {
                    break; // a writer waits: go to it now, the others come after
                }
            }
            try
            {
                if (urgent.isEmpty())
                {
                    wakeups.tryAcquire(failed ? RETRY_WAIT_MILLIS : IDLE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
                    wakeups.drainPermits();
                }
            }
            catch (final InterruptedException e)
            {
                return;
            }
        }
    }

    /** Prepares segments for one log up to its target, and a zeroed page for its next roll; true when it failed. */
    private boolean fill(final SpareSegmentQueue log)
    {
        synchronized (fillingLock)
        {
            filling = log;
        }
        try
        {
            return fillLog(log);
        }
        finally
        {
            synchronized (fillingLock)
            {
                filling = null;
                fillingLock.notifyAll();
            }
        }
    }

    /**
     * Waits until the preparer is not preparing a segment of {@code log}; call after {@link #deregister}, so it
     * starts none after. Deleting a log's files needs it: a prepare in flight creates its next segment file after
     * the log closed, and a directory listed before that is not empty when it is removed.
     *
     * @param log     the log.
     * @param timeout how long to wait at most.
     * @return true when no prepare of the log is in flight; false when the timeout passed first.
     * @throws InterruptedException when interrupted while waiting.
     */
    public boolean awaitNotPreparing(final DefaultLog log, final Duration timeout) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final SpareSegmentQueue queue = log.spares();
        synchronized (fillingLock)
        {
            while (filling == queue)
            {
                final long left = deadline - System.nanoTime();
                if (left <= 0)
                {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(fillingLock, left);
            }
        }
        return true;
    }

    private boolean fillLog(final SpareSegmentQueue log)
    {
        try
        {
            log.reserveWritePage();
        }
        catch (final RuntimeException e)
        {
            LOG.log(System.Logger.Level.WARNING, "cannot reserve a page for log '" + log.name() + "': " + e.getMessage());
        }
        while (running && logs.contains(log) && !log.isClosing() && log.wantsAnother())
        {
            try
            {
                log.onPrepared(prepare(log));
                prepared++;
            }
            catch (final IOException | RuntimeException e)
            {
                LOG.log(System.Logger.Level.WARNING, "cannot prepare a segment for log '" + log.name() +
                    "': " + e.getMessage());
                log.onPrepareFailed(e);
                return true;
            }
            if (!urgent.isEmpty() && urgent.peek() != log)
            {
                return false;
            }
        }
        return false;
    }

    private PreparedSegment prepare(final SpareSegmentQueue log) throws IOException
    {
        final Path dir = log.directory();
        final int size = log.nextSegmentSize();
        final RecycledFile given = pollRecycled(log, size);
        Path tmp = given == null ? null : given.path();
        boolean reusedAsIs = false;
        if (tmp != null)
        {
            try
            {
                reusedAsIs = given.reuseAsIs() && zeroHeaderBlock(tmp, size);
                if (!reusedAsIs)
                {
                    zero(tmp, size, false); // "all zero after the end" stays strong in the segment made from it
                }
            }
            catch (final IOException | RuntimeException e)
            {
                deleteQuietly(tmp);
                LOG.log(System.Logger.Level.DEBUG, "recycled file " + tmp + " not reusable: " + e.getMessage());
                tmp = null;
                reusedAsIs = false;
            }
        }
        final long sequence = log.takePrepareSequence();
        final Path path = SegmentFiles.segment(dir, sequence);
        if (tmp == null)
        {
            tmp = SegmentFiles.preparing(dir, sequence);
            try
            {
                zero(tmp, size, true);
            }
            catch (final IOException | RuntimeException e)
            {
                deleteQuietly(tmp);
                throw e;
            }
        }
        io.rename(tmp, path);
        io.syncDirectory(dir);
        return new PreparedSegment(sequence, path, size, reusedAsIs);
    }

    /**
     * Readies a file retention gave back without writing it all again: only its first block is zeroed (so that
     * until the writer takes it, it reads as a prepared file), then synced. Its other blocks were written before,
     * so overwriting them changes no metadata; the records they hold all lie below the offsets the segment will
     * get. A file of another size is not reused this way (appends must never extend a file).
     *
     * @return false when the file must be zero-filled instead.
     */
    private boolean zeroHeaderBlock(final Path file, final int size) throws IOException
    {
        try (BlockFile f = io.open(file, FileMode.DIRECT, false))
        {
            if (f.size() != size)
            {
                return false;
            }
            f.write(zeros.byteBuffer(), 0, Math.max(SegmentHeaderDescriptor.LENGTH, io.alignment()), 0);
            f.datasync();
            return true;
        }
    }

    /**
     * @return the first file the log gave back that has {@code size} bytes, or null; the ones of other sizes (rungs
     *     of the segment-size ladder the log has left) are deleted on the way, so their space is free before a new
     *     file is allocated.
     */
    private RecycledFile pollRecycled(final SpareSegmentQueue log, final int size)
    {
        RecycledFile given;
        while ((given = log.pollRecycled()) != null)
        {
            try
            {
                if (fileSize(given.path()) == size)
                {
                    return given;
                }
            }
            catch (final IOException | RuntimeException e)
            {
                LOG.log(System.Logger.Level.DEBUG, "recycled file " + given.path() + " not readable: " + e.getMessage());
            }
            deleteQuietly(given.path());
        }
        return null;
    }

    private long fileSize(final Path file) throws IOException
    {
        try (BlockFile f = io.open(file, FileMode.READ, false))
        {
            return f.size();
        }
    }

    private void zero(final Path file, final int size, final boolean create) throws IOException
    {
        try (BlockFile f = io.open(file, FileMode.DIRECT, create))
        {
            f.allocate(size);
            for (int at = 0; at < size; at += ZERO_SYNC_BYTES)
            {
                f.write(zeros.byteBuffer(), 0, Math.min(ZERO_SYNC_BYTES, size - at), at);
                f.datasync(); // per chunk: see ZERO_SYNC_BYTES; the last one also makes the whole file durable
            }
        }
    }

    private void deleteQuietly(final Path file)
    {
        try
        {
            io.delete(file);
        }
        catch (final IOException ignore)
        {
            // a .tmp file: deleted at the next open anyway
        }
    }

    @Override
    public void close()
    {
        running = false;
        wakeups.release();
        try
        {
            thread.join(CLOSE_JOIN_MILLIS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        zeros.free();
    }
}
