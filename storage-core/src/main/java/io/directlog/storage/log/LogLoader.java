package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;

import io.directlog.storage.CorruptLogException;
import io.directlog.storage.LogConfig;
import io.directlog.storage.MemoryBudgetExceededException;
import io.directlog.storage.RecoveryMode;
import io.directlog.storage.RecoveryReport;
import io.directlog.storage.StorageException;
import io.directlog.storage.cache.CachePage;
import io.directlog.storage.format.RecordDescriptor;
import io.directlog.storage.format.SegmentHeaderDescriptor;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;
import io.directlog.storage.page.PageMemory;
import org.agrona.concurrent.AtomicBuffer;

/**
 * Opens a log directory: creates it, or reads its segment headers, its checkpoint, and recovers its scope.tail.
 * <p>
 * After a clean close (the checkpoint's clean flag, written last by close) it reads no segment data beyond
 * headers and the active segment's persisted index ({@code <seq>.idx}), and takes no write page: the first
 * append takes one from the block after the end.
 * <p>
 * After a crash it fdatasyncs each segment it will trust before reading it (the device cache can hold data that
 * reads back but is not durable), then scans only from the durable watermark: it verifies the records from the
 * persisted index's end (or the segment start) up to the watermark, which must be a record boundary with the
 * checkpointed offset (damage there is below the watermark: corruption), then scans on and cuts at the first
 * end or invalid record. What is done with damage depends on the {@link RecoveryMode}. Everything after the cut
 * is re-zeroed and fdatasync'ed before anything new is acknowledged.
 * <p>
 * Not thread-safe; used once, on the opening thread.
 */
final class LogLoader
{
    private static final System.Logger LOG = System.getLogger(LogLoader.class.getName());
    private static final boolean TRACE = Boolean.getBoolean("directlog.recovery.trace");

    private final String name;
    private final Path dir;
    private final LogContext context;
    private final LogConfig config;
    private final BlockIo io;
    private final RecoveryMode mode;
    private final RecoveryRules rules;
    private final int align;
    private final RecoveryScope scope;
    private final SegmentListCheck listCheck;
    private final CrashRecovery crash;
    private final OffsetHole hole;
    /** What the store manifest recorded of the log's last clean close, or null (see {@link ManifestCheckpoint}). */
    private final LogFacts known;

    LogLoader(final String name, final Path dir, final LogContext context, final LogConfig config)
    {
        this(name, dir, context, config, null);
    }

    /**
     * @param known what the store manifest records of the log, current since its clean close (a load from the
     *              manifest that fell back to the files), or null: it stands in for a lost checkpoint.
     */
    LogLoader(final String name, final Path dir, final LogContext context, final LogConfig config,
        final LogFacts known)
    {
        this.known = known;
        this.name = name;
        this.dir = dir;
        this.context = context;
        this.config = config;
        this.io = context.io();
        this.mode = context.recoveryMode();
        this.rules = new RecoveryRules(mode);
        this.align = IoBlock.of(io).length();
        this.scope = new RecoveryScope(name, dir, context);
        this.listCheck = new SegmentListCheck(scope);
        this.crash = new CrashRecovery(scope);
        this.hole = new OffsetHole(scope);
    }

    /** Where the records end when no segment is left (the log restarts at or above it), or -1. */
    private long emptyRecordsEnd = -1;

