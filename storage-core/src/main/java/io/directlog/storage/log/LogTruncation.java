package io.directlog.storage.log;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import io.directlog.storage.LogClosedException;
import io.directlog.storage.LogFailedException;
import io.directlog.storage.MemoryBudgetExceededException;
import io.directlog.storage.OffsetOutOfRangeException;
import io.directlog.storage.StorageException;
import io.directlog.storage.cache.CachePage;
import io.directlog.storage.format.CheckpointDescriptor;
import io.directlog.storage.format.RecordDescriptor;
import io.directlog.storage.format.SegmentHeaderDescriptor;
import io.directlog.storage.page.PageMemory;
import org.agrona.concurrent.AtomicBuffer;

/**
 * {@link io.directlog.storage.Log#truncateTo(long)}: the caller's side (checks, a command to the writer, the wait)
 * and the writer's side, in named steps: make everything written durable, write the intent to the checkpoint,
 * lower what readers see and drop later segments, zero the cut segment from the cut, go on writing from the cut.
 * <p>
 * Threads: {@link #truncateTo} on any thread but the writer; the rest on the writer thread, under
 * {@link LogLocks#indexLock} (so the syncer's index writes and retention never interleave with it).
 */
final class LogTruncation
{
    private final LogParts parts;
    private final LogAppender appender;
    private final LogSyncer syncer;
    private final SegmentIndexLoader indexes;

    LogTruncation(final LogParts parts, final LogAppender appender, final LogSyncer syncer, final SegmentIndexLoader indexes)
    {
        this.parts = parts;
        this.appender = appender;
        this.syncer = syncer;
        this.indexes = indexes;
    }

    /** Where a record starts, and the record before it in the same segment (-1 when unknown). */
    private record Located(int position, int previousPosition, long previousOffset)
    {
    }

    /** A record header's place in some buffer. */
    private record DirectBufferView(AtomicBuffer buffer, int at)
    {
    }

    /** The cut segment, its index in the segment array, where the cut lies, and where the segment ended. */
    private record Cut(Segment target, int index, Located at, int oldEnd)
    {
    }

    void truncateTo(final long offset)
    {
        final String name = parts.name();
        final LogLifecycle lifecycle = parts.lifecycle();
        if (lifecycle.isWriterThread())
        {
            throw new IllegalStateException("truncateTo(" + offset + ") of log '" + name + "' called on its writer " +
                "thread (inside an append callback): it waits for that thread; call it from another thread");
        }
        if (lifecycle.isClosing())
        {
            throw new LogClosedException("log '" + name + "' is closed");
        }
        final Throwable failed = lifecycle.failure();
        if (failed != null)
        {
            throw (LogFailedException)failed;
        }
        final long start = parts.segments().startOffset();
        final long end = appender.endOffset();
        if (offset < start || offset > end)
        {
            throw new OffsetOutOfRangeException(name, offset, start, end);
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
        final LogContext context = parts.context();
        if (!context.writer().offerCommand(parts.slot().get(), command, context.appendTimeout()))
        {
            parts.events().appendTimedOut();
            throw context.writer().timeoutException(context.appendTimeout(), name);
        }
        awaitTruncation(done, name);
    }

    private static void awaitTruncation(final CompletableFuture<Void> done, final String name)
    {
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
    private void onTruncate(final long requested) throws IOException
    {
        // an offset in a hole recovery left (issue 17) is no record's: cutting there would give the hole's offsets
        // to new records, so the cut goes to the hole's end (what is kept is the same: no record lies between)
        final Segment afterHole = ReadPath.afterHole(parts.segments().all(), requested);
        final long offset = afterHole != null ? afterHole.baseOffset() : requested;
        final LogLifecycle lifecycle = parts.lifecycle();
        if (lifecycle.failure() != null)
        {
            throw (LogFailedException)lifecycle.failure();
        }
        if (parts.segments().active() != null)
        {
            // appends before the truncation complete before it, as they would without a sync
            appender.flushAndAcknowledgeNow();
            if (lifecycle.failure() != null)
            {
                throw (LogFailedException)lifecycle.failure();
            }
        }
        synchronized (parts.locks().indexLock)
        {
            final long start = parts.segments().startOffset();
            final long next = appender.nextOffset();
            if (offset < start || offset > next)
            {
                throw new OffsetOutOfRangeException(parts.name(), offset, start, next);
            }
            if (offset == next)
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
                    lifecycle.failStop("truncateTo(" + offset + ")", e);
                }
                throw e;
            }
        }
    }

