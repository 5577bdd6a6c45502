package io.directlog.cli.store;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.directlog.nativeio.Extent;
import io.directlog.nativeio.NativeFile;
import io.directlog.nativeio.NativeIo;
import io.directlog.nativeio.NativeIoException;
import io.directlog.nativeio.OpenFlags;
import io.directlog.storage.format.RecordDescriptor;
import io.directlog.storage.format.SegmentHeaderDescriptor;
import io.directlog.storage.log.RecordScanner;

/**
 * What {@code ./directlog verify} checks, store by store and log by log, without changing a byte:
 * <ul>
 *   <li>log.meta, and both checkpoint slots (a torn slot is expected; two bad ones are not);</li>
 *   <li>every segment header (magic, CRC, version, log id, sequence, segment size) and every file's length;</li>
 *   <li>every record's length, offset, log id, count and CRC32C, with the engine's own {@link RecordScanner}; a rolled
 *       segment's records must reach the next segment's base offset, the last segment's must reach the checkpoint's
 *       watermark, and a clean checkpoint must be the exact end;</li>
 *   <li>the bytes after the end of a segment not flagged recycled must be zero (the invariant recovery relies on);</li>
 *   <li>each persisted index file: CRC, ids, and that every entry names a record of the data at its position;</li>
 *   <li>FIEMAP: every segment file's extents cover its whole size, none unwritten or delayed-allocation (an O_DIRECT
 *       write into such an extent changes metadata, which the durability promise excludes).</li>
 * </ul>
 * Damage that lies beyond the durable watermark of a log that was not closed cleanly is what a crash leaves
 * (recovery cuts it): it is reported as a warning, not as damage.
 * <p>
 * Not thread-safe; one per run.
 */
final class StoreVerifier
{
    /** How bad a finding is: only DAMAGE makes verify exit non-zero. */
    enum Severity
    {
        DAMAGE, WARNING, NOTE
    }

    /** One thing verify found. */
    record Finding(Severity severity, String log, String file, long position, String message)
    {
        Map<String, Object> toMap()
        {
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("severity", severity.name().toLowerCase());
            m.put("log", log);
            m.put("file", file);
            m.put("position", position < 0 ? null : position);
            m.put("message", message);
            return m;
        }

        @Override
        public String toString()
        {
            return severity + (log == null ? "" : "  " + log) + (file == null ? "" : "/" + file) +
                (position < 0 ? "" : " @" + position) + ": " + message;
        }
    }

    /** The outcome: per-log summaries and the findings. */
    record Report(Path store, List<Map<String, Object>> logs, List<Finding> findings, long bytesRead)
    {
        long count(final Severity s)
        {
            return findings.stream().filter(f -> f.severity() == s).count();
        }

        boolean damaged()
        {
            return count(Severity.DAMAGE) > 0;
        }
    }

    /** The store is open in a process (its lock is held) and --force-read-only was not given. */
    static final class StoreOpenException extends IOException
    {
        private static final long serialVersionUID = 1L;

        StoreOpenException(final String message)
        {
            super(message);
        }
    }

    static final String LOCK_FILE = "store.lock";

    private final List<Finding> findings = new ArrayList<>();
    private boolean fiemapUnavailableNoted;

    /**
     * @param store         the store's directory.
     * @param forceReadOnly read even when the store's lock is held (the files may change while they are read).
     * @param err           where progress goes, or null.
     * @return what was found.
     * @throws StoreOpenException when the store is open and {@code forceReadOnly} is false.
     * @throws IOException        when the directory cannot be read.
     */
    Report verify(final Path store, final boolean forceReadOnly, final PrintStream err) throws IOException
    {
        if (!Files.isDirectory(store))
        {
            throw new IOException(store + " is not a directory");
        }
        try (StoreLock lock = StoreLock.acquireShared(store))
        {
            if (!lock.acquired())
            {
                if (!forceReadOnly)
                {
                    throw new StoreOpenException("the store " + store + " is open (a process holds " + LOCK_FILE +
                        "); close it first, or pass --force-read-only to read files that may change while they are read");
                }
                add(Severity.WARNING, null, LOCK_FILE, -1, "the store is open in a process (--force-read-only): " +
                    "files may change while they are read, so findings at the end of an active segment may be stale");
            }
            final List<LogFiles> logs = LogFiles.find(store);
            if (logs.isEmpty())
            {
                add(Severity.NOTE, null, null, -1, "no log in this directory (a log is a directory with a log.meta)");
            }
            for (final LogFiles log : logs)
            {
                log.load();
            }
            final Progress progress = new Progress(err, "verify",
                logs.stream().mapToLong(LogFiles::segmentBytes).sum());
            final List<Map<String, Object>> summaries = new ArrayList<>();
            long bytes = 0;
            for (final LogFiles log : logs)
            {
                summaries.add(verifyLog(log, progress));
                bytes += log.segmentBytes();
            }
            progress.finish();
            return new Report(store, summaries, List.copyOf(findings), bytes);
        }
    }