    /**
     * Opens the log directory and recovers what is in it.
     *
     * @return what was found, for the log to be built from.
     * @throws IOException when its files cannot be read or written.
     * @throws CorruptLogException when the recovery mode refuses what was found (nothing on disk changed then).
     */
    RecoveredLog load() throws IOException
    {
        final long started = System.nanoTime();
        io.createDirectories(dir);
        final LogMeta meta = readOrCreateMeta();
        final LogConfig effective = effectiveConfig(config, meta);
        final TreeMap<Long, Path> files = listSegmentFiles(io, dir);
        final LogSegmentHost host = new LogSegmentHost(context, new SegmentSet(new Segment[0]));
        final Headers headers = readHeaders(files, meta, host);
        final Checkpoint checkpoint = openCheckpoint(meta, headers.used);
        scope.phase("checkpoint");
        final Checkpoint.State state = checkpoint.state();
        scope.cleanCheckpoint = state != null && state.clean();
        final boolean holeDropped;
        try
        {
            holeDropped = checkSegments(headers, files, state, meta);
        }
        catch (final IOException | RuntimeException e)
        {
            checkpoint.close();
            throw e;
        }
        scope.phase("headers");
        final List<Segment> used = headers.used;
        boolean clean = state != null && state.clean() && headers.badNewest < 0 && !holeDropped;
        if (headers.badNewest >= 0)
        {
            final Path bad = files.get(headers.badNewest);
            listCheck.checkBadNewest(bad, headers.badNewest, headers.badReason, state, used,
                scope.alignUp((int)Math.max(align, Math.min(meta.segmentSize(), fileSize(bad)))), meta);
        }
        long nextSequence = files.isEmpty() ? 0 : files.lastKey() + 1;
        try
        {
            clean = recoverTail(used, state, meta, clean);
            final long recoveredEnd = scope.tail.active() == null && emptyRecordsEnd >= 0 ? emptyRecordsEnd :
                scope.tail.endOffset();
            final long continueAt = hole.holeAfterTail(state, meta.segmentSize());
            if (continueAt >= 0)
            {
                hole.open(used, continueAt, nextSequence++, effective.initialSegmentSize(), host, meta.logId());
            }
            final List<PreparedSegment> spares = sortBlankFiles(headers, files, clean, SegmentLadder.of(effective));
            scope.phase("spares");
            final long millis = (System.nanoTime() - started) / 1_000_000;
            if (TRACE)
            {
                System.err.println("RECOVERY-TRACE log '" + name + "' " + scope.phases() + "total=" + millis + "ms");
            }
            final long start = used.isEmpty() ? scope.tail.endOffset() : used.get(0).baseOffset();
            return new RecoveredLog(meta, effective, host, checkpoint, List.copyOf(used), start, scope.tail, nextSequence,
                spares, List.copyOf(scope.recycle), List.copyOf(scope.delete),
                report(state, clean, millis, recoveredEnd, scope.tail.endOffset()));
        }
        catch (final IOException | RuntimeException e)
        {
            release(used, checkpoint);
            throw e;
        }
    }

    /** Opens the checkpoint; one lost (missing, or no valid slot) is restored from the store manifest's facts. */
    private Checkpoint openCheckpoint(final LogMeta meta, final List<Segment> used) throws IOException
    {
        final Checkpoint checkpoint = Checkpoint.open(io, dir, meta.logId());
        if (checkpoint.state() != null || known == null)
        {
            return checkpoint;
        }
        try
        {
            return new ManifestCheckpoint(scope).restore(checkpoint, known, meta, used);
        }
        catch (final IOException | RuntimeException e)
        {
            checkpoint.close();
            throw e;
        }
    }

    /** Reads {@code log.meta}, or takes the identity from the segment headers, or creates a new log's. */
    private LogMeta readOrCreateMeta() throws IOException
    {
        final LogMeta meta;
        if (io.exists(dir.resolve(SegmentFiles.META_FILE)))
        {
            meta = LogMeta.read(io, dir, name);
        }
        else
        {
            final LogMeta found = identityFromFiles();
            meta = found != null ? found : new LogMeta(ThreadLocalRandom.current().nextLong() | 1,
                config.segmentSize(), System.currentTimeMillis());
            meta.write(io, dir);
        }
        if (meta.segmentSize() % align != 0)
        {
            throw new StorageException("log '" + name + "': segment size " + meta.segmentSize() +
                " is not a multiple of the direct-I/O alignment " + align);
        }
        return meta;
    }

    /** @return {@code config} at the log's own segment size, its first rung at most that. */
    static LogConfig effectiveConfig(final LogConfig config, final LogMeta meta)
    {
        return config.toBuilder().segmentSize(meta.segmentSize())
            .initialSegmentSize(Integer.highestOneBit(Math.min(config.initialSegmentSize(), meta.segmentSize()))).build();
    }

