package io.directlog.storage.log;

import java.io.IOException;
import java.nio.ByteBuffer;
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
import io.directlog.storage.io.BlockFile;
import io.directlog.storage.io.BlockIo;
import io.directlog.storage.io.FileMode;
import io.directlog.storage.page.PageMemory;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Opens a log directory: creates it, or reads its segment headers, its checkpoint, and recovers its tail.
 * <p>
 * After a clean close (the checkpoint's clean flag, written last by close) it reads no segment data beyond
 * headers: the active segment's persisted index ({@code <seq>.idx}) and the last partial block, which goes into
 * the write page ({@link CachePage#validFrom()} marks where loaded bytes start).
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
    private final List<Path> recycle = new ArrayList<>();
    private long scannedBytes;
    private long cutPosition = -1;
    private long droppedEnd = -1;
    /** The first offset dropped after a cut or with dropped segments (the tail's range starts there), or -1. */
    private long droppedFrom = -1;
    /** A lost start range TRUNCATE_AT_CORRUPTION gave up ([from, to)), or -1. */
    private long startLostFrom = -1;
    private long startLostTo = -1;
    /** Lost bytes may have held records beyond any offset known: the dropped range has no known end. */
    private boolean droppedUnbounded;
    /** The checkpoint read at open was written by a clean close. */
    private boolean cleanCheckpoint;
    private long zeroedBytes;
    private long extendedBytes;
    private final List<Unreadable> unreadableBlocks = new ArrayList<>();
    private boolean tornTail;
    private int recycleNames;
    /** Where the writer goes on: set by whichever path found the end (clean, crash, or no segment). */
    private RecoveredLog.Tail tail;
    private final StringBuilder phases = new StringBuilder();
    private long phaseStart = System.nanoTime();

    /** Notes how long the phase that just ended took (logged at DEBUG with the recovery summary). */
    private void phase(final String what)
    {
        final long now = System.nanoTime();
        phases.append(what).append('=').append((now - phaseStart) / 1_000_000).append("ms ");
        phaseStart = now;
    }

    LogLoader(final String name, final Path dir, final LogContext context, final LogConfig config)
    {
        this.name = name;
        this.dir = dir;
        this.context = context;
        this.config = config;
        this.io = context.io();
        this.mode = context.recoveryMode();
        this.rules = new RecoveryRules(mode);
        this.align = Math.max(4096, io.alignment());
    }

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
        final LogConfig effective = config.toBuilder().segmentSize(meta.segmentSize()).build();
        final TreeMap<Long, Path> files = listSegmentFiles();
        final LogSegmentHost host = new LogSegmentHost(context, new SegmentSet(new Segment[0]));
        final Headers headers = readHeaders(files, meta, host);
        final Checkpoint checkpoint = Checkpoint.open(io, dir, meta.logId());
        phase("checkpoint");
        final Checkpoint.State state = checkpoint.state();
        cleanCheckpoint = state != null && state.clean();
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
        phase("headers");
        final List<Segment> used = headers.used;
        boolean clean = state != null && state.clean() && headers.badNewest < 0 && !holeDropped;
        if (headers.badNewest >= 0)
        {
            checkBadNewest(files.get(headers.badNewest), headers.badNewest, headers.badReason, state, used,
                meta.segmentSize(), meta);
        }
        final long nextSequence = files.isEmpty() ? 0 : files.lastKey() + 1;
        try
        {
            clean = recoverTail(used, state, meta, clean);
            final List<PreparedSegment> spares = sortBlankFiles(headers, files, clean, meta.segmentSize());
            phase("spares");
            final long millis = (System.nanoTime() - started) / 1_000_000;
            if (TRACE)
            {
                System.err.println("RECOVERY-TRACE log '" + name + "' " + phases + "total=" + millis + "ms");
            }
            final long start = used.isEmpty() ? tail.endOffset() : used.get(0).baseOffset();
            return new RecoveredLog(meta, effective, host, checkpoint, List.copyOf(used), start, tail, nextSequence,
                spares, List.copyOf(recycle), report(state, clean, millis));
        }
        catch (final IOException | RuntimeException e)
        {
            release(used, checkpoint);
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

    /** @return the segment files by sequence; unfinished {@code .tmp} files are deleted on the way. */
    private TreeMap<Long, Path> listSegmentFiles() throws IOException
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
        final int size = meta.segmentSize();
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
                final UnsafeBuffer h = header.buffer();
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
                if (invalid == null && headerSize != size)
                {
                    invalid = "segment size " + headerSize + " where the log's is " + size;
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
                    e.getValue(), size, h.getInt(SegmentHeaderDescriptor.BLOCK_SIZE_OFFSET),
                    (SegmentHeaderDescriptor.flags(h) & SegmentHeaderDescriptor.FLAG_RECYCLED) != 0));
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
        final boolean listChanged = checkSegmentList(used, headers.blank, files, headers.badNewest, headers.badLater,
            state, meta);
        if (headers.badNewest >= 0)
        {
            dropAfterBadHeader(used, files, headers.badNewest, headers.badReason, headers.badLater, meta);
        }
        final boolean holeDropped = dropAfterBlank(used, headers.blank, meta) || listChanged;
        for (int i = 0; i + 1 < used.size(); i++)
        {
            final Segment s = used.get(i);
            final long nextBase = used.get(i + 1).baseOffset();
            if (nextBase < s.baseOffset())
            {
                throw new CorruptLogException("log '" + name + "': segment " + used.get(i + 1).path() +
                    " starts at offset " + nextBase + ", before its predecessor's " + s.baseOffset());
            }
            s.publishEnd(meta.segmentSize(), nextBase);
            s.seal(meta.segmentSize(), nextBase);
        }
        return holeDropped;
    }

    /**
     * Finds where the log ends: the fast path after a clean close, crash recovery otherwise, or the end of a log
     * with no segment left. Sets {@link #tail}.
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
                recoverCrash(used, state, meta);
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
        // goes on at the highest end a durable record names (the checkpoint's; records found only beyond it
        // were never durable under any promise, and a crash may take them as it takes a torn tail)
        final long restart = Math.max(Math.max(0, state == null ? 0 : state.offset()), startLostTo);
        tail = RecoveredLog.Tail.empty(restart);
        return clean;
    }

    /**
     * Blank files (no header): spares after a clean close, deleted behind the head, re-zeroed otherwise; a bad
     * newest header's file is re-zeroed too.
     *
     * @return the spares found ready.
     */
    private List<PreparedSegment> sortBlankFiles(final Headers headers, final TreeMap<Long, Path> files,
        final boolean clean, final int size) throws IOException
    {
        final List<Segment> used = headers.used;
        final Segment active = tail.active();
        final long headSequence = active != null ? active.sequence() :
            used.isEmpty() ? -1 : used.get(used.size() - 1).sequence();
        final List<PreparedSegment> spares = new ArrayList<>();
        for (final long sequence : headers.blank)
        {
            final Path path = files.get(sequence);
            if (sequence < headSequence)
            {
                io.delete(path); // a blank file behind the head cannot be used in order
            }
            else if (clean && fileSize(path) == size && reuseSparesAsIs())
            {
                // a clean close: prepared files were never written, though one made from a file retention gave
                // back holds old records after its first block, and nothing here says which: take each as such
                spares.add(open(sequence, path));
            }
            else
            {
                recycle(path); // after a crash a taken-but-headerless file may hold bytes: re-zero first
            }
        }
        if (headers.badNewest >= 0)
        {
            recycle(files.get(headers.badNewest));
        }
        if (!recycle.isEmpty())
        {
            io.syncDirectory(dir);
        }
        return spares;
    }

    /** @return the report of what this open did. */
    private RecoveryReport report(final Checkpoint.State state, final boolean clean, final long millis)
    {
        final long end = tail.endOffset();
        if (state != null && rules.countsDroppedUpToWatermark(clean))
        {
            // the checkpoint's watermark was durable: records up to it existed, whatever was found of them
            droppedEnd = Math.max(droppedEnd, state.offset());
        }
        final long tailFrom = droppedFrom >= 0 ? Math.min(droppedFrom, end) : end;
        final long tailDropped = droppedEnd > tailFrom ? droppedEnd - tailFrom : 0;
        final long startDropped = startLostTo > startLostFrom ? startLostTo - startLostFrom : 0;
        final long rangeFrom = startDropped > 0 ? startLostFrom : tailDropped > 0 || droppedUnbounded ? tailFrom : -1;
        final long rangeTo = droppedUnbounded ? Long.MAX_VALUE : tailDropped > 0 ? droppedEnd :
            startDropped > 0 ? startLostTo : -1;
        return new RecoveryReport(mode, clean, scannedBytes, cutPosition, end, tailDropped + startDropped, tornTail,
            zeroedBytes, extendedBytes, unreadableBlocks.size(), millis, rangeFrom, rangeTo);
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
     * from its segment headers (each carries the log id and the segment size) and {@code log.meta} is written
     * again, with a WARNING. Headers that disagree, or files with no header to take it from, refuse the open before
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
                final UnsafeBuffer h = header.buffer();
                if (SegmentHeaderDescriptor.isBlank(h) || SegmentHeaderDescriptor.validate(h) != null)
                {
                    continue;
                }
                final LogMeta m = new LogMeta(h.getLong(SegmentHeaderDescriptor.LOG_ID_OFFSET),
                    h.getInt(SegmentHeaderDescriptor.SEGMENT_SIZE_OFFSET),
                    h.getLong(SegmentHeaderDescriptor.CREATED_OFFSET));
                if (found != null && (found.logId() != m.logId() || found.segmentSize() != m.segmentSize()))
                {
                    throw new CorruptLogException("log '" + name + "': " + SegmentFiles.META_FILE + " is missing and " +
                        "the segment headers name more than one log (ids 0x" + Long.toHexString(found.logId()) +
                        " and 0x" + Long.toHexString(m.logId()) + "): refusing to guess its identity");
                }
                found = found == null || m.created() < found.created() ? m : found;
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
                found.segmentSize() + ") is taken from its segment headers and the file written again");
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
     * A version 2 checkpoint names the segment list as it was (the start offset, the first segment's sequence and
     * how many segments there were through the watermark's): a segment file missing from it (deleted, or emptied so
     * that it has no header) is found here rather than taken for retention's work or for the end (issue 17). Files
     * below the recorded first segment are ones retention took out of the list just before a crash: recycled.
     * {@link RecoveryMode#TRUNCATE_AT_CORRUPTION} gives up a lost start range (the log starts at the first segment
     * left, the range reported) and cuts the log before a lost middle segment (later segments dropped and counted);
     * the other modes refuse, and a refused open changes nothing on disk.
     *
     * @return true when segments were dropped (the open is then not clean).
     */
    private boolean checkSegmentList(final List<Segment> used, final List<Long> blank, final TreeMap<Long, Path> files,
        final long badNewest, final List<Long> badLater, final Checkpoint.State state, final LogMeta meta)
        throws IOException
    {
        if (state == null || !state.knowsSegments() || state.segmentCount() <= 0 || state.firstSequence() < 0)
        {
            return false;
        }
        final long first = state.firstSequence();
        final long last = state.sequence();
        int present = 0;
        Segment firstPresent = null;
        for (final Segment s : used)
        {
            if (s.sequence() >= first && s.sequence() <= last)
            {
                present++;
                firstPresent = firstPresent == null ? s : firstPresent;
            }
        }
        for (final long bad : badLater)
        {
            present += bad >= first && bad <= last ? 1 : 0;
        }
        present += badNewest >= first && badNewest <= last ? 1 : 0; // damaged, not missing: judged by its own rules
        final boolean startLost = firstPresent == null || firstPresent.sequence() != first ||
            firstPresent.baseOffset() != state.startOffset();
        if (present >= state.segmentCount() && !startLost)
        {
            dropBelowFirst(used, blank, first);
            return false;
        }
        final String where = "log '" + name + "': the checkpoint names " + state.segmentCount() + " segment(s) from " +
            SegmentFiles.segment(dir, first).getFileName() + " (start offset " + state.startOffset() +
            ") through " + SegmentFiles.segment(dir, last).getFileName() + " (watermark offset " + state.offset() +
            "), but " + present + " of them are there with a header" +
            (firstPresent == null ? "" : ", the first at offset " + firstPresent.baseOffset()) +
            ": acknowledged records are missing";
        if (!rules.givesUpLostSegments())
        {
            throw new CorruptLogException(where + " (recovery mode " + mode + ")");
        }
        dropBelowFirst(used, blank, first);
        boolean dropped = false;
        if (startLost && firstPresent != null && firstPresent.baseOffset() > state.startOffset())
        {
            // the oldest segment(s) lost: the log starts at the first one left, the range below is given up
            startLostFrom = state.startOffset();
            startLostTo = firstPresent.baseOffset();
            for (int k = blank.size() - 1; k >= 0; k--)
            {
                if (blank.get(k) < firstPresent.sequence())
                {
                    recycle(files.get(blank.remove(k))); // an emptied file of the lost range: not a crash's hole
                }
            }
            LOG.log(System.Logger.Level.WARNING, where + ": offsets [" + startLostFrom + ", " + startLostTo +
                ") are given up, the log starts at " + startLostTo + " (TRUNCATE_AT_CORRUPTION)");
            dropped = true;
        }
        else if (firstPresent == null)
        {
            startLostFrom = state.startOffset();
            startLostTo = state.offset();
        }
        // a lost segment in the middle: the log ends where the records stop following on
        final int recordLogId = RecordDescriptor.recordLogId(meta.logId());
        for (int k = 0; k + 1 < used.size() && used.get(k).sequence() < last; k++)
        {
            final long end = endOfDropped(used, k, k + 1, recordLogId);
            if (end != used.get(k + 1).baseOffset())
            {
                droppedEnd = Math.max(droppedEnd, Math.max(state.offset(), endOfDropped(used, k + 1, recordLogId)));
                droppedFrom = droppedFrom < 0 ? end : Math.min(droppedFrom, end);
                for (int j = used.size() - 1; j > k; j--)
                {
                    final Segment later = used.remove(j);
                    IndexFile.delete(io, dir, later.sequence());
                    recycle(later.path());
                }
                LOG.log(System.Logger.Level.WARNING, where + ": the log ends at offset " + end + " where segment " +
                    "files are missing after " + used.get(k).path().getFileName() + " (TRUNCATE_AT_CORRUPTION)");
                return true;
            }
        }
        return dropped;
    }

    /** Recycles the files retention took out of the list before a crash removed them (below the first segment). */
    private void dropBelowFirst(final List<Segment> used, final List<Long> blank, final long first)
        throws IOException
    {
        while (!used.isEmpty() && used.get(0).sequence() < first)
        {
            final Segment gone = used.remove(0);
            IndexFile.delete(io, dir, gone.sequence());
            recycle(gone.path());
        }
        blank.removeIf(sequence ->
        {
            if (sequence >= first)
            {
                return false;
            }
            try
            {
                io.delete(SegmentFiles.segment(dir, sequence)); // a blank file behind the head cannot be used
            }
            catch (final IOException e)
            {
                throw new java.io.UncheckedIOException(e);
            }
            return true;
        });
    }

    /**
     * An invalid header with valid segments after it (or a second invalid one) is corruption: no crash leaves
     * that, since a segment's header goes to disk with its first write, before any later segment is taken. Only
     * TRUNCATE_AT_CORRUPTION opens such a log: it ends before the first bad header, and the segments after it are
     * recycled with their records counted as dropped. Otherwise the bad header is the newest file with one, and
     * {@link #checkBadNewest} decides.
     */
    private void dropAfterBadHeader(final List<Segment> used, final TreeMap<Long, Path> files, final long bad,
        final String why, final List<Long> badLater, final LogMeta meta) throws IOException
    {
        int from = 0;
        while (from < used.size() && used.get(from).sequence() < bad)
        {
            from++;
        }
        if (from == used.size() && badLater.isEmpty())
        {
            return;
        }
        final String where = "log '" + name + "': segment " + files.get(bad) + " position 0: invalid header (" + why +
            ")" + (from < used.size() ? ", and " + (used.size() - from) + " later segment file(s) hold records" :
            ", and later files have invalid headers too");
        if (!rules.givesUpLostSegments())
        {
            throw new CorruptLogException(where + " (recovery mode " + mode + ")");
        }
        if (from < used.size())
        {
            droppedEnd = Math.max(droppedEnd, endOfDropped(used, from, RecordDescriptor.recordLogId(meta.logId())));
            droppedFrom = droppedFrom < 0 ? used.get(from).baseOffset() :
                Math.min(droppedFrom, used.get(from).baseOffset());
        }
        for (int k = used.size() - 1; k >= from; k--)
        {
            final Segment later = used.remove(k);
            IndexFile.delete(io, dir, later.sequence());
            recycle(later.path());
        }
        for (final long sequence : badLater)
        {
            recycle(files.get(sequence));
        }
        LOG.log(System.Logger.Level.WARNING, where + ": the log ends before it (TRUNCATE_AT_CORRUPTION)");
    }

    /** The newest file's header is invalid: a torn first write, unless something says records were there. */
    private void checkBadNewest(final Path path, final long sequence, final String why, final Checkpoint.State state,
        final List<Segment> used, final int size, final LogMeta meta) throws IOException
    {
        final String where = "log '" + name + "': segment " + path + " position 0: invalid header (" + why + ")";
        final boolean covered = state != null && state.sequence() >= sequence;
        final RecoveryRules.DamageVerdict before = rules.judgeBadNewestHeader(covered, false);
        if (before == RecoveryRules.DamageVerdict.REFUSE_ANY_DAMAGE)
        {
            throw new CorruptLogException(where + " (recovery mode ABSOLUTE_CONSISTENCY)");
        }
        if (before == RecoveryRules.DamageVerdict.REFUSE_BELOW_WATERMARK)
        {
            throw new CorruptLogException(where + ", below the durable watermark (segment " + state.sequence() +
                " position " + state.position() + "): corruption, not a torn first write");
        }
        final long lowest = used.isEmpty() ? 0 : used.get(used.size() - 1).baseOffset();
        final PageMemory memory = PageMemory.allocate(size, align);
        try (BlockFile f = io.open(path, FileMode.READ, false))
        {
            final int read = readTolerant(f, memory.byteBuffer(), 0, size);
            scannedBytes += read;
            final long found = validRecordAfter(memory.buffer(), SegmentHeaderDescriptor.LENGTH - 8,
                Math.max(0, read), lowest, RecordDescriptor.recordLogId(meta.logId()), align).endOffset;
            if (found >= 0)
            {
                if (rules.judgeBadNewestHeader(covered, true) == RecoveryRules.DamageVerdict.REFUSE_VALID_RECORDS_AFTER)
                {
                    throw new CorruptLogException(where + ", and valid records (up to offset " + found +
                        ") follow it: corruption, not a torn first write");
                }
                droppedEnd = Math.max(droppedEnd, found);
            }
        }
        finally
        {
            memory.free();
        }
        LOG.log(System.Logger.Level.WARNING, where + ": reusing it as a prepared segment once re-zeroed");
    }

    /** The fast path after a clean close: the checkpoint and the persisted index say where the end is. */
    private boolean openClean(final LogMeta meta, final Segment last, final Checkpoint.State state)
        throws IOException
    {
        final IndexFile.Loaded loaded = IndexFile.read(io, dir, meta.logId(), last);
        final int size = last.capacity();
        if (loaded == null || loaded.endPosition() != state.position() || loaded.endOffset() != state.offset())
        {
            LOG.log(System.Logger.Level.WARNING, "log '" + name + "': closed cleanly but the index of " +
                last.path().getFileName() + " is missing or does not match the checkpoint: scanning");
            return false;
        }
        final int position = (int)state.position();
        final int from = alignDown(position);
        final int to = Math.min(size, alignUp(position));
        phase("index");
        final CachePage page = writePage(last);
        phase("page");
        final BlockFile direct = io.open(last.path(), FileMode.DIRECT, false);
        final BlockFile dsync = io.open(last.path(), FileMode.DIRECT_DSYNC, false);
        final boolean shortFile = direct.size() < size; // truncated: crash recovery re-extends it (case C5)
        if (to > from || shortFile)
        {
            int n;
            try
            {
                n = shortFile ? -1 : direct.read(page.memory().byteBuffer(), from, to - from, from);
            }
            catch (final IOException e)
            {
                LOG.log(System.Logger.Level.WARNING, "log '" + name + "': " + e.getMessage());
                n = -1; // crash recovery reads block by block and handles an unreadable block as damage
            }
            if (n < to - from || !RecordScanner.isGap(page.buffer(), position, to))
            {
                closeQuietly(direct);
                closeQuietly(dsync);
                context.cache().discard(page);
                LOG.log(System.Logger.Level.WARNING, "log '" + name + "': closed cleanly but bytes follow the end in " +
                    last.path().getFileName() + ", or it is short or unreadable there: scanning");
                return false;
            }
        }
        page.validFrom(from);
        last.index(loaded.index());
        last.writeFiles(direct, dsync);
        last.page(page);
        last.maxTimestamp(loaded.maxTimestamp());
        tail = new RecoveredLog.Tail(last, page, position, state.offset(), loaded.maxTimestamp(),
            (int)state.lastRecordPosition(), state.lastRecordOffset());
        return true;
    }

    /**
     * Crash recovery from the watermark. Returns the active segment.
     */
    private Segment recoverCrash(final List<Segment> used, final Checkpoint.State state,
        final LogMeta meta) throws IOException
    {
        final int recordLogId = RecordDescriptor.recordLogId(meta.logId());
        int first = 0;
        long wSequence = used.get(0).sequence();
        int wPosition = SegmentHeaderDescriptor.LENGTH;
        long wOffset = used.get(0).baseOffset();
        long lastRecordPosition = -1;
        long lastRecordOffset = -1;
        boolean truncating = false;
        if (state != null && state.sequence() >= 0)
        {
            int found = -1;
            for (int i = 0; i < used.size(); i++)
            {
                if (used.get(i).sequence() == state.sequence())
                {
                    found = i;
                }
            }
            if (found < 0 || state.position() < SegmentHeaderDescriptor.LENGTH || state.position() > meta.segmentSize())
            {
                final String where = "log '" + name + "': the checkpoint's watermark (segment " + state.sequence() +
                    " position " + state.position() + " offset " + state.offset() + ") names no segment file";
                if (!rules.givesUpLostSegments())
                {
                    throw new CorruptLogException(where);
                }
                // the watermark's segment is gone: after a crash it may have held records beyond the watermark
                droppedUnbounded = !state.clean();
                LOG.log(System.Logger.Level.WARNING, where + ": scanning the whole log" + (state.clean() ? "" :
                    "; records beyond the watermark it may have held are unknown: the dropped range is open-ended"));
            }
            else
            {
                first = found;
                wSequence = state.sequence();
                wPosition = (int)state.position();
                wOffset = state.offset();
                lastRecordPosition = state.lastRecordPosition();
                lastRecordOffset = state.lastRecordOffset();
                truncating = state.truncating();
            }
        }
        for (int i = first; i < used.size(); i++)
        {
            final Segment segment = used.get(i);
            final boolean isLast = i == used.size() - 1;
            final int size = segment.capacity();
            final CachePage page = writePage(segment);
            phase("page");
            final BlockFile direct = io.open(segment.path(), FileMode.DIRECT, false);
            boolean keep = false;
            try
            {
                direct.datasync(); // trust only what is durable
                phase("fdatasync");
                SegmentIndex index = new SegmentIndex(size);
                int from = SegmentHeaderDescriptor.LENGTH;
                long expected = segment.baseOffset();
                final boolean atWatermark = segment.sequence() == wSequence;
                if (atWatermark)
                {
                    final IndexFile.Loaded loaded = IndexFile.read(io, dir, meta.logId(), segment);
                    if (loaded != null && loaded.endPosition() <= wPosition && loaded.endOffset() <= wOffset)
                    {
                        index = loaded.index();
                        segment.maxTimestamp(loaded.maxTimestamp());
                        from = loaded.endPosition();
                        expected = loaded.endOffset();
                    }
                    if (lastRecordPosition >= SegmentHeaderDescriptor.LENGTH && lastRecordPosition < from)
                    {
                        from = (int)lastRecordPosition; // verify at least the record that ends at the watermark
                        expected = lastRecordOffset;
                    }
                }
                final int readFrom = alignDown(from);
                final int n = readTolerant(direct, page.memory().byteBuffer(), readFrom, size - readFrom);
                if (readFrom + n < size)
                {
                    page.buffer().setMemory(readFrom + n, size - readFrom - n, (byte)0);
                }
                scannedBytes += n;
                page.validFrom(readFrom);
                phase("read");
                final UnsafeBuffer buffer = page.buffer();
                final RecordScanner scanner = new RecordScanner(segment.blockSize());
                int cut;
                int damageAt; // where damage starts: the cut, or past a gap after it
                long cutOffset;
                String damage = null;
                boolean below = false;
                if (atWatermark && from < wPosition)
                {
                    scanner.scan(buffer, from, wPosition, expected, recordLogId, index, 0, size);
                    if (scanner.position() != wPosition || scanner.nextOffset() != wOffset)
                    {
                        below = true;
                        damage = scanner.reason() != null ? scanner.reason() : "the records end at position " +
                            scanner.position() + " offset " + scanner.nextOffset() + ", before the watermark (position " +
                            wPosition + " offset " + wOffset + ")";
                    }
                    from = scanner.position();
                    expected = scanner.nextOffset();
                }
                if (atWatermark && truncating && damage == null)
                {
                    cut = wPosition; // an interrupted truncateTo: the watermark is the end; what follows goes
                    cutOffset = wOffset;
                    droppedEnd = -1;
                    cutPosition = cut;
                    finishActive(used, i, segment, page, direct, index, cut, cutOffset, scanner, readFrom, true);
                    keep = true;
                    return segment;
                }
                if (damage == null)
                {
                    final RecordScanner.Stop stop = scanner.scan(buffer, from, size, expected, recordLogId, index, 0,
                        size);
                    cut = scanner.position();
                    damageAt = scanner.damagePosition();
                    cutOffset = scanner.nextOffset();
                    // from past the gap, if the records end with one (the scanner checked the gap itself); a
                    // recycled segment holds stale records of this log there, so only zeros prove nothing
                    final boolean garbage = !segment.recycled() &&
                        !RecordScanner.isZero(page.memory().byteBuffer(), damageAt, size);
                    // in a recycled segment the end is the first header that is not this segment's next record,
                    // unless records of this segment's offsets lie after it (a zeroed or garbled block of
                    // acknowledged records, issue 17) or its bytes were provably written by this segment
                    final boolean recycledStop = segment.recycled() && stop != RecordScanner.Stop.LIMIT;
                    final boolean validLater = recycledStop && validRecordAfter(buffer, cut, size, cutOffset,
                        recordLogId, segment.blockSize()).endOffset >= 0;
                    if (recycledStop && validLater)
                    {
                        damage = stop == RecordScanner.Stop.INVALID ? scanner.reason() :
                            "an all-zero header with valid records of this segment after it";
                    }
                    else if (recycledStop && stop == RecordScanner.Stop.INVALID &&
                        writtenHere(buffer, damageAt, size, segment.blockSize(), cutOffset, recordLogId))
                    {
                        damage = scanner.reason() + " (bytes this segment's own write covered, not stale ones)";
                    }
                    else if (recycledStop)
                    {
                        // the first stale byte after this segment's records: its end, as a zero header is in a
                        // zeroed file (a torn last write looks the same, and nothing of it was acknowledged
                        // under a promise that survives the crash, or a record after it would have been written)
                        damage = null;
                        if (!isLast && cutOffset != used.get(i + 1).baseOffset())
                        {
                            damage = "the segment ends at offset " + cutOffset + " but the next one (" +
                                used.get(i + 1).path().getFileName() + ") starts at " + used.get(i + 1).baseOffset();
                        }
                    }
                    else if (stop == RecordScanner.Stop.INVALID || garbage)
                    {
                        damage = stop == RecordScanner.Stop.INVALID ? scanner.reason() :
                            "an all-zero header with non-zero bytes after it";
                    }
                    else if (!isLast && cutOffset != used.get(i + 1).baseOffset())
                    {
                        damage = "the segment ends at offset " + cutOffset + " but the next one (" +
                            used.get(i + 1).path().getFileName() + ") starts at " + used.get(i + 1).baseOffset();
                    }
                }
                else
                {
                    cut = from;
                    damageAt = from;
                    cutOffset = expected;
                }
                boolean bytesMissing = false;
                if (damage == null && isLast && !cleanCheckpoint && direct.size() < size &&
                    alignUp(cut) >= direct.size())
                {
                    // segment files are full-size from their preparation on (the size synced before the rename), so a
                    // short one lost bytes; when its records run into its last block, records may have followed
                    // there: after a crash nothing says how many (issue 17)
                    damage = "the file is " + direct.size() + " bytes, shorter than its segment, and its records " +
                        "reach its last block: bytes after them are missing";
                    bytesMissing = true;
                }
                phase("scan");
                if (damage == null && !isLast)
                {
                    // a complete rolled segment beyond the watermark: keep its page as read cache
                    segment.index(index);
                    segment.maxTimestamp(scanner.lastTimestamp());
                    segment.publishEnd(cut, cutOffset);
                    segment.seal(cut, cutOffset);
                    page.markReadOnly();
                    segment.page(page);
                    closeQuietly(direct);
                    keep = true;
                    continue;
                }
                if (damage != null)
                {
                    final String where = "log '" + name + "': segment " + segment.path() + " position " + cut +
                        " offset " + cutOffset + ": " + unreadable(segment.path(), cut, damage);
                    final ValidAfter valid = validRecordAfter(buffer, cut, size, cutOffset, recordLogId,
                        segment.blockSize());
                    final long after = valid.endOffset;
                    final long later = isLast ? -1 : endOfDropped(used, i + 1, recordLogId);
                    // looksTorn only where the verdict may depend on it (it reads the damaged span sector by sector)
                    final boolean torn = !rules.asksIfTorn(after >= 0, segment.recycled()) ||
                        looksTorn(buffer, damageAt, valid.firstPosition);
                    final RecoveryRules.DamageVerdict verdict = rules.judge(new RecoveryRules.Damage(below,
                        bytesMissing, after >= 0, segment.recycled(), torn));
                    switch (verdict)
                    {
                        case REFUSE_BELOW_WATERMARK -> throw new CorruptLogException(where + " (below the durable " +
                            "watermark: corruption, not a torn tail; recovery mode " + mode + ")");
                        case REFUSE_ANY_DAMAGE ->
                            throw new CorruptLogException(where + " (recovery mode ABSOLUTE_CONSISTENCY)");
                        case REFUSE_LOST_FILE_PART ->
                            throw new CorruptLogException(where + " (a lost part of a file, not a torn write)");
                        case REFUSE_VALID_RECORDS_AFTER -> throw new CorruptLogException(where + ", and valid " +
                            "records follow it (up to offset " + after + ") with no unwritten sector between: " +
                            "corruption, not a torn tail");
                        default ->
                        {
                            // CUT_AND_COUNT or CUT_TORN_TAIL: below
                        }
                    }
                    // valid records only in later segments, beyond the watermark: on a volatile cache the rolled
                    // segment's unsynced tail can be lost while the next segment's writes survive; the first hole
                    // ends the log and the later segments are dropped (counted in droppedRecords)
                    droppedEnd = Math.max(droppedEnd, later);
                    if (verdict == RecoveryRules.DamageVerdict.CUT_AND_COUNT)
                    {
                        droppedEnd = Math.max(droppedEnd, Math.max(after, later));
                        LOG.log(System.Logger.Level.WARNING, where + ": cut the log there (TRUNCATE_AT_CORRUPTION)");
                    }
                    else
                    {
                        // valid records after a torn-looking hole: the survivors of an in-flight write, counted
                        droppedEnd = Math.max(droppedEnd, after);
                        tornTail = true;
                        LOG.log(System.Logger.Level.WARNING, where + ": torn tail beyond the durable watermark, cut" +
                            (after < 0 ? "" : segment.recycled() ? " (valid records up to offset " + after + " after " +
                            "it, dropped: in a recycled segment a write that did not land leaves stale bytes, not " +
                            "zeros, so this cannot be told from damage; zeroRecycledSegments keeps the difference)" :
                            " (valid records up to offset " + after + " after a sector that reads as " +
                            "never written: the rest of an unacknowledged write, dropped)"));
                    }
                    cutPosition = cut;
                    droppedFrom = droppedFrom < 0 ? cutOffset : Math.min(droppedFrom, cutOffset);
                    if (segment.recycled())
                    {
                        // finishActive counts nothing in a recycled segment (its stale rest is expected): the
                        // damaged write's blocks are not stale, so they are counted and logged here
                        countZeroed(buffer, segment.path(), cut, Math.min(size,
                            (Math.max(cut, damageAt) / segment.blockSize() + 1) * segment.blockSize()));
                    }
                }
                finishActive(used, i, segment, page, direct, index, cut, cutOffset, scanner, readFrom,
                    damage != null);
                keep = true;
                return segment;
            }
            finally
            {
                if (!keep)
                {
                    closeQuietly(direct);
                    context.cache().discard(page);
                }
            }
        }
        throw new IllegalStateException("unreachable: the last segment ends the loop");
    }

    /** Makes {@code used[i]} the active segment with its end at {@code cut}; drops the segments after it. */
    private void finishActive(final List<Segment> used, final int i, final Segment segment,
        final CachePage page, final BlockFile direct, final SegmentIndex index, final int cut, final long cutOffset,
        final RecordScanner scanner, final int readFrom, final boolean cutHere) throws IOException
    {
        final int size = segment.capacity();
        final UnsafeBuffer buffer = page.buffer();
        final long fileSize = direct.size();
        // the block holding the cut keeps the recovered records: it is written again only when the bytes after
        // the cut in it are not a gap (a torn or garbled write there), never to rewrite what is already right
        final int gapEnd = RecordDescriptor.gapEnd(cut, segment.blockSize());
        final boolean gapClean = RecordScanner.isGap(buffer, cut, gapEnd) && fileSize >= gapEnd;
        final boolean dirty = !gapClean || !RecordScanner.isZero(page.memory().byteBuffer(), gapEnd, size);
        if (dirty || fileSize < size)
        {
            // torn, stale or garbage bytes after the end: zero them in the page and on disk before anything is
            // acknowledged, and counted in the report. A file shorter than its segment (truncated beyond the end)
            // is written out to its full size with zeros, so later O_DIRECT appends overwrite written blocks
            // inside i_size again (no metadata to make durable) instead of extending the file.
            if (dirty && !segment.recycled())
            {
                countZeroed(buffer, segment.path(), gapClean ? gapEnd : cut, size);
            }
            // a recycled segment's stale bytes are zeroed too (records after a hole there are of this log, and a
            // later crash must not find them where new ones belong), but they are expected: not counted or logged
            final int zeroFrom;
            if (gapClean)
            {
                buffer.setMemory(gapEnd, size - gapEnd, (byte)0);
                zeroFrom = gapEnd;
            }
            else
            {
                buffer.setMemory(cut, size - cut, (byte)0);
                if (gapEnd > cut)
                {
                    buffer.setMemory(cut + 4, gapEnd - cut - 4, RecordDescriptor.GAP_FILL);
                }
                zeroFrom = alignDown((int)Math.min(cut, fileSize));
            }
            if (zeroFrom < size)
            {
                direct.write(page.memory().byteBuffer(), zeroFrom, size - zeroFrom, zeroFrom);
            }
            direct.datasync();
            if (fileSize < size)
            {
                if (rules.lostFileEndIsUnbounded(cleanCheckpoint, cutHere))
                {
                    // after a crash the lost bytes past the file's end may have held records beyond the watermark:
                    // how many cannot be known, so the dropped range is open-ended
                    droppedUnbounded = true;
                }
                extendedBytes += size - fileSize;
                LOG.log(System.Logger.Level.WARNING, "log '" + name + "': segment " + segment.path() + " was " +
                    fileSize + " bytes, shorter than its " + size + ": re-extended with zeros and synced");
            }
        }
        if (cutHere)
        {
            IndexFile.delete(io, dir, segment.sequence());
        }
        boolean dropped = false;
        for (int k = used.size() - 1; k > i; k--)
        {
            final Segment later = used.remove(k);
            IndexFile.delete(io, dir, later.sequence());
            recycle(later.path());
            dropped = true;
        }
        if (dropped)
        {
            io.syncDirectory(dir);
        }
        final BlockFile dsync = io.open(segment.path(), FileMode.DIRECT_DSYNC, false);
        index.truncateTo(cut);
        segment.index(index);
        segment.writeFiles(direct, dsync);
        segment.page(page);
        // the last record any scan of this segment saw (the one verified below the watermark counts: a scan from
        // the watermark that finds the end at once has no record, and taking the segment's unset maximum then left
        // the index written at the next clean close with timestamp bounds below its entries, rejected at the next
        // open: issue 17, defect 8)
        final long timestamp = scanner.lastRecordPosition() >= 0 ?
            Math.max(scanner.lastTimestamp(), segment.maxTimestamp()) : segment.maxTimestamp();
        segment.maxTimestamp(timestamp);
        page.validFrom(Math.min(readFrom, alignDown(cut)));
        final boolean hasLast = scanner.lastRecordPosition() >= 0 && scanner.lastRecordPosition() < cut;
        tail = new RecoveredLog.Tail(segment, page, cut, cutOffset, timestamp,
            hasLast ? scanner.lastRecordPosition() : -1, hasLast ? scanner.lastRecordOffset() : -1);
    }

    /**
     * A headerless (blank) file below every segment with records, while the first of those does not start at
     * offset 0, is a hole: that taken segment's first write was lost in a crash (a volatile cache) while a later
     * segment's survived, so the log would open starting above 0. The segments after it are recycled and their
     * records counted as dropped. A blank file can also be a prepared file that failed to open (an I/O error) and
     * was skipped: then the next segment starts where the log did, so it is left alone. A blank file between two
     * segments is checked by recoverCrash's contiguity check (the previous segment's end against the next base).
     * Limitation: retention that deleted every segment below such a skipped file would look like a hole here.
     *
     * @return true when segments were dropped.
     */
    private boolean dropAfterBlank(final List<Segment> used, final List<Long> blank, final LogMeta meta)
        throws IOException
    {
        if (used.isEmpty() || blank.isEmpty() || blank.get(0) > used.get(0).sequence() ||
            used.get(0).baseOffset() == 0)
        {
            return false;
        }
        final long hole = blank.get(0);
        int from = 0;
        while (used.get(from).sequence() < hole)
        {
            from++;
        }
        final String where = "log '" + name + "': segment file " + SegmentFiles.segment(dir, hole).getFileName() +
            " has no header but " + (used.size() - from) + " later segment file(s) hold records";
        if (rules.refusesHole())
        {
            throw new CorruptLogException(where + " (recovery mode ABSOLUTE_CONSISTENCY)");
        }
        droppedEnd = Math.max(droppedEnd, endOfDropped(used, from, RecordDescriptor.recordLogId(meta.logId())));
        droppedFrom = droppedFrom < 0 ? used.get(from).baseOffset() : Math.min(droppedFrom, used.get(from).baseOffset());
        for (int k = used.size() - 1; k >= from; k--)
        {
            final Segment later = used.remove(k);
            IndexFile.delete(io, dir, later.sequence());
            recycle(later.path());
        }
        tornTail = true;
        LOG.log(System.Logger.Level.WARNING, where + ": a hole after a crash, the log ends before it");
        return true;
    }

    /** The highest offset end found by scanning segments {@code from..} (TRUNCATE_AT_CORRUPTION's count), or -1. */
    private long endOfDropped(final List<Segment> used, final int from, final int recordLogId) throws IOException
    {
        return endOfDropped(used, from, used.size(), recordLogId);
    }

    /** The same over segments {@code [from, to)}. */
    private long endOfDropped(final List<Segment> used, final int from, final int to, final int recordLogId)
        throws IOException
    {
        long end = -1;
        final int size = used.get(from).capacity();
        final PageMemory memory = PageMemory.allocate(size, align);
        try
        {
            for (int k = from; k < to; k++)
            {
                final Segment s = used.get(k);
                try (BlockFile f = io.open(s.path(), FileMode.READ, false))
                {
                    final int n = readTolerant(f, memory.byteBuffer(), 0, size);
                    if (n < size)
                    {
                        memory.buffer().setMemory(n, size - n, (byte)0);
                    }
                    scannedBytes += n;
                    final RecordScanner scanner = new RecordScanner(s.blockSize());
                    scanner.scan(memory.buffer(), SegmentHeaderDescriptor.LENGTH, size, s.baseOffset(), recordLogId,
                        null, 0, size);
                    end = Math.max(end, scanner.records() > 0 ? scanner.nextOffset() : s.baseOffset());
                }
            }
        }
        finally
        {
            memory.free();
        }
        return end;
    }

    /**
     * Reads {@code [from, from + length)} of a segment into {@code target} at the same index, up to the file's
     * end. A read error is not fatal here: the range is read again block by block, each block twice, and a block
     * that still fails (a latent sector error) is filled with 0xFF, which no record header passes, so it is damage
     * at that position: a torn tail beyond the durable watermark when nothing valid follows, corruption below it
     * (case C12). The positions are kept to name them in the damage message and counted in the report.
     *
     * @return bytes read or filled (less than {@code length} only at the file's end).
     */
    private int readTolerant(final BlockFile f, final ByteBuffer target, final int from, final int length)
        throws IOException
    {
        final int want = (int)Math.max(0, Math.min(length, f.size() - from));
        try
        {
            return Math.max(0, f.read(target, from, want, from));
        }
        catch (final IOException e)
        {
            LOG.log(System.Logger.Level.WARNING, "log '" + name + "': " + e.getMessage() + ": reading " +
                f.path().getFileName() + " block by block");
        }
        int done = 0;
        while (done < want)
        {
            final int at = from + done;
            final int n = Math.min(align - at % align, want - done);
            IOException failed = null;
            int got = -1;
            for (int attempt = 0; attempt < 2 && got < 0; attempt++)
            {
                try
                {
                    got = Math.max(0, f.read(target, at, n, at));
                }
                catch (final IOException e)
                {
                    failed = e;
                }
            }
            if (got < 0)
            {
                for (int k = 0; k < n; k++)
                {
                    target.put(at + k, (byte)0xFF);
                }
                unreadableBlocks.add(new Unreadable(f.path(), at, at + n));
                LOG.log(System.Logger.Level.WARNING, "log '" + name + "': " + f.path() + " bytes [" + at + ", " +
                    (at + n) + ") unreadable after a retry (" + failed.getMessage() + "): taken as damaged");
                got = n;
            }
            done += got;
            if (got < n)
            {
                break;
            }
        }
        return done;
    }

    /** A block recovery could not read. */
    private record Unreadable(Path path, long from, long to)
    {
    }

    /** Names the unreadable blocks at or after the damage position in a damage description. */
    private String unreadable(final Path path, final int position, final String damage)
    {
        for (final Unreadable block : unreadableBlocks)
        {
            if (block.path().equals(path) && block.to() > position)
            {
                return damage + " (bytes [" + block.from() + ", " + block.to() + ") of " + path.getFileName() +
                    " are unreadable: a read error after a retry)";
            }
        }
        return damage;
    }

    /** Counts and logs the non-zero bytes after the end that recovery is about to zero. */
    private void countZeroed(final UnsafeBuffer buffer, final Path path, final int cut, final int size)
    {
        long nonZero = 0;
        int last = -1;
        for (int p = cut; p < size; p++)
        {
            if (buffer.getByte(p) != 0)
            {
                nonZero++;
                last = p;
            }
        }
        zeroedBytes += nonZero;
        LOG.log(System.Logger.Level.WARNING, "log '" + name + "': segment " + path + ": " + nonZero + " non-zero " +
            "bytes after the end (position " + cut + ", the farthest at " + last + ") zeroed; reported in " +
            "RecoveryReport.zeroedBytes");
    }

    /** Valid records found after damage: where the first starts, and the end offset of the farthest. */
    static final class ValidAfter
    {
        int firstPosition = -1;
        long endOffset = -1;
    }

    /**
     * @return the valid records of this log at 8-byte positions after {@code from} whose offsets are at least
     * {@code expectedOffset} (both fields -1 when there is none).
     */
    static ValidAfter validRecordAfter(final UnsafeBuffer buffer, final int from, final int size,
        final long expectedOffset, final int recordLogId, final int blockSize)
    {
        final RecordScanner probe = new RecordScanner(blockSize);
        final ValidAfter found = new ValidAfter();
        for (int p = from + RecordDescriptor.ALIGNMENT; p + RecordDescriptor.HEADER_LENGTH <= size;
            p += RecordDescriptor.ALIGNMENT)
        {
            if (buffer.getInt(p + RecordDescriptor.LOG_ID_OFFSET) != recordLogId)
            {
                continue;
            }
            final long offset = buffer.getLong(p + RecordDescriptor.OFFSET_OFFSET);
            if (offset < expectedOffset)
            {
                continue;
            }
            probe.scan(buffer, p, size, offset, recordLogId, null, 0, size);
            if (probe.records() > 0)
            {
                found.firstPosition = found.firstPosition < 0 ? p : found.firstPosition;
                found.endOffset = Math.max(found.endOffset, probe.nextOffset());
                p = probe.position() - RecordDescriptor.ALIGNMENT;
            }
        }
        return found;
    }

    /**
     * In a recycled segment, whether the bytes at {@code at}, where the scan stopped on a header that failed its
     * checks, were written by this segment rather than left by an older one (so they are damage, not its end).
     * Every write covers whole blocks from a block boundary, so a position inside a block that the last good record
     * (or its gap) shares was written by that record's write; and within a 512 B sector the write landed whole, so
     * when the sector holding {@code at} also holds bytes already verified, the bytes at {@code at} are as written.
     * A header carrying this log's id and the expected offset is this segment's record, whatever failed. At a block
     * boundary, or at a sector boundary a torn write may not have reached, stale bytes are possible: not provable.
     */
    static boolean writtenHere(final UnsafeBuffer buffer, final int at, final int size, final int blockSize,
        final long expectedOffset, final int recordLogId)
    {
        if (at + RecordDescriptor.HEADER_LENGTH <= size &&
            buffer.getInt(at + RecordDescriptor.LOG_ID_OFFSET) == recordLogId &&
            buffer.getLong(at + RecordDescriptor.OFFSET_OFFSET) == expectedOffset)
        {
            return true;
        }
        final int sector = 512;
        if (at % blockSize == 0 || at % sector == 0)
        {
            return false;
        }
        if (buffer.getInt(at + RecordDescriptor.LENGTH_OFFSET) == 0)
        {
            // a gap's start: only its first sector (shared with the record before it) is proof; a later sector of
            // it may be one a torn write did not reach
            final int sectorEnd = Math.min(RecordDescriptor.gapEnd(at, blockSize), (at / sector + 1) * sector);
            return !RecordScanner.isGap(buffer, at, sectorEnd);
        }
        return true;
    }

    /**
     * Whether damage at {@code [cut, next)} followed by valid records can be a sector-atomic torn write on
     * pre-zeroed space: the writes since the last durable point landed in part, so some 512 B sector of the
     * damaged span still reads as it was before the write. Before the write, every byte at or after the end of
     * the records then written was zero (segments are pre-zeroed; recovery and truncation zero and sync what they
     * cut), so that sector is either all zero, or is the sector holding the previous write's end: zeros from the
     * first record of the write (the cut) up to the sector boundary. A bit flip, random garbage or a misdirected
     * block leaves no such sector: valid records after that are corruption.
     */
    static boolean looksTorn(final UnsafeBuffer buffer, final int cut, final int next)
    {
        final int sector = 512;
        final int boundary = (cut + sector - 1) / sector * sector;
        if (boundary > cut && boundary <= next && RecordScanner.isZero(buffer, cut, boundary))
        {
            return true;
        }
        for (int s = boundary; s + sector <= next; s += sector)
        {
            if (RecordScanner.isZero(buffer, s, s + sector))
            {
                return true;
            }
        }
        return false;
    }

    private CachePage writePage(final Segment segment)
    {
        final int size = segment.capacity();
        final CachePage page = context.cache().acquire(segment, size, true);
        if (page == null)
        {
            throw new MemoryBudgetExceededException("log '" + name + "' cannot get a write page of " + size +
                " bytes: memory budget " + context.cache().pool().budget() + " bytes, " +
                context.cache().pool().usedBytes() + " in use");
        }
        return page;
    }

    /** Renames a file out of the segment namespace; the preparer re-zeroes it before it is used again. */
    private void recycle(final Path path) throws IOException
    {
        final Path to = SegmentFiles.recycled(dir, "open-" + recycleNames++);
        io.rename(path, to);
        recycle.add(to);
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
        final BlockFile direct = io.open(path, FileMode.DIRECT, false);
        try
        {
            return new PreparedSegment(sequence, path, direct, io.open(path, FileMode.DIRECT_DSYNC, false), true);
        }
        catch (final IOException e)
        {
            closeQuietly(direct);
            throw e;
        }
    }

    private long fileSize(final Path path) throws IOException
    {
        try (BlockFile f = io.open(path, FileMode.READ, false))
        {
            return f.size();
        }
    }

    private int alignDown(final int position)
    {
        return position / align * align;
    }

    private int alignUp(final int position)
    {
        return (position + align - 1) / align * align;
    }

    private static void closeQuietly(final BlockFile f)
    {
        try
        {
            f.close();
        }
        catch (final IOException ignore)
        {
            // nothing was written through it that is not synced
        }
    }
}
