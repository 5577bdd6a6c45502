package io.directlog.storage.log;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.StorageException;
import io.directlog.storage.cache.CachePage;
import io.directlog.storage.format.CheckpointDescriptor;

/**
 * Closing one log: the caller's side (a command to the writer, a bounded wait, the files closed after the writer
 * let go) and the writer's side (the final flush, everything synced, indexes persisted, the clean checkpoint).
 * <p>
 * Threads: {@link #close()} on any thread, the writer's included (then the close is queued behind the work
 * already there); {@link #onClose()} on the writer; the files are closed under {@link LogLocks#tickLock} so the
 * syncer's tick never writes what close freed.
 */
final class LogCloser
{
    private static final System.Logger LOG = System.getLogger(DefaultLog.class.getName());
    /** How long close() waits for room in the writer's queue before it fails the log instead. */
    static final Duration CLOSE_OFFER_TIMEOUT = Duration.ofSeconds(30);
    /** How long close() waits for the writer to run the close before it leaves the files open. */
    static final Duration CLOSE_WAIT_TIMEOUT = Duration.ofSeconds(60);

    private final LogParts parts;
    private final LogAppender appender;
    private final CompletableFuture<Void> closedFuture = new CompletableFuture<>();
    /** Completed once close has closed the files (or given up on them): the log's directory may be opened again. */
    private final CompletableFuture<Void> closeFinished = new CompletableFuture<>();
    /** Set by the writer when the close itself failed (not when the log had failed before): close() throws it. */
    private volatile Throwable closeFailure;
    /** close() ran on this writer with its queue full: the next duty cycle closes the log (writer-owned). */
    private boolean closeAtNextDutyCycle;

    LogCloser(final LogParts parts, final LogAppender appender)
    {
        this.parts = parts;
        this.appender = appender;
    }

    void close()
    {
        final LogLifecycle lifecycle = parts.lifecycle();
        final boolean onWriter = lifecycle.isWriterThread();
        if (!lifecycle.beginClose())
        {
            if (!onWriter)
            {
                closeFinished.join();
            }
            return;
        }
        if (onWriter)
        {
            closeOnWriter();
            return;
        }
        final LogContext context = parts.context();
        final Runnable onWriterCommand = this::onClose;
        if (!context.writer().offerCommand(parts.slot().get(), onWriterCommand, CLOSE_OFFER_TIMEOUT))
        {
            lifecycle.failStop("close", new StorageException("writer queue stayed full for " +
                CLOSE_OFFER_TIMEOUT.toSeconds() + " s"));
        }
        final WriterWait wait = awaitWriterClose();
        context.preparer().deregister(parts.spares());
        if (wait.done())
        {
            closeFiles();
        }
        else
        {
            // the writer never ran the close: leave its files open rather than close them under it
            LOG.log(System.Logger.Level.WARNING, "log '" + parts.name() + "' did not close within " +
                CLOSE_WAIT_TIMEOUT.toSeconds() + " s; its files stay open");
        }
        closeFinished.complete(null);
        if (wait.interrupted())
        {
            Thread.currentThread().interrupt();
        }
        throwCloseFailure();
    }

    /** How the wait for the writer's side of the close ended. */
    private record WriterWait(boolean done, boolean interrupted)
    {
    }

    /**
     * Waits for the writer's side of the close. Not interruptible: an interrupted caller must not close the files
     * under the writer's final flush (the caller restores the interrupt once the files are closed).
     */
    private WriterWait awaitWriterClose()
    {
        boolean interrupted = false;
        boolean done = false;
        final long deadline = System.nanoTime() + CLOSE_WAIT_TIMEOUT.toNanos();
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
        return new WriterWait(done, interrupted);
    }

    private void throwCloseFailure()
    {
        final Throwable failed = closeFailure;
        if (failed != null)
        {
            // the caller must know: the next open recovers this log as after a crash (issue 17, defect 7)
            LOG.log(System.Logger.Level.WARNING, "log '" + parts.name() + "': close could not record a clean " +
                "shutdown (" + failed.getMessage() + "): the next open recovers it as after a crash");
            throw new StorageException("log '" + parts.name() + "': close could not record a clean shutdown (" +
                failed.getMessage() + "); the next open recovers it as after a crash", failed);
        }
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
        if (!parts.context().writer().offerCommand(parts.slot().get(), command, Duration.ZERO))
        {
            closeAtNextDutyCycle = true;
        }
    }

    /** @return true when the next duty cycle closes the log (see {@link #closeIfDue}). */
    boolean closeDue()
    {
        return closeAtNextDutyCycle;
    }

    /**
     * The writer's duty cycle asks first: a close queued with the writer's queue full runs now.
     *
     * @return true when it closed the log.
     */
    boolean closeIfDue()
    {
        if (!closeAtNextDutyCycle)
        {
            return false;
        }
        closeAtNextDutyCycle = false;
        onClose();
        finishCloseOnWriter();
        return true;
    }