    private void truncateLocked(final long offset) throws IOException
    {
        final Segment[] current = parts.segments().all();
        final Cut cut = find(current, offset);
        appender.syncEverythingWritten(); // 0. everything written so far durable, so the watermark below is true
        final Watermark w = writeIntent(current, cut, offset); // 1. a crash from here on ends the log at the cut
        dropAfter(current, cut, offset); // 2. readers first see the lower end, then the bytes change
        final CachePage writeTo = zeroFromCut(cut); // 3. the cut segment holds nothing after the cut, on disk
        restartAtCut(cut, writeTo, offset, w); // 4. the writer goes on from the cut
    }

    /** Finds the segment holding {@code offset} and the record starting there. */
    private Cut find(final Segment[] current, final long offset) throws IOException
    {
        final Segment target = ReadPath.find(current, offset);
        int ti = current.length - 1;
        while (current[ti] != target)
        {
            ti--;
        }
        indexes.ensureIndex(target);
        final Located at = locate(target, offset);
        final int oldEnd = target == parts.segments().active() ? appender.writePosition() :
            target.sealedPosition() >= 0 ? target.sealedPosition() : target.endPosition();
        return new Cut(target, ti, at, oldEnd);
    }

    /**
     * The intent, durable: a new epoch, a TRUNCATING checkpoint at the cut, index files from the cut segment on
     * deleted.
     *
     * @return the watermark of the cut.
     */
    private Watermark writeIntent(final Segment[] current, final Cut cut, final long offset) throws IOException
    {
        final long epoch = appender.nextEpoch();
        syncer.epoch(epoch);
        final Located at = cut.at();
        final Watermark w = new Watermark(epoch, cut.target().sequence(), at.position(), offset,
            at.previousPosition(), at.previousOffset());
        parts.checkpoint().write(w, CheckpointDescriptor.FLAG_TRUNCATING);
        for (int k = cut.index(); k < current.length; k++)
        {
            IndexFile.delete(parts.context().io(), parts.dir(), current[k].sequence());
            current[k].indexPersisted(false);
        }
        return w;
    }

    /** Lowers the end readers see, then drops the segments after the cut one (files recycled, never reused unzeroed). */
    private void dropAfter(final Segment[] current, final Cut cut, final long offset) throws IOException
    {
        final LogContext context = parts.context();
        appender.lowerEndOffset(offset);
        parts.visibility().cutTo(offset, cut.target().sequence());
        parts.segments().keepFirst(cut.index() + 1);
        for (int k = cut.index() + 1; k < current.length; k++)
        {
            final Segment s = current[k];
            s.retire(context.cache());
            parts.spares().giveBack(s.path(), false, 0); // records above the cut: never reused unzeroed
        }
        if (cut.index() + 1 < current.length)
        {
            context.io().syncDirectory(parts.dir());
        }
    }

