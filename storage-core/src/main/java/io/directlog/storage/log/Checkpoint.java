package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Path;

import io.directlog.storage.buffer.Buffers;
import io.directlog.storage.format.CheckpointDescriptor;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;
import io.directlog.storage.page.PageMemory;
import org.agrona.concurrent.AtomicBuffer;

/**
 * A log's {@code checkpoint} file: the durable watermark and the clean-shutdown flag, in two alternating slots
 * written with O_DIRECT|O_DSYNC into a file whose blocks were written (zeros) and synced when it was created, so
 * a slot write changes no metadata. See {@link CheckpointDescriptor} for the layout.
 * <p>
 * Written by the syncer (after each successful background fdatasync), by the writer (truncation) and by close;
 * {@link #write} is synchronized and never moves the watermark back within an epoch, never writes an older
 * epoch's watermark, and writes nothing after a clean close sealed the file.
 * <p>
 * The file is opened for each slot write and closed after it (issue 18: a store of 10,000 logs would hold a
 * descriptor per log for a write a second at most); closing a descriptor whose writes were all O_DSYNC changes
 * nothing. An open that fails wrote nothing: {@link Unopened} says so, and the syncer tries again at its next tick
 * rather than fail the log.
 */
final class Checkpoint implements AutoCloseable
{
    /** The checkpoint file could not be opened for a slot write (out of descriptors, say): nothing was written. */
    static final class Unopened extends IOException
    {
        private static final long serialVersionUID = 1L;

        Unopened(final IOException cause)
        {
            super(cause.getMessage(), cause);
        }
    }

    /**
     * What a slot held.
     *
     * @param generation         its generation.
     * @param sequence           the watermark's segment.
     * @param position           the watermark's position in it.
     * @param offset             the offset there.
     * @param lastRecordPosition the last record below it in that segment, or -1.
     * @param lastRecordOffset   that record's offset, or -1.
     * @param clean              written by a clean close.
     * @param truncating         written by truncateTo before it zeroes: the watermark is the log's end.
     * @param startOffset        the log's start offset then, or -1 (a version 1 slot).
     * @param firstSequence      the first segment's sequence then, or -1 (none, or a version 1 slot).
     * @param segmentCount       segments from the first through the watermark's, or -1 (a version 1 slot).
     * @param newestSequence     the newest segment's sequence then, or -1 (none, or a slot before version 3).
     * @param newestBase         its base offset, or -1.
     * @param takenAfterCount    segments after the watermark's then, or -1 (a slot before version 3).
     */
    record State(long generation, long sequence, long position, long offset, long lastRecordPosition,
        long lastRecordOffset, boolean clean, boolean truncating, long startOffset, long firstSequence,
        int segmentCount, long newestSequence, long newestBase, int takenAfterCount)
    {
        /** @return true when the slot names the segment list (version 2). */
        boolean knowsSegments()
        {
            return segmentCount >= 0;
        }
    }

    /** The log's segments as a checkpoint slot records them (set by the log once it exists). */
    interface SegmentList
    {
        /** @return the segments, oldest first (an array the log publishes; never changed in place). */
        Segment[] segments();
    }

    private SegmentList segmentList;
    private Watermark lastWritten;

    private final BlockIo io;
    private final Path path;
    private final long logId;
    private final int block;
    private final PageMemory slot;
    private final boolean existed;
    private final State state;
    private final int validSlots;
    private long generation;
    private long epoch = Long.MIN_VALUE;
    private long sequence = -1;
    private long offset = -1;
    private boolean sealed;
    private boolean lastFlagged;
    /**
     * The last slot was written without O_DSYNC ({@link #writeForSharedSync}) and no fdatasync is known to have
     * covered it yet: the next slot write syncs first, so that the slot it does not overwrite is durable while it
     * writes (a write torn by a power loss must leave the previous slot to read, as with O_DSYNC slots).
     */
    private boolean slotToSync;
    private long writes;

    private Checkpoint(final BlockIo io, final Path path, final long logId, final int block, final PageMemory slot,
        final boolean existed, final State state, final int validSlots)
    {
        this.io = io;
        this.path = path;
        this.logId = logId;
        this.block = block;
        this.slot = slot;
        this.existed = existed;
        this.state = state;
        this.validSlots = validSlots;
        this.generation = state == null ? 0 : state.generation();
    }