    /** @return the segment files by sequence; unfinished {@code .tmp} files are deleted on the way. */
    static TreeMap<Long, Path> listSegmentFiles(final BlockIo io, final Path dir) throws IOException
    {
        final TreeMap<Long, Path> files = new TreeMap<>();
        for (final Path file : io.list(dir))
        {
            final String fileName = file.getFileName().toString();
            if (fileName.endsWith(".tmp"))
            {
                io.delete(file); // an unfinished preparation, recycle, index or meta write: never relied on
                continue;
            }
            final long sequence = SegmentFiles.sequenceOf(fileName);
            if (sequence >= 0)
            {
                files.put(sequence, file);
            }
        }
        return files;
    }

    /** What the segment headers say: segments with a valid header, blank files, and bad headers. */
    private static final class Headers
    {
        final List<Segment> used = new ArrayList<>();
        final List<Long> blank = new ArrayList<>();
        long badNewest = -1;
        String badReason;
        final List<Long> badLater = new ArrayList<>();
    }

    /** Reads every segment file's header: a segment for each valid one, the rest sorted as blank or bad. */
    private Headers readHeaders(final TreeMap<Long, Path> files, final LogMeta meta, final SegmentHost host)
        throws IOException
    {
        // a segment's size is its own (header): any rung of the log's ladder, the log's segment size at most
        final SegmentLadder ladder = new SegmentLadder(LogConfig.INITIAL_SEGMENT_SIZE_MIN, meta.segmentSize());
        final Headers headers = new Headers();
        final PageMemory header = PageMemory.allocate(SegmentHeaderDescriptor.LENGTH, align);
        try
        {
            for (final var e : files.entrySet())
            {
                header.zero();
                try (BlockFile f = io.open(e.getValue(), FileMode.READ, false))
                {
                    f.read(header.byteBuffer(), 0, SegmentHeaderDescriptor.LENGTH, 0);
                }
                final AtomicBuffer h = header.buffer();
                if (SegmentHeaderDescriptor.isBlank(h))
                {
                    headers.blank.add(e.getKey());
                    continue;
                }
                String invalid = SegmentHeaderDescriptor.validate(h);
                if (invalid == null && h.getLong(SegmentHeaderDescriptor.LOG_ID_OFFSET) != meta.logId())
                {
                    invalid = "belongs to another log";
                }
                final int headerSize = h.getInt(SegmentHeaderDescriptor.SEGMENT_SIZE_OFFSET);
                if (invalid == null && !ladder.accepts(headerSize, align))
                {
                    invalid = "segment size " + headerSize + " where the log's is " + meta.segmentSize() + " at most";
                }
                if (invalid != null)
                {
                    if (headers.badNewest >= 0)
                    {
                        headers.badLater.add(e.getKey()); // a second one: only TRUNCATE_AT_CORRUPTION opens (below)
                        continue;
                    }
                    headers.badNewest = e.getKey(); // decided below, once the checkpoint is known
                    headers.badReason = invalid;
                    continue;
                }
                headers.used.add(new Segment(host, e.getKey(), h.getLong(SegmentHeaderDescriptor.BASE_OFFSET_OFFSET),
                    e.getValue(), headerSize, h.getInt(SegmentHeaderDescriptor.BLOCK_SIZE_OFFSET),
                    (SegmentHeaderDescriptor.flags(h) & SegmentHeaderDescriptor.FLAG_RECYCLED) != 0,
                    (SegmentHeaderDescriptor.flags(h) & SegmentHeaderDescriptor.FLAG_ZERO_AHEAD) != 0,
                    SegmentHeaderDescriptor.holeFrom(h)));
            }
        }
        finally
        {
            header.free();
        }
        return headers;
    }