    private Map<String, Object> verifyLog(final LogFiles log, final Progress progress) throws IOException
    {
        final Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("name", log.name);
        if (log.meta == null)
        {
            add(Severity.DAMAGE, log.name, "log.meta", -1, log.metaError);
            summary.put("segments", log.segments.size());
            return summary;
        }
        final LogFiles.CheckpointSlot cp = checkCheckpoint(log);
        final boolean clean = cp != null && cp.clean();
        final int recordLogId = RecordDescriptor.recordLogId(log.meta.logId());
        final int segmentSize = log.meta.segmentSize();

        // headers and lengths of every segment file
        for (final SegmentScan s : log.segments)
        {
            s.open();
            // the segment-size ladder: a segment is as long as its header says (the log's size at most); a blank
            // spare, any whole number of blocks up to it
            final boolean sized = s.headerError == null && !s.blank;
            if (sized ? s.fileSize != s.segmentSize : s.fileSize % 4096 != 0 || s.fileSize > segmentSize)
            {
                final long expected = sized ? s.segmentSize : segmentSize;
                add(Severity.DAMAGE, log.name, name(s), -1, "the file is " + s.fileSize + " bytes; its segment size is " +
                    expected + (s.fileSize < expected ? " (truncated)" : ""));
            }
            if (s.headerError != null)
            {
                final boolean torn = !clean && beyondWatermark(cp, s.sequence, 0) && isNewestWithHeader(log, s);
                add(torn ? Severity.WARNING : Severity.DAMAGE, log.name, name(s), 0, "invalid segment header: " +
                    s.headerError + (torn ? " (beyond the durable watermark of a log not closed cleanly: a torn first " +
                    "write, which recovery re-zeroes)" : ""));
            }
            else if (!s.blank)
            {
                if (s.logId != log.meta.logId())
                {
                    add(Severity.DAMAGE, log.name, name(s), SegmentHeaderDescriptor.LOG_ID_OFFSET,
                        "the header's log id is not log.meta's (a file of another log?)");
                }
                if (s.segmentSize > segmentSize)
                {
                    add(Severity.DAMAGE, log.name, name(s), SegmentHeaderDescriptor.SEGMENT_SIZE_OFFSET,
                        "the header's segment size " + s.segmentSize + " is over log.meta's " + segmentSize);
                }
            }
        }

        // records, segment by segment
        final List<SegmentScan> used = log.usedSegments().stream()
            .filter(s -> s.logId == log.meta.logId() && s.segmentSize > 0 && s.segmentSize <= segmentSize).toList();
        long records = 0;
        for (int i = 0; i < used.size(); i++)
        {
            final SegmentScan s = used.get(i);
            s.scan(recordLogId, true);
            progress.advance(s.fileSize);
            records += s.records;
            final boolean last = i == used.size() - 1;
            if (!last)
            {
                // a hole recovery left before the next segment (its header's FLAG_HOLE_BEFORE): the records end there
                final long nextBase = used.get(i + 1).precedingEnd();
                if (s.nextOffset < nextBase)
                {
                    final boolean torn = !clean && beyondWatermark(cp, s.sequence, s.damagePosition);
                    add(torn ? Severity.WARNING : Severity.DAMAGE, log.name, name(s), s.damagePosition,
                        "the records end at offset " + s.nextOffset + " (" + stopText(s) + ") but the next segment starts at " +
                        nextBase + (torn ? "; beyond the durable watermark: recovery cuts the log here" : ""));
                    s.release();
                    continue;
                }
                if (s.nextOffset > nextBase)
                {
                    add(Severity.DAMAGE, log.name, name(used.get(i + 1)), SegmentHeaderDescriptor.BASE_OFFSET_OFFSET,
                        "the segment starts at offset " + nextBase + " but the previous one holds records up to " +
                        (s.nextOffset - 1));
                }
            }
            checkAfterEnd(log, s, cp, clean);
            if (cp != null && cp.sequence() == s.sequence)
            {
                checkWatermark(log, s, cp, last);
            }
            if (!s.recycled || s.records > 0)
            {
                checkIndex(log, s, last);
            }
            checkExtents(log, s, last ? "the active segment" : "a rolled segment", last);
            s.release();
        }
        if (cp != null && cp.sequence() >= 0 && used.stream().noneMatch(s -> s.sequence == cp.sequence()))
        {
            add(Severity.DAMAGE, log.name, "checkpoint", -1, "the watermark lies in segment " + cp.sequence() +
                ", which has no segment file with a valid header");
        }
        if (clean && !used.isEmpty())
        {
            final SegmentScan lastSeg = used.get(used.size() - 1);
            if (cp.sequence() != lastSeg.sequence)
            {
                add(Severity.DAMAGE, log.name, "checkpoint", -1, "the clean-shutdown checkpoint names segment " +
                    cp.sequence() + " but the last segment is " + lastSeg.sequence);
            }
        }
        // prepared segments: what the writer takes next must be fully allocated
        for (final SegmentScan s : log.segments)
        {
            if (s.blank)
            {
                progress.advance(s.fileSize);
                checkExtents(log, s, "a prepared segment", true);
                s.release();
            }
        }
        // index files of segments that are not there
        for (final Path idx : log.indexFiles)
        {
            final String f = idx.getFileName().toString();
            final long seq = parseSequence(f);
            if (used.stream().noneMatch(s -> s.sequence == seq))
            {
                add(Severity.WARNING, log.name, f, -1, "an index file without a segment of that sequence");
            }
        }
        summary.put("segments", log.segments.size());
        summary.put("records", records);
        summary.put("startOffset", used.isEmpty() ? null : used.get(0).baseOffset);
        summary.put("endOffset", used.isEmpty() ? null : used.get(used.size() - 1).nextOffset);
        summary.put("cleanShutdown", clean);
        return summary;
    }

