package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import io.directlog.storage.LogClosedException;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogFullException;

/**
 * One log's spare segment files: the prepared ones waiting for the writer's next roll (zeroed, synced, open), and
 * the files the log gave back (retention, truncation, recovery) waiting for the preparer to ready them again.
 * <p>
 * Files are prepared on demand, one rung of the log's {@link SegmentLadder} at a time: a new log gets its first
 * (small) file; a log with an active segment gets the next rung only once its writer filled half of the active
 * segment ({@link #onFilling()}), so an idle or tiny log holds no prepared file; a log at full-size segments keeps
 * {@link LogConfig#preparedSegments()} ready, as before the ladder.
 * <p>
 * Threads: lock-free queues and volatile fields. The preparer fills {@code prepared} and drains {@code recycled};
 * the writer takes prepared segments at a roll and reports its active segment's size and fill; the syncer
 * (retention) and the writer (truncation) give files back; close drains what is left. No lock of the log is taken
 * here.
 */
final class SpareSegments implements SpareSegmentQueue
{
    /**
     * The next rung is prepared once the active segment is half full: a log of a few records (a DIRECT append
     * takes at least a 4 KiB block) stays on its first file, and a growing one gives the preparer the second half
     * of a segment's fill to ready a file 4 times its size (it stalls where the device cannot zero that fast).
     */
    static final int PREPARE_AT_FILL_SHIFT = 1;
    /** How often a stalled roll looks for a prepared segment again. */
    private static final long PREPARED_POLL_NANOS = 50_000;

    private final String name;
    private final Path dir;
    private final LogContext context;
    private final LogLifecycle lifecycle;
    private final Supplier<LogConfig> config;
    private final ConcurrentLinkedDeque<PreparedSegment> prepared = new ConcurrentLinkedDeque<>();
    private final ConcurrentLinkedQueue<RecycledFile> recycled = new ConcurrentLinkedQueue<>();
    private final AtomicLong nextPrepareSequence;
    private final AtomicLong recycleCounter = new AtomicLong();
    private final RecoveryRules rules;
    private volatile Throwable prepareFailure;
    /** Makes the writer's take (file out, size in) and the preparer's "wants another" one step each. */
    private final Object takeLock = new Object();
    /** Size of the newest file in the log's line (active or prepared), 0 for none: the next rung follows it. */
    private volatile int newestSize;
    /** The smallest size the next prepared file must have (a record bigger than the next rung), or 0. */
    private volatile int wantedSize;
    /** Capacity of the writer's active segment, 0 before its first. */
    private volatile int activeCapacity;
    /** Set once the active segment is filled past {@link #PREPARE_AT_FILL}: the next rung is needed soon. */
    private volatile boolean needSoon;

    SpareSegments(final String name, final Path dir, final LogContext context,
        final LogLifecycle lifecycle, final Supplier<LogConfig> config, final long nextPrepareSequence)
    {
        this.name = name;
        this.dir = dir;
        this.context = context;
        this.lifecycle = lifecycle;
        this.config = config;
        this.nextPrepareSequence = new AtomicLong(nextPrepareSequence);
        this.rules = new RecoveryRules(context.recoveryMode());
    }

    // ---------------------------------------------------------------- the writer's side

    /**
     * Writer, at a roll.
     *
     * @param aligned the aligned length of the record the roll is for.
     * @return the next prepared segment that holds the record, or null. One too small for it (the record is bigger
     *     than the next rung) goes to the preparer to be reused or deleted, and the next one is asked big enough.
     */
    PreparedSegment pollPrepared(final int aligned)
    {
        PreparedSegment next;
        while ((next = take()) != null && !SegmentLadder.holds(next.size(), aligned))
        {
            wantedSize = ladder().holding(next.size(), aligned);
            needSoon = true; // take() cleared it for a file that is not used: the writer waits for a bigger one
            recycled.add(new RecycledFile(next.path(), false)); // blank: a crash leaves a spare behind the head
        }
        final int nextRung = ladder().next(newestSize);
        if (next == null && !SegmentLadder.holds(nextRung, aligned))
        {
            wantedSize = ladder().holding(nextRung, aligned); // the file being prepared would not hold it
        }
        return next;
    }

    /**
     * Takes the first prepared file and marks it active in one step under {@link #takeLock}, so that the preparer
     * never sees the file gone while the log still looks as if it had no segment (and prepares one it needs not).
     */
    private PreparedSegment take()
    {
        synchronized (takeLock)
        {
            final PreparedSegment next = prepared.pollFirst();
            if (next != null)
            {
                activeCapacity = next.size();
                needSoon = false;
            }
            return next;
        }
    }