    /**
     * Checks the segment list against the checkpoint and the headers against each other, drops what the mode
     * gives up, and seals every segment but the last at the next one's base offset.
     *
     * @return true when segments were dropped (the open is then not clean).
     */
    private boolean checkSegments(final Headers headers, final TreeMap<Long, Path> files,
        final Checkpoint.State state, final LogMeta meta) throws IOException
    {
        final List<Segment> used = headers.used;
        final boolean listChanged = listCheck.checkSegmentList(used, headers.blank, files, headers.badNewest, headers.badLater,
            state, meta);
        if (headers.badNewest >= 0)
        {
            listCheck.dropAfterBadHeader(used, files, headers.badNewest, headers.badReason, headers.badLater, meta);
        }
        final boolean givenUp = listCheck.dropGivenUpBeforeHole(used, meta);
        final boolean holeDropped = listCheck.dropAfterBlank(used, headers.blank, meta) || listChanged || givenUp;
        for (int i = 0; i + 1 < used.size(); i++)
        {
            final Segment s = used.get(i);
            // where the next segment says this one's records end: its base, or where the hole before it starts
            final long nextBase = used.get(i + 1).precedingEnd();
            if (nextBase < s.baseOffset())
            {
                throw new CorruptLogException("log '" + name + "': segment " + used.get(i + 1).path() +
                    " starts at offset " + nextBase + ", before its predecessor's " + s.baseOffset());
            }
            s.publishEnd(s.capacity(), nextBase);
            s.seal(s.capacity(), nextBase);
        }
        return holeDropped;
    }

    /**
     * Finds where the log ends: the fast path after a clean close, crash recovery otherwise, or the end of a log
     * with no segment left. Sets {@link #scope.tail}.
     *
     * @return whether the open was clean.
     */
    private boolean recoverTail(final List<Segment> used, final Checkpoint.State state, final LogMeta meta,
        final boolean maybeClean) throws IOException
    {
        boolean clean = maybeClean;
        if (!used.isEmpty())
        {
            final Segment last = used.get(used.size() - 1);
            clean = clean && state.sequence() == last.sequence() && openClean(meta, last, state);
            if (!clean)
            {
                crash.recoverCrash(used, state, meta);
            }
            return clean;
        }
        if (state != null && state.sequence() >= 0 && state.offset() > 0 && !rules.givesUpLostSegments())
        {
            throw new CorruptLogException("log '" + name + "': the checkpoint's watermark (segment " +
                state.sequence() + " position " + state.position() + " offset " + state.offset() +
                ") names no segment file: acknowledged records are missing");
        }
        clean = clean && state.sequence() < 0;
        // offsets are never given to a second record: a log whose every segment is gone (or was dropped)
        // goes on at the highest offset a dropped record may have held (RecoveryRules.continueAt)
        final long end = Math.max(Math.max(0, state == null ? 0 : state.offset()), scope.startLostTo);
        emptyRecordsEnd = end; // the report's cut: a restart above it is a hole, its range reported
        scope.tail = RecoveredLog.Tail.empty(hole.continueAt(state, end, meta.segmentSize()));
        return clean;
    }

    /**
     * Blank files (no header): spares after a clean close, deleted behind the head, re-zeroed otherwise; a bad
     * newest header's file is re-zeroed too.
     *
     * @return the spares found ready.
     */
    private List<PreparedSegment> sortBlankFiles(final Headers headers, final TreeMap<Long, Path> files,
        final boolean clean, final SegmentLadder ladder) throws IOException
    {
        final List<Segment> used = headers.used;
        final Segment active = scope.tail.active();
        final long headSequence = active != null ? active.sequence() :
            used.isEmpty() ? -1 : used.get(used.size() - 1).sequence();
        final List<PreparedSegment> spares = new ArrayList<>();
        for (final long sequence : headers.blank)
        {
            final Path path = files.get(sequence);
            if (sequence < headSequence)
            {
                scope.deleteLater(path); // a blank file behind the head cannot be used in order
            }
            else if (clean && ladder.accepts(fileSize(path), align) && reuseSparesAsIs())
            {
                // a clean close: prepared files were never written, though one made from a file retention gave
                // back holds old records after its first block, and nothing here says which: take each as such;
                // its length is its rung (a prepared file is made whole before it gets its name)
                spares.add(open(sequence, path));
            }
            else
            {
                scope.recycle(path); // after a crash a taken-but-headerless file may hold bytes: re-zero first
            }
        }
        if (headers.badNewest >= 0)
        {
            scope.recycle(files.get(headers.badNewest));
        }
        return spares;
    }