    private LogFiles.CheckpointSlot checkCheckpoint(final LogFiles log)
    {
        if (log.checkpointError != null)
        {
            add(Severity.DAMAGE, log.name, "checkpoint", -1, log.checkpointError);
            return null;
        }
        final LogFiles.CheckpointSlot cp = log.checkpoint();
        int invalid = 0;
        for (final LogFiles.CheckpointSlot s : log.slots)
        {
            if (!s.valid() && s.generation() != 0)
            {
                invalid++;
                add(cp == null ? Severity.DAMAGE : Severity.WARNING, log.name, "checkpoint", s.slot() * 4096L,
                    "slot " + s.slot() + " is not valid" + (cp == null ? "" :
                    " (a torn slot write leaves this; the engine takes the other slot, generation " + cp.generation() + ")"));
            }
        }
        if (cp == null && invalid == 0)
        {
            add(Severity.NOTE, log.name, "checkpoint", -1, "no checkpoint was written yet: the log has no durable watermark");
        }
        if (cp != null && cp.truncating())
        {
            add(Severity.WARNING, log.name, "checkpoint", -1, "a truncation was under way (flag 'truncating'): the next " +
                "open finishes it");
        }
        return cp;
    }

    /** Non-zero bytes after the end of a segment not flagged recycled, or a record that fails after the good ones. */
    private void checkAfterEnd(final LogFiles log, final SegmentScan s, final LogFiles.CheckpointSlot cp, final boolean clean)
    {
        if (s.recycled)
        {
            return; // stale records of older segments follow the end by design; their offsets tell them apart
        }
        final long where = s.stop == RecordScanner.Stop.INVALID ? s.damagePosition : s.nonZeroAfterEnd;
        if (where < 0)
        {
            return;
        }
        final String what = s.stop == RecordScanner.Stop.INVALID ? "a record fails its checks after the last good one: " +
            s.stopReason : "non-zero bytes after the end of the records (a segment not flagged recycled is zero there)";
        final boolean torn = !clean && beyondWatermark(cp, s.sequence, where);
        add(torn ? Severity.WARNING : Severity.DAMAGE, log.name, name(s), where, what +
            (torn ? "; beyond the durable watermark of a log not closed cleanly: a torn write, which recovery cuts" : ""));
    }