    /**
     * Writer: its active segment is now one of {@code capacity} bytes, filled to {@code position}.
     *
     * @return the position past which the writer calls {@link #onFilling()}, or {@link Integer#MAX_VALUE}.
     */
    int onActive(final int capacity, final int position)
    {
        activeCapacity = capacity;
        newestSize = Math.max(newestSize, capacity);
        final int threshold = capacity >> PREPARE_AT_FILL_SHIFT;
        needSoon = position >= threshold;
        if (needSoon)
        {
            context.preparer().signal();
        }
        return needSoon ? Integer.MAX_VALUE : threshold;
    }

    /**
     * Writer: its active segment passed the fill threshold {@link #onActive} gave: prepare the next rung now.
     *
     * @return the next threshold: none.
     */
    int onFilling()
    {
        needSoon = true;
        context.preparer().signal();
        return Integer.MAX_VALUE;
    }

    /**
     * Writer, at a roll: the next prepared segment that holds the record, waiting for one (a stall, counted) when
     * none is ready.
     *
     * @param aligned  the aligned length of the record the roll is for.
     * @param counters where the stall is counted.
     * @return the segment.
     * @throws NoPreparedSegment as {@link #awaitPrepared(int)}.
     */
    PreparedSegment take(final int aligned, final AppendCounters counters) throws NoPreparedSegment
    {
        final PreparedSegment next = pollPrepared(aligned);
        if (next != null)
        {
            return next;
        }
        counters.onStall();
        return awaitPrepared(aligned);
    }

    private SegmentLadder ladder()
    {
        return SegmentLadder.of(config.get());
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
    PreparedSegment awaitPrepared(final int aligned) throws NoPreparedSegment
    {
        needSoon = true;
        context.preparer().prioritise(this);
        final long deadline = System.nanoTime() + context.appendTimeout().toNanos();
        PreparedSegment next;
        while ((next = pollPrepared(aligned)) == null)
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

    /** @param segment a spare recovery found ready, after the writer's {@link #onActive}. Opening thread. */
    void addRecovered(final PreparedSegment segment)
    {
        prepared.add(segment);
        newestSize = segment.size();
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

    /**
     * Retires the files the open gave up, after its first checkpoint write: each to recycle renamed out of the
     * segment namespace for the preparer to zero and reuse (it may hold records of any offset), each to delete
     * deleted, and the directory synced once.
     *
     * @param recycle segment files to recycle.
     * @param delete  blank files to delete.
     */
    void retireFromOpen(final List<Path> recycle, final List<Path> delete) throws IOException
    {
        int n = 0;
        for (final Path path : recycle)
        {
            // unique: the open deleted every recycle-*.tmp, and retention's names are numbers
            final Path to = SegmentFiles.recycled(dir, "open-" + n++);
            context.io().rename(path, to);
            recycled.add(new RecycledFile(to, false));
        }
        for (final Path path : delete)
        {
            context.io().delete(path);
        }
        if (!recycle.isEmpty() || !delete.isEmpty())
        {
            context.io().syncDirectory(dir);
        }
    }

    /** Forgets the prepared files left (they stay on disk as spares; none holds a descriptor). Close. */
    void closeAll()
    {
        prepared.clear();
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
    public int nextSegmentSize()
    {
        return Math.max(ladder().next(newestSize), Math.min(wantedSize, ladder().max()));
    }

    @Override
    public void reserveWritePage()
    {
        if (!lifecycle.isClosing() && preparedTarget() > 0)
        {
            // a roll takes a growing page charged for its first chunk: room for that, not for a whole segment
            context.cache().reserve(Math.min(WritePage.FIRST_CHUNK, nextSegmentSize()));
        }
    }

    @Override
    public int preparedCount()
    {
        return prepared.size();
    }

    /**
     * On demand: one for a log with no segment yet (its first append needs it), the configured count once its
     * segments are full size, and otherwise one only when the active segment is filling (or the writer waits).
     */
    @Override
    public int preparedTarget()
    {
        final int capacity = activeCapacity;
        if (capacity <= 0)
        {
            return 1;
        }
        if (capacity >= ladder().max())
        {
            return config.get().preparedSegments();
        }
        return needSoon ? 1 : 0;
    }

    @Override
    public boolean wantsAnother()
    {
        synchronized (takeLock)
        {
            return prepared.size() < preparedTarget();
        }
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
     * sees the segment or this sees closing and removes it. The file stays on disk as a spare.
     */
    @Override
    public void onPrepared(final PreparedSegment segment)
    {
        newestSize = segment.size();
        if (segment.size() >= wantedSize)
        {
            wantedSize = 0;
        }
        prepared.add(segment);
        prepareFailure = null;
        if (lifecycle.isClosing())
        {
            prepared.remove(segment);
        }
    }

    @Override
    public void onPrepareFailed(final Throwable cause)
    {
        prepareFailure = cause;
    }
}