    /**
     * @return the report of what this open did; {@code end} is where the records end, {@code goesOnAt} where
     *     appends go on (above {@code end} after a hole: the dropped range reaches it).
     */
    private RecoveryReport report(final Checkpoint.State state, final boolean clean, final long millis,
        final long end, final long goesOnAt)
    {
        if (state != null && rules.countsDroppedUpToWatermark(clean))
        {
            // the checkpoint's watermark was durable: records up to it existed, whatever was found of them
            scope.droppedEnd = Math.max(scope.droppedEnd, state.offset());
        }
        final long tailFrom = scope.droppedFrom >= 0 ? Math.min(scope.droppedFrom, end) : end;
        final long tailDropped = scope.droppedEnd > tailFrom ? scope.droppedEnd - tailFrom : 0;
        final long startDropped = scope.startLostTo > scope.startLostFrom ? scope.startLostTo - scope.startLostFrom : 0;
        final long rangeFrom = startDropped > 0 ? scope.startLostFrom : tailDropped > 0 || scope.droppedUnbounded ? tailFrom : -1;
        final long holeEnd = goesOnAt > end ? goesOnAt : -1;
        // open-ended: the bound RecoveryRules.continueAt put on what the lost bytes held (the log goes on there)
        final long rangeTo = scope.droppedUnbounded ? (goesOnAt > tailFrom ? goesOnAt : Long.MAX_VALUE) :
            tailDropped > 0 ? Math.max(scope.droppedEnd, holeEnd) : startDropped > 0 ? scope.startLostTo : -1;
        return new RecoveryReport(mode, clean, scope.scannedBytes, scope.cutPosition, end, tailDropped + startDropped, scope.tornTail,
            scope.zeroedBytes, scope.extendedBytes, scope.unreadableBlocks.size(), millis, rangeFrom, rangeTo);
    }

    /** A refused or failed open: closes what recovery opened (nothing is written). */
    private void release(final List<Segment> used, final Checkpoint checkpoint)
    {
        for (final Segment s : used)
        {
            synchronized (s)
            {
                s.closeFiles();
            }
            final CachePage page = s.page();
            if (page != null)
            {
                s.page(null);
                context.cache().discard(page);
            }
        }
        checkpoint.close();
    }