    /**
     * Opens the log's checkpoint, creating it (zero-filled, synced, renamed into place, directory fsync'ed) if
     * missing, and reads the newest valid slot.
     *
     * @param io    the I/O layer.
     * @param dir   the log's directory.
     * @param logId the log's id.
     * @return the checkpoint.
     * @throws IOException when it cannot be read or created.
     */
    static Checkpoint open(final BlockIo io, final Path dir, final long logId) throws IOException
    {
        final Path path = dir.resolve(SegmentFiles.CHECKPOINT_FILE);
        final int block = IoBlock.of(io).length();
        final PageMemory memory = PageMemory.allocate(2 * block, block);
        try
        {
            final boolean existed = io.exists(path);
            if (!existed)
            {
                createFile(io, dir, memory, block);
                io.syncDirectory(dir);
            }
            State best = null;
            int valid = 0;
            final BlockFile file = io.open(path, FileMode.DIRECT_DSYNC, false);
            try
            {
                final int n = file.read(memory.byteBuffer(), 0, 2 * block, 0);
                for (int s = 0; s < 2; s++)
                {
                    if (n < (s + 1) * block)
                    {
                        continue;
                    }
                    final AtomicBuffer b = Buffers.wrap(memory.buffer(), s * block, block);
                    if (!CheckpointDescriptor.isValid(b, logId))
                    {
                        continue;
                    }
                    valid++;
                    final int version = b.getInt(CheckpointDescriptor.VERSION_OFFSET);
                    final boolean v2 = version >= CheckpointDescriptor.VERSION_2;
                    final boolean v3 = version >= CheckpointDescriptor.VERSION;
                    final State st = new State(b.getLong(CheckpointDescriptor.GENERATION_OFFSET),
                        b.getLong(CheckpointDescriptor.SEQUENCE_OFFSET), b.getLong(CheckpointDescriptor.POSITION_OFFSET),
                        b.getLong(CheckpointDescriptor.OFFSET_OFFSET),
                        b.getLong(CheckpointDescriptor.LAST_RECORD_POSITION_OFFSET),
                        b.getLong(CheckpointDescriptor.LAST_RECORD_OFFSET_OFFSET),
                        (b.getInt(CheckpointDescriptor.FLAGS_OFFSET) & CheckpointDescriptor.FLAG_CLEAN) != 0,
                        (b.getInt(CheckpointDescriptor.FLAGS_OFFSET) & CheckpointDescriptor.FLAG_TRUNCATING) != 0,
                        v2 ? b.getLong(CheckpointDescriptor.START_OFFSET_OFFSET) : -1,
                        v2 ? b.getLong(CheckpointDescriptor.FIRST_SEQUENCE_OFFSET) : -1,
                        v2 ? b.getInt(CheckpointDescriptor.SEGMENT_COUNT_OFFSET) : -1,
                        v3 ? b.getLong(CheckpointDescriptor.NEWEST_SEQUENCE_OFFSET) : -1,
                        v3 ? b.getLong(CheckpointDescriptor.NEWEST_BASE_OFFSET_OFFSET) : -1,
                        v3 ? b.getInt(CheckpointDescriptor.TAKEN_AFTER_COUNT_OFFSET) : -1);
                    if (best == null || st.generation() > best.generation())
                    {
                        best = st;
                    }
                }
            }
            finally
            {
                RecoveryScope.closeQuietly(file); // read only: the next slot write opens it again
            }
            final PageMemory slot = PageMemory.allocate(block, block);
            return new Checkpoint(io, path, logId, block, slot, existed, best, valid);
        }
        finally
        {
            memory.free();
        }
    }

    /**
     * Creates a new log's checkpoint file, both slots zero (no valid slot: the log's first open finds no state):
     * written and fdatasync'ed as a temp file, renamed into place. The rename is durable once the caller fsyncs
     * the directory.
     *
     * @param io  the I/O layer.
     * @param dir the log's directory.
     * @throws IOException when it cannot be written.
     */
    static void createFile(final BlockIo io, final Path dir) throws IOException
    {
        final int block = IoBlock.of(io).length();
        final PageMemory memory = PageMemory.allocate(2 * block, block);
        try
        {
            createFile(io, dir, memory, block);
        }
        finally
        {
            memory.free();
        }
    }