    private void checkWatermark(final LogFiles log, final SegmentScan s, final LogFiles.CheckpointSlot cp, final boolean last)
    {
        if (s.endPosition < cp.position())
        {
            add(Severity.DAMAGE, log.name, name(s), s.damagePosition, "the good records end at position " + s.endPosition +
                " (" + stopText(s) + "), below the durable watermark at position " + cp.position() + " (offset " +
                cp.offset() + "): acknowledged records are damaged");
            return;
        }
        final long offset = s.offsetAtOrAfter(cp.position());
        if (offset != cp.offset())
        {
            add(Severity.DAMAGE, log.name, "checkpoint", -1, "the watermark says offset " + cp.offset() + " starts at " +
                "position " + cp.position() + " of segment " + s.sequence + ", the data says " + offset);
        }
        if (cp.clean() && last && (s.endPosition != cp.position() || s.nextOffset != cp.offset()))
        {
            add(Severity.DAMAGE, log.name, name(s), s.endPosition, "the clean-shutdown checkpoint says the log ends at " +
                "position " + cp.position() + " (offset " + cp.offset() + "), the records end at position " + s.endPosition +
                " (offset " + s.nextOffset + ")");
        }
    }

    private void checkIndex(final LogFiles log, final SegmentScan s, final boolean last) throws IOException
    {
        final Path path = log.dir.resolve(String.format("%020d", s.sequence) + ".idx");
        if (!Files.exists(path))
        {
            return; // derived data: a missing index is rebuilt by a scan
        }
        final LogFiles.IndexInfo idx = log.readIndex(path);
        final String f = path.getFileName().toString();
        if (idx.error() != null)
        {
            add(Severity.DAMAGE, log.name, f, -1, "index file: " + idx.error() + " (derived data: the engine scans instead)");
            return;
        }
        if (idx.baseOffset() != s.baseOffset)
        {
            add(Severity.DAMAGE, log.name, f, -1, "index base offset " + idx.baseOffset() + " is not the segment's " +
                s.baseOffset);
            return;
        }
        if (idx.endPosition() > s.endPosition || idx.endOffset() > s.nextOffset)
        {
            add(Severity.DAMAGE, log.name, f, -1, "the index covers records up to position " + idx.endPosition() +
                " (offset " + idx.endOffset() + "), past the good records' end at " + s.endPosition + " (offset " +
                s.nextOffset + ")");
            return;
        }
        for (int i = 0; i < idx.count(); i++)
        {
            final int pos = idx.entryPositions()[i];
            if (pos < SegmentHeaderDescriptor.LENGTH || pos >= idx.endPosition() || s.offsetAt(pos) != idx.entryOffsets()[i] ||
                s.timestampAt(pos) > idx.entryTimestamps()[i])
            {
                add(Severity.DAMAGE, log.name, f, IndexFileDescriptorLayout.entry(i), "entry " + i + " (offset " +
                    idx.entryOffsets()[i] + " at position " + pos + ") does not name a record of the segment there");
                return;
            }
        }
    }

    private void checkExtents(final LogFiles log, final SegmentScan s, final String role, final boolean writable)
    {
        if (!NativeIo.isAvailable())
        {
            noteFiemapUnavailable(log, "native I/O is unavailable here: " + NativeIo.unavailabilityCause());
            return;
        }
        final long size = s.segmentSize > 0 && s.segmentSize <= log.meta.segmentSize() ? s.segmentSize :
            Math.min(s.fileSize, log.meta.segmentSize());
        try (NativeFile f = NativeFile.open(s.path, OpenFlags.READ_ONLY))
        {
            final List<Extent> extents = f.extents(0, size);
            long covered = 0;
            for (final Extent e : extents)
            {
                if (e.logical() > covered)
                {
                    extentProblem(log, s, role, writable, covered, "a hole of " + (e.logical() - covered) + " bytes");
                    return;
                }
                if ((e.flags() & (Extent.FLAG_UNWRITTEN | Extent.FLAG_DELALLOC | Extent.FLAG_UNKNOWN)) != 0)
                {
                    extentProblem(log, s, role, writable, e.logical(), "an extent of " + e.length() + " bytes flagged " +
                        ((e.flags() & Extent.FLAG_UNWRITTEN) != 0 ? "unwritten" :
                        (e.flags() & Extent.FLAG_DELALLOC) != 0 ? "delayed allocation" : "unknown location"));
                    return;
                }
                covered = Math.max(covered, e.logicalEnd());
            }
            if (covered < Math.min(size, s.fileSize))
            {
                extentProblem(log, s, role, writable, covered, "a hole of " + (Math.min(size, s.fileSize) - covered) +
                    " bytes at the end");
            }
        }
        catch (final NativeIoException ex)
        {
            noteFiemapUnavailable(log, "FIEMAP failed (" + ex.getMessage() + ")");
        }
    }