    private void finishCloseOnWriter()
    {
        try
        {
            parts.context().preparer().deregister(parts.spares());
            closeFiles();
        }
        finally
        {
            closeFinished.complete(null);
        }
    }

    /** Waits until {@link #close()} has closed this log's files; call only after close() began. */
    void awaitCloseFinished()
    {
        closeFinished.join();
    }

    /** @return true once close has closed this log's files. */
    boolean isCloseFinished()
    {
        return closeFinished.isDone();
    }

    private void onClose()
    {
        final LogLifecycle lifecycle = parts.lifecycle();
        try
        {
            appender.finalFlush();
            if (lifecycle.failure() == null)
            {
                appender.syncEverythingWritten();
                synchronized (parts.locks().tickLock)
                {
                    // a syncer tick (or round) this close waited for may have failed the log since the check above:
                    // a failed log is never recorded as clean, whatever the close's own fdatasync answered
                    if (lifecycle.failure() == null)
                    {
                        recordCleanShutdown(parts.segments().active());
                    }
                }
            }
        }
        catch (final IOException | RuntimeException e)
        {
            closeFailure = e;
            lifecycle.failStop("close", e);
        }
        finally
        {
            lifecycle.markClosed();
            parts.visibility().signalWaiters();
            parts.context().writer().deregister(parts.slot().get());
            closedFuture.complete(null);
        }
    }

    /**
     * After the final flush and fdatasync: persists the indexes the next open needs (rolled segments not yet
     * persisted, and the active one), fsyncs the directory, and writes the clean checkpoint last.
     */
    private void recordCleanShutdown(final Segment active) throws IOException
    {
        synchronized (parts.locks().indexLock)
        {
            for (final Segment s : parts.segments().all())
            {
                if (s != active && !s.isDeleted() && !s.indexPersisted() && s.index() != null &&
                    s.sealedPosition() >= 0 && writeIndexAtClose(s, s.sealedPosition(), s.sealedOffset(),
                    s.maxTimestamp()))
                {
                    s.indexPersisted(true);
                }
            }
            if (active != null)
            {
                writeIndexAtClose(active, appender.writePosition(), appender.nextOffset(), appender.lastTimestamp());
            }
            final Watermark end = appender.copiedEnd();
            try
            {
                parts.context().io().syncDirectory(parts.dir());
            }
            catch (final IOException e)
            {
                // it makes only the index renames durable (derived data): without it the next open may not find
                // them and scans instead; the clean shutdown itself needs nothing from the directory
                LOG.log(System.Logger.Level.WARNING, "log '" + parts.name() + "': the directory fsync at close " +
                    "failed (" + e.getMessage() + "): the next open may scan instead of reading the index files");
            }
            parts.checkpoint().write(end, CheckpointDescriptor.FLAG_CLEAN);
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
        final LogContext context = parts.context();
        try
        {
            IndexFile.write(context.io(), parts.dir(), parts.meta().logId(), s, s.index(), endPosition, endOffset,
                maxTimestamp);
            return true;
        }
        catch (final IOException e)
        {
            LOG.log(System.Logger.Level.WARNING, "log '" + parts.name() + "': the index of " + s.path().getFileName() +
                " could not be written at close (" + e.getMessage() + "): the clean shutdown is recorded without " +
                "it, and the next open scans that segment instead");
            try
            {
                IndexFile.delete(context.io(), parts.dir(), s.sequence()); // an older one must not be taken for it
            }
            catch (final IOException ignore)
            {
                // an older index does not match the checkpoint's end either: the open scans
            }
            return false;
        }
    }

    /** Closes the checkpoint, the prepared spares and every segment's files; pages discarded (pins respected). */
    private void closeFiles()
    {
        synchronized (parts.locks().tickLock)
        {
            parts.checkpoint().close();
            parts.spares().closeAll();
            for (final Segment s : parts.segments().all())
            {
                synchronized (s)
                {
                    s.closeFiles();
                }
                final CachePage resident = s.page();
                if (resident != null)
                {
                    s.page(null);
                    parts.context().cache().discard(resident);
                }
            }
        }
    }

    /**
     * @return what the store manifest records of this log, once its close recorded a clean shutdown; null before,
     * or when the close did not (the next open then recovers the log from its files), or when a segment follows a
     * hole in the offsets (issue 17): the manifest has no field for where the hole starts, and a log opened from it
     * would take the segment before the hole as ending at the next one's base, so its clean open reads the headers.
     */
    LogFacts cleanFacts()
    {
        final Watermark end = parts.checkpoint().cleanEnd();
        if (end == null || !isCloseFinished())
        {
            return null;
        }
        final LogMeta meta = parts.meta();
        final List<LogFacts.SegmentFacts> live = new ArrayList<>();
        for (final Segment s : parts.segments().all())
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
        return new LogFacts(parts.name(), meta.logId(), meta.segmentSize(), meta.created(),
            parts.checkpoint().generation(), end.sequence(), end.position(), end.offset(), end.lastRecordPosition(),
            end.lastRecordOffset(), live);
    }
}