    /**
     * Writes the checkpoint file anew with one valid slot, {@code state} at its generation's slot, the other zero
     * (temp file, fdatasync, rename, directory fsync): a lost checkpoint restored from the store manifest's record
     * of the clean close that wrote that slot ({@link ManifestCheckpoint}).
     *
     * @throws IOException when it cannot be written.
     */
    static void restore(final BlockIo io, final Path dir, final long logId, final State state) throws IOException
    {
        final int block = IoBlock.of(io).length();
        final PageMemory memory = PageMemory.allocate(2 * block, block);
        try
        {
            memory.zero();
            final int flags = (state.clean() ? CheckpointDescriptor.FLAG_CLEAN : 0) |
                (state.truncating() ? CheckpointDescriptor.FLAG_TRUNCATING : 0);
            CheckpointDescriptor.write(Buffers.wrap(memory.buffer(), (int)(state.generation() & 1) * block, block),
                state.generation(), logId, state.sequence(), state.position(), state.offset(),
                state.lastRecordPosition(), state.lastRecordOffset(), flags, state.startOffset(),
                state.firstSequence(), state.segmentCount(), state.newestSequence(), state.newestBase(),
                state.takenAfterCount());
            createFile(io, dir, memory, block);
            io.syncDirectory(dir);
        }
        finally
        {
            memory.free();
        }
    }

    /** @param zeros 2 blocks: zeros, or a restored slot ({@link #restore}). */
    private static void createFile(final BlockIo io, final Path dir, final PageMemory zeros, final int block)
        throws IOException
    {
        final Path tmp = dir.resolve(SegmentFiles.CHECKPOINT_FILE + ".tmp");
        try (BlockFile f = io.open(tmp, FileMode.DIRECT, true))
        {
            f.allocate(2L * block);
            f.write(zeros.byteBuffer(), 0, 2 * block, 0);
            f.datasync();
        }
        io.rename(tmp, dir.resolve(SegmentFiles.CHECKPOINT_FILE));
    }

    /**
     * Opens the checkpoint of a log whose state is known (the store manifest recorded its clean close), without
     * reading it: the next slot write goes to the slot after {@code state}'s generation, as after {@link #open}.
     *
     * @param state the newest slot, as its clean close wrote it.
     * @return the checkpoint, or null when the file is shorter than its two slots (the open from files judges it).
     * @throws IOException when the file cannot be opened.
     */
    static Checkpoint known(final BlockIo io, final Path dir, final long logId, final State state) throws IOException
    {
        final Path path = dir.resolve(SegmentFiles.CHECKPOINT_FILE);
        final int block = IoBlock.of(io).length();
        try (BlockFile file = io.open(path, FileMode.DIRECT, false)) // its length only: slot writes open their own
        {
            if (file.size() < 2L * block)
            {
                return null;
            }
        }
        return new Checkpoint(io, path, logId, block, PageMemory.allocate(block, block), true, state, 2);
    }

    /**
     * Sets where slot writes take the segment list from (the log's published segment array).
     *
     * @param list the source.
     */
    synchronized void segmentList(final SegmentList list)
    {
        this.segmentList = list;
    }

    /**
     * Writes the last watermark again with the segment list as it is now: retention calls this after it took
     * segments out of the list and before it removes their files, so that a file missing at open is never one
     * retention removed (issue 17); the writer calls it when it took a segment (the roll), before any record in it
     * is acknowledged, so that a segment file lost after the watermark is found at open.
     *
     * @throws IOException when the write fails.
     */
    synchronized void rewriteSegmentList() throws IOException
    {
        if (sealed || lastWritten == null)
        {
            return;
        }
        writeSlot(lastWritten, 0);
    }

    /** @return the newest valid slot when opened, or null (new log, or both slots damaged). */
    State state()
    {
        return state;
    }

    /** @return true when the file existed before this open. */
    boolean existed()
    {
        return existed;
    }

    /** @return how many of the two slots were valid when opened. */
    int validSlots()
    {
        return validSlots;
    }

    /** @return the file. */
    Path path()
    {
        return path;
    }

    /** @return slot writes since open. */
    synchronized long writes()
    {
        return writes;
    }

    /**
     * Writes a watermark to the next slot with O_DSYNC, unless it is older than the last one written.
     *
     * @param w     the watermark (durable by now: the caller synced or wrote it with O_DSYNC).
     * @param flags {@link CheckpointDescriptor#FLAG_CLEAN} for a clean close (the file is then sealed),
     *              {@link CheckpointDescriptor#FLAG_TRUNCATING} before a truncation zeroes, or 0.
     * @return true when written.
     * @throws IOException when the write fails (the caller fail-stops).
     */
    synchronized boolean write(final Watermark w, final int flags) throws IOException
    {
        if (!isNew(w, flags))
        {
            return false;
        }
        writeSlot(w, flags);
        return true;
    }