    private void extentProblem(final LogFiles log, final SegmentScan s, final String role, final boolean writable,
        final long position, final String what)
    {
        add(writable ? Severity.DAMAGE : Severity.WARNING, log.name, name(s), position, role + " has " + what +
            (writable ? ": an O_DIRECT write there changes filesystem metadata, which the durability promise excludes" :
            " (no writer writes there any more)"));
    }

    private void noteFiemapUnavailable(final LogFiles log, final String why)
    {
        if (!fiemapUnavailableNoted)
        {
            fiemapUnavailableNoted = true;
            add(Severity.NOTE, log.name, null, -1, "extents not checked: " + why);
        }
    }

    private static boolean beyondWatermark(final LogFiles.CheckpointSlot cp, final long sequence, final long position)
    {
        return cp == null || sequence > cp.sequence() || (sequence == cp.sequence() && position >= cp.position());
    }

    private static boolean isNewestWithHeader(final LogFiles log, final SegmentScan s)
    {
        return log.segments.stream().noneMatch(o -> o.sequence > s.sequence && !o.blank);
    }

    private static String stopText(final SegmentScan s)
    {
        return switch (s.stop)
        {
            case END -> "zeros at position " + s.damagePosition;
            case LIMIT -> "the file ends at position " + s.damagePosition;
            case INVALID -> "position " + s.damagePosition + ": " + s.stopReason;
        };
    }

    private static long parseSequence(final String file)
    {
        try
        {
            return Long.parseLong(file.substring(0, file.indexOf('.')));
        }
        catch (final RuntimeException ex)
        {
            return -1;
        }
    }

    private static String name(final SegmentScan s)
    {
        return s.path.getFileName().toString();
    }

    private void add(final Severity severity, final String log, final String file, final long position, final String message)
    {
        findings.add(new Finding(severity, log, file, position, message));
    }

    /** Where index entries lie in an index file, for messages. */
    private static final class IndexFileDescriptorLayout
    {
        static long entry(final int i)
        {
            return io.directlog.storage.format.IndexFileDescriptor.HEADER_LENGTH +
                (long)i * io.directlog.storage.format.IndexFileDescriptor.ENTRY_LENGTH;
        }
    }

    /** The store's lock taken shared and read-only, so that no engine opens the store while verify reads it. */
    static final class StoreLock implements AutoCloseable
    {
        private final FileChannel channel;
        private final FileLock lock;
        private final boolean acquired;

        private StoreLock(final FileChannel channel, final FileLock lock, final boolean acquired)
        {
            this.channel = channel;
            this.lock = lock;
            this.acquired = acquired;
        }

        /**
         * Opens the lock file read-only (never creating it) and takes a shared lock, which an engine's exclusive
         * lock excludes both ways.
         *
         * @param store the store's directory.
         * @return the lock: not acquired when a process holds it; acquired (and empty) when there is no lock file.
         * @throws IOException when the lock file cannot be opened.
         */
        static StoreLock acquireShared(final Path store) throws IOException
        {
            final Path file = store.resolve(LOCK_FILE);
            if (!Files.exists(file))
            {
                return new StoreLock(null, null, true); // never opened by the engine: nothing to exclude
            }
            final FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
            try
            {
                final FileLock l = ch.tryLock(0, Long.MAX_VALUE, true);
                if (l == null)
                {
                    ch.close();
                    return new StoreLock(null, null, false);
                }
                return new StoreLock(ch, l, true);
            }
            catch (final OverlappingFileLockException ex)
            {
                ch.close(); // this JVM holds it: a store open in this process
                return new StoreLock(null, null, false);
            }
        }

        boolean acquired()
        {
            return acquired;
        }

        @Override
        public void close() throws IOException
        {
            if (lock != null)
            {
                lock.release();
            }
            if (channel != null)
            {
                channel.close();
            }
        }
    }
}