    /**
     * Zeroes the cut segment from the cut to where it ended, on disk (fdatasync), through a fresh write page
     * holding the cut's block (or the old write page in place when the budget has no room for a second).
     *
     * @return the page the writer goes on with.
     */
    private CachePage zeroFromCut(final Cut cut) throws IOException
    {
        final LogContext context = parts.context();
        final IoBlock block = parts.block();
        final Segment target = cut.target();
        final Segment oldActive = parts.segments().active();
        final CachePage oldPage = appender.page();
        final int position = cut.at().position();
        final int size = target.capacity();
        final int from = block.down(position);
        final int blockEnd = Math.min(size, block.up(position));
        if (target != oldActive)
        {
            reopenForWrite(target);
        }
        else
        {
            SegmentWriteFiles.open(context.io(), target); // an idle log's active segment has none open
        }
        final int zeroEnd = Math.min(size, block.up(Math.max(cut.oldEnd(), blockEnd)));
        // a growing page from the cut's block, charged for what the zeroing writes (at least a first chunk)
        final CachePage newPage = context.cache().acquireGrowing(target, size, from,
            Math.min(size - from, Math.max(WritePage.FIRST_CHUNK, zeroEnd - from)));
        final CachePage writeTo;
        if (newPage != null)
        {
            if (blockEnd > from)
            {
                target.directFile().read(newPage.memory().byteBuffer(), from, blockEnd - from, from);
            }
            newPage.validFrom(from);
            writeTo = newPage;
        }
        else if (target == oldActive && oldPage != null && from >= oldPage.memory().chargedFrom())
        {
            writeTo = oldPage; // no room for a second page: zero in place (open batches over the cut see zeros)
            if (from < oldPage.validFrom())
            {
                target.directFile().read(oldPage.memory().byteBuffer(), from, blockEnd - from, from);
                oldPage.validFrom(from);
            }
        }
        else
        {
            throw new MemoryBudgetExceededException("log '" + parts.name() + "' cannot get a write page to truncate " +
                "into " + target.path().getFileName());
        }
        // a new page is a fresh mapping, zero past the cut's block for nothing (writing zeros there would only make
        // them resident); the old page in place held records there, and after them the old last write's gap, whose
        // write mark (a recycled segment's) would name the old end to a recovery: zeroed too, to the written end
        final int zeroTo = writeTo == newPage ? blockEnd : zeroEnd;
        writeTo.buffer().setMemory(position, zeroTo - position, (byte)0);
        RecordEncoder.fillGap(writeTo.buffer(), position, blockEnd);
        target.directFile().write(writeTo.memory().byteBuffer(), from, zeroEnd - from, from);
        target.directFile().datasync();
        synchronized (target.loadLock())
        {
            if (target.index() != null)
            {
                target.index().truncateTo(position);
            }
        }
        return writeTo;
    }

    /** A rolled segment becomes writable again: write descriptors reopened, its read-only page let go. */
    private void reopenForWrite(final Segment target) throws IOException
    {
        final LogContext context = parts.context();
        synchronized (target)
        {
            SegmentWriteFiles.open(context.io(), target);
        }
        final CachePage readOnly = target.page();
        if (readOnly != null)
        {
            target.page(null);
            context.cache().discard(readOnly);
        }
    }

    /** The cut segment is the active one again, written into {@code writeTo}; a plain checkpoint at the cut. */
    private void restartAtCut(final Cut cut, final CachePage writeTo, final long offset, final Watermark w)
        throws IOException
    {
        final Segment target = cut.target();
        final CachePage previous = target.page(); // the write page, or the page an idle log let go of, or none
        if (writeTo != previous)
        {
            target.page(writeTo);
            if (previous != null)
            {
                parts.context().cache().discard(previous); // readers holding it keep it until they unpin
            }
        }
        target.seal(-1, -1);
        target.publishEnd(cut.at().position(), offset);
        appender.restartAt(target, writeTo, cut.at().position(), offset, w);
        parts.visibility().endAt(offset);
        parts.checkpoint().write(w, 0);
        parts.visibility().signalWaiters();
    }

    /** Finds the record that starts at {@code offset} in {@code segment}: from the write page, or from disk. */
    private Located locate(final Segment segment, final long offset) throws IOException
    {
        final IoBlock block = parts.block();
        final int align = block.length();
        final SegmentIndex index = segment.index();
        int position = Math.max(SegmentHeaderDescriptor.LENGTH, index == null ? -1 : index.floorPosition(offset));
        int previous = -1;
        long previousOffset = -1;
        final CachePage writePage = segment == parts.segments().active() ? appender.page() : null;
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
                    final int from = block.down(position);
                    if (from != loaded)
                    {
                        final int length = Math.min(2 * align, segment.capacity() - from);
                        segment.read(scratch.byteBuffer(), 0, length, from);
                        loaded = from;
                    }
                    header = new DirectBufferView(scratch.buffer(), position - from);
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
                    throw new StorageException("log '" + parts.name() + "': no record starts at offset " + offset +
                        " in " + segment.path().getFileName() + " (stopped at position " + position + ")");
                }
                if (first == offset)
                {
                    return new Located(position, previous, previousOffset);
                }
                if (offset < first + count)
                {
                    throw new IllegalArgumentException("log '" + parts.name() + "': offset " + offset +
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
}