    /**
     * Writes the syncer's watermark to the next slot like {@link #write} with no flag, but without O_DSYNC, and
     * hands back the still open descriptor: the syncer's round ({@link SyncerRound}) writes the slots of every log
     * it synced this way and then makes them all durable with one fdatasync through the last of these descriptors,
     * closing the others at once. Only for a file in a flush domain ({@code BlockIo.flushDomain}): the slot is an
     * overwrite of written space inside the file's size, which any fdatasync in the domain makes durable.
     *
     * @param w the watermark (made durable by the round's first fdatasync, which began after it was taken).
     * @return the open descriptor (the caller syncs or closes it), or null when nothing new was written.
     * @throws IOException when the write fails ({@link Unopened}: nothing was written).
     */
    synchronized BlockFile writeForSharedSync(final Watermark w) throws IOException
    {
        if (!isNew(w, 0))
        {
            return null;
        }
        return writeSlot(w, 0, FileMode.DIRECT, true);
    }

    /** The syncer's round made the slot {@link #writeForSharedSync} wrote durable (its fdatasync returned). */
    synchronized void sharedSyncDone()
    {
        slotToSync = false;
    }

    /**
     * fdatasync through a descriptor of this file opened for it: the syncer's round, when no log of the round has
     * a segment descriptor open, makes the writes of its flush domain durable this way (any fdatasync in the
     * domain flushes the device's cache).
     *
     * @throws IOException when the open or the fdatasync fails.
     */
    void syncFile() throws IOException
    {
        try (BlockFile file = io.open(path, FileMode.DIRECT, false))
        {
            file.datasync();
        }
    }

    /** @return true when {@code w} with {@code flags} is to be written: not older, not sealed, something new. */
    private boolean isNew(final Watermark w, final int flags)
    {
        if (sealed || w.epoch() < epoch ||
            (w.epoch() == epoch && (w.sequence() < sequence || (w.sequence() == sequence && w.offset() < offset))))
        {
            return false;
        }
        // flags == 0 with nothing new since an unflagged slot: nothing to write
        return flags != 0 || lastFlagged || w.epoch() != epoch || w.sequence() != sequence || w.offset() != offset;
    }

    private void writeSlot(final Watermark w, final int flags) throws IOException
    {
        writeSlot(w, flags, FileMode.DIRECT_DSYNC, false);
    }

    /** @return the descriptor when {@code keepOpen} (the caller closes it), else null (closed here). */
    private BlockFile writeSlot(final Watermark w, final int flags, final FileMode mode, final boolean keepOpen)
        throws IOException
    {
        final long g = generation + 1;
        final Segment[] segments = segmentList == null ? new Segment[0] : segmentList.segments();
        int count = 0;
        for (final Segment s : segments)
        {
            count += s.sequence() <= w.sequence() ? 1 : 0;
        }
        final Segment newest = segments.length > 0 ? segments[segments.length - 1] : null;
        // the start a log with no segment (all dropped, or none yet) keeps is its end: offsets are never reused
        final long start = segments.length > 0 && count > 0 ? segments[0].baseOffset() : w.offset();
        final long first = segments.length > 0 && count > 0 ? segments[0].sequence() : -1;
        slot.zero();
        CheckpointDescriptor.write(slot.buffer(), g, logId, w.sequence(), w.position(), w.offset(),
            w.lastRecordPosition(), w.lastRecordOffset(), flags, start, first, count,
            newest == null ? -1 : newest.sequence(), newest == null ? -1 : newest.baseOffset(), segments.length - count);
        final BlockFile file;
        try
        {
            file = io.open(path, mode, false);
        }
        catch (final IOException e)
        {
            throw new Unopened(e);
        }
        boolean written = false;
        try
        {
            if (slotToSync)
            {
                // the round that wrote the other slot has not synced it yet (a writer's roll or truncation came in
                // between): durable first, or a write torn here could leave only an older slot, or none, to read
                file.datasync();
                slotToSync = false;
            }
            file.write(slot.byteBuffer(), 0, block, (g & 1) * block);
            written = true;
        }
        finally
        {
            if (!keepOpen || !written)
            {
                RecoveryScope.closeQuietly(file); // O_DSYNC: nothing is pending on the descriptor
            }
        }
        lastWritten = w;
        generation = g;
        epoch = w.epoch();
        sequence = w.sequence();
        offset = w.offset();
        sealed = (flags & CheckpointDescriptor.FLAG_CLEAN) != 0;
        lastFlagged = flags != 0;
        slotToSync = mode != FileMode.DIRECT_DSYNC;
        writes++;
        return keepOpen ? file : null;
    }

    /** @return the generation of the last slot written (or read at open). */
    synchronized long generation()
    {
        return generation;
    }

    /** @return the end a clean close sealed this file with, or null before (or without) one. */
    synchronized Watermark cleanEnd()
    {
        return sealed ? lastWritten : null;
    }

    @Override
    public synchronized void close()
    {
        if (!slot.isFreed())
        {
            slot.free();
        }
    }
}
