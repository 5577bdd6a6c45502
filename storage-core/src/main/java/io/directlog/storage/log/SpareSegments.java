package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import io.directlog.storage.LogClosedException;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogFullException;
import io.directlog.storage.spi.BlockFile;

/**
 * One log's spare segment files: the prepared ones waiting for the writer's next roll (zeroed, synced, open), and
 * the files the log gave back (retention, truncation, recovery) waiting for the preparer to ready them again.
 * <p>
 * Threads: lock-free queues. The preparer fills {@code prepared} and drains {@code recycled}; the writer takes
 * prepared segments at a roll; the syncer (retention) and the writer (truncation) give files back; close drains
 * what is left. No lock of the log is taken here.
 */
final class SpareSegments implements SpareSegmentQueue
{
    /** How often a stalled roll looks for a prepared segment again. */
    private static final long PREPARED_POLL_NANOS = 50_000;

    private final String name;
    private final Path dir;
    private final int segmentSize;
    private final LogContext context;
    private final LogLifecycle lifecycle;
    private final Supplier<LogConfig> config;
    private final ConcurrentLinkedDeque<PreparedSegment> prepared = new ConcurrentLinkedDeque<>();
    private final ConcurrentLinkedQueue<RecycledFile> recycled = new ConcurrentLinkedQueue<>();
    private final AtomicLong nextPrepareSequence;
    private final AtomicLong recycleCounter = new AtomicLong();
    private final RecoveryRules rules;
    private volatile Throwable prepareFailure;

    SpareSegments(final String name, final Path dir, final int segmentSize, final LogContext context,
        final LogLifecycle lifecycle, final Supplier<LogConfig> config, final long nextPrepareSequence)
    {
        this.name = name;
        this.dir = dir;
        this.segmentSize = segmentSize;
        this.context = context;
        this.lifecycle = lifecycle;
        this.config = config;
        this.nextPrepareSequence = new AtomicLong(nextPrepareSequence);
        this.rules = new RecoveryRules(context.recoveryMode());
    }

    // ---------------------------------------------------------------- the writer's side

    /** @return the next prepared segment, or null. Writer, at a roll. */
    PreparedSegment pollPrepared()
    {
        return prepared.pollFirst();
    }

    /** Why a roll found no prepared segment: carries the exception the append fails with (no stack trace). */
    static final class NoPreparedSegment extends Exception
    {
        private static final long serialVersionUID = 1L;
        private final transient Throwable why;

        NoPreparedSegment(final Throwable why)
        {
            super(null, null, false, false);
            this.why = why;
        }

        Throwable why()
        {
            return why;
        }
    }

    /**
     * Writer, at a roll that found no prepared segment: asks the preparer to serve this log first and waits for
     * one, up to the append timeout.
     *
     * @return the segment.
     * @throws NoPreparedSegment when preparing failed (out of space), the log failed or is closing, or the
     *     timeout passed.
     */
    PreparedSegment awaitPrepared() throws NoPreparedSegment
    {
        context.preparer().prioritise(this);
        final long deadline = System.nanoTime() + context.appendTimeout().toNanos();
        PreparedSegment next;
        while ((next = prepared.pollFirst()) == null)
        {
            final Throwable full = prepareFailure;
            if (full != null)
            {
                throw new NoPreparedSegment(new LogFullException("log '" + name + "' has no prepared segment " +
                    "left: " + full.getMessage(), full));
            }
            if (lifecycle.failure() != null)
            {
                throw new NoPreparedSegment(lifecycle.failure());
            }
            if (lifecycle.isClosing())
            {
                throw new NoPreparedSegment(new LogClosedException("log '" + name + "' is closing"));
            }
            if (System.nanoTime() - deadline >= 0)
            {
                throw new NoPreparedSegment(new LogFullException("log '" + name + "' waited " +
                    context.appendTimeout().toMillis() + " ms for a prepared segment"));
            }
            LockSupport.parkNanos(PREPARED_POLL_NANOS);
        }
        return next;
    }

    /** Puts back a segment the roll could not use, first in line: files are taken in sequence order. */
    void putBack(final PreparedSegment segment)
    {
        prepared.addFirst(segment);
    }

    /** @param segment a spare recovery found ready. Opening thread. */
    void addRecovered(final PreparedSegment segment)
    {
        prepared.add(segment);
    }

    /** @return why the last preparation failed, or null once one succeeded. */
    Throwable prepareFailure()
    {
        return prepareFailure;
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
        final LogConfig current = config.get();
        if (!lifecycle.isClosing() && prepared.size() + recycled.size() < current.preparedSegments() + extra)
        {
            // unique: the open deleted every recycle-*.tmp before this log's counter started (and its own renames
            // are named open-<n>); no clock in the name, so a workload's file names repeat from run to run
            final Path to = SegmentFiles.recycled(dir, Long.toString(recycleCounter.getAndIncrement()));
            context.io().rename(path, to);
            // ABSOLUTE_CONSISTENCY refuses what a recycled segment's recovery would have to take on trust
            recycled.add(new RecycledFile(to, belowHead && rules.reusesFilesAsIs(current.zeroRecycledSegments())));
            context.preparer().signal();
        }
        else
        {
            context.io().delete(path);
        }
    }

    /** @param path a file opening found, for the preparer to zero and reuse: it may hold records of any offset. */
    void offerRecycled(final Path path)
    {
        recycled.add(new RecycledFile(path, false));
    }

    /** Closes the prepared files left (they stay on disk as spares). Close, after the preparer let go. */
    void closeAll()
    {
        PreparedSegment p;
        while ((p = prepared.poll()) != null)
        {
            closeQuietly(p.direct());
            closeQuietly(p.dsync());
        }
    }

    // ---------------------------------------------------------------- the preparer's side

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public boolean isClosing()
    {
        return lifecycle.isClosing();
    }

    @Override
    public Path directory()
    {
        return dir;
    }

    @Override
    public int segmentSize()
    {
        return segmentSize;
    }

    @Override
    public void reserveWritePage()
    {
        if (!lifecycle.isClosing())
        {
            // a roll takes a growing page charged for its first chunk: room for that, not for a whole segment
            context.cache().reserve(Math.min(WritePage.FIRST_CHUNK, segmentSize));
        }
    }

    @Override
    public int preparedCount()
    {
        return prepared.size();
    }

    @Override
    public int preparedTarget()
    {
        return config.get().preparedSegments();
    }

    @Override
    public RecycledFile pollRecycled()
    {
        return recycled.poll();
    }

    @Override
    public long takePrepareSequence()
    {
        return nextPrepareSequence.getAndIncrement();
    }

    /**
     * A prepared segment is ready. The preparer checked {@link #isClosing()} before preparing, but close() may have
     * run deregister and {@link #closeAll()} since: added first, closing read after, so either close's drain
     * sees the segment or this sees closing and closes it (whoever removes it from the queue closes it). The file
     * stays on disk as a spare.
     */
    @Override
    public void onPrepared(final PreparedSegment segment)
    {
        prepared.add(segment);
        prepareFailure = null;
        if (lifecycle.isClosing() && prepared.remove(segment))
        {
            closeQuietly(segment.direct());
            closeQuietly(segment.dsync());
        }
    }

    @Override
    public void onPrepareFailed(final Throwable cause)
    {
        prepareFailure = cause;
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
}