    /**
     * A log directory without {@code log.meta} whose files say a log lived there (issue 17): its identity is taken
     * from its segment headers (each carries the log id, and its own size: the log's segment size is taken as the
     * largest of these and the config's, which came from {@code log.config} when there is one) and
     * {@code log.meta} is written again, with a WARNING. Headers that disagree, or files with no header to take it from, refuse the open before
     * anything is written: writing a new identity would make every later open reject the old segments.
     *
     * @return the identity found, or null for a directory with no segment or checkpoint file (a new log).
     */
    private LogMeta identityFromFiles() throws IOException
    {
        LogMeta found = null;
        boolean files = false;
        final PageMemory header = PageMemory.allocate(SegmentHeaderDescriptor.LENGTH, align);
        try
        {
            for (final Path file : io.list(dir))
            {
                final String fileName = file.getFileName().toString();
                if (fileName.equals(SegmentFiles.CHECKPOINT_FILE) || fileName.endsWith(SegmentFiles.INDEX_SUFFIX))
                {
                    files = true;
                }
                if (SegmentFiles.sequenceOf(fileName) < 0)
                {
                    continue;
                }
                files = true;
                header.zero();
                try (BlockFile f = io.open(file, FileMode.READ, false))
                {
                    f.read(header.byteBuffer(), 0, SegmentHeaderDescriptor.LENGTH, 0);
                }
                final AtomicBuffer h = header.buffer();
                if (SegmentHeaderDescriptor.isBlank(h) || SegmentHeaderDescriptor.validate(h) != null)
                {
                    continue;
                }
                final LogMeta m = new LogMeta(h.getLong(SegmentHeaderDescriptor.LOG_ID_OFFSET),
                    h.getInt(SegmentHeaderDescriptor.SEGMENT_SIZE_OFFSET),
                    h.getLong(SegmentHeaderDescriptor.CREATED_OFFSET));
                if (found != null && found.logId() != m.logId())
                {
                    throw new CorruptLogException("log '" + name + "': " + SegmentFiles.META_FILE + " is missing and " +
                        "the segment headers name more than one log (ids 0x" + Long.toHexString(found.logId()) +
                        " and 0x" + Long.toHexString(m.logId()) + "): refusing to guess its identity");
                }
                // segments of a ladder differ in size: the log's is at least the largest, and the config's when bigger
                found = new LogMeta(m.logId(), Math.max(Math.max(m.segmentSize(), config.segmentSize()),
                    found == null ? 0 : found.segmentSize()), found == null ? m.created() :
                    Math.min(m.created(), found.created()));
            }
        }
        finally
        {
            header.free();
        }
        if (found != null)
        {
            LOG.log(System.Logger.Level.WARNING, "log '" + name + "': " + SegmentFiles.META_FILE + " is missing: " +
                "the log's identity (id 0x" + Long.toHexString(found.logId()) + ", segment size " +
                found.segmentSize() + ") is taken from its segment headers and config and the file written again");
            return found;
        }
        if (files)
        {
            throw new CorruptLogException("log '" + name + "': " + SegmentFiles.META_FILE + " is missing and no " +
                "segment header names the log's identity, but its files are there: refusing to create a new log " +
                "over them");
        }
        return null;
    }

    /**
     * The fast path after a clean close: the checkpoint and the persisted index say where the end is. Reads no
     * record data and takes no write page: the first append takes a growing page from the block after the end
     * (the block holding the end is never written again), so an idle log costs no budget (issue 18). Readers of the
     * active segment read its records from disk until then, checking each record as bytes from disk.
     */
    private boolean openClean(final LogMeta meta, final Segment last, final Checkpoint.State state)
        throws IOException
    {
        final IndexFile.Loaded loaded = IndexFile.read(io, dir, meta.logId(), last);
        if (loaded == null || loaded.endPosition() != state.position() || loaded.endOffset() != state.offset())
        {
            LOG.log(System.Logger.Level.WARNING, "log '" + name + "': closed cleanly but the index of " +
                last.path().getFileName() + " is missing or does not match the checkpoint: scanning");
            return false;
        }
        final int position = (int)state.position();
        scope.phase("index");
        // no write descriptor yet: the first append opens one (issue 18: a log that is only read, or not used, holds
        // none), so the file's length is read through a descriptor closed at once
        if (fileSize(last.path()) < last.capacity())
        {
            // truncated: crash recovery re-extends it (case C5)
            LOG.log(System.Logger.Level.WARNING, "log '" + name + "': closed cleanly but " +
                last.path().getFileName() + " is shorter than its segment: scanning");
            return false;
        }
        last.index(loaded.index());
        last.maxTimestamp(loaded.maxTimestamp());
        scope.tail = new RecoveredLog.Tail(last, null, position, state.offset(), loaded.maxTimestamp(),
            (int)state.lastRecordPosition(), state.lastRecordOffset());
        return true;
    }

    /**
     * Whether a spare found after a clean close is used as it is (its segment flagged recycled) rather than zeroed
     * again: not when this log zeroes recycled files, nor under ABSOLUTE_CONSISTENCY, which must see every byte
     * after the end zero.
     */
    private boolean reuseSparesAsIs()
    {
        return rules.reusesFilesAsIs(config.zeroRecycledSegments());
    }

    private PreparedSegment open(final long sequence, final Path path) throws IOException
    {
        return new PreparedSegment(sequence, path, (int)fileSize(path), true); // opened when taken
    }

    private long fileSize(final Path path) throws IOException
    {
        try (BlockFile f = io.open(path, FileMode.READ, false))
        {
            return f.size();
        }
    }

}
