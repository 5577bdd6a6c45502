package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import io.directlog.storage.LogConfig;
import io.directlog.storage.RecoveryReport;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;

/**
 * Opens a log that the store manifest describes (issue 18): its identity, segments (sequence, base offset, size,
 * block size, recycled flag), clean end and checkpoint generation come from the manifest ({@link LogFacts}), so
 * it reads no {@code log.meta}, no segment header and no checkpoint slot. What it still reads, and why:
 * <ul>
 *   <li>the log's directory listing: the manifest does not name the prepared files (they are taken as spares,
 *   as after any clean close), and a segment file the manifest names must be there;</li>
 *   <li>the active segment's persisted index ({@code <seq>.idx}): the in-memory index that reads of the active
 *   segment use and the writer goes on filling, and the newest record's timestamp;</li>
 *   <li>the sizes of the files it opens (one fstat each): a segment file shorter than its size is recovered.</li>
 * </ul>
 * It opens the active segment's descriptor and the checkpoint's (which {@link DefaultLog} writes as not clean
 * before the log takes an append) and each spare. Anything that does not match the manifest (a missing or
 * extra segment file, an index that does not end at the clean end, a short file, spares the recovery mode wants
 * zeroed) makes {@link #load} return null having changed nothing, and the caller opens the log from its files
 * ({@link LogLoader}), which judges what is really there, the manifest's facts standing in for a lost checkpoint
 * ({@link ManifestCheckpoint}).
 * <p>
 * Not thread-safe; used once, on the opening thread.
 */
final class KnownLogLoader
{
    private static final System.Logger LOG = System.getLogger(KnownLogLoader.class.getName());

    private final String name;
    private final Path dir;
    private final LogContext context;
    private final LogConfig config;
    private final LogFacts facts;
    private final BlockIo io;
    private final int align;
    /** What is open so far, closed when the load gives up. */
    private final List<BlockFile> opened = new ArrayList<>();

    KnownLogLoader(final String name, final Path dir, final LogContext context, final LogConfig config,
        final LogFacts facts)
    {
        this.name = name;
        this.dir = dir;
        this.context = context;
        this.config = config;
        this.facts = facts;
        this.io = context.io();
        this.align = IoBlock.of(io).length();
    }

    /**
     * @return what the log holds, or null when its files do not match the manifest (nothing was changed).
     * @throws IOException when a file cannot be listed, read or opened.
     */
    RecoveredLog load() throws IOException
    {
        final long started = System.nanoTime();
        final LogMeta meta = new LogMeta(facts.logId(), facts.segmentSize(), facts.created());
        final LogConfig effective = LogLoader.effectiveConfig(config, meta);
        final TreeMap<Long, Path> files = LogLoader.listSegmentFiles(io, dir);
        String mismatch = mismatch(files);
        if (mismatch == null)
        {
            mismatch = lostOrShort(files);
        }
        if (mismatch != null)
        {
            return fallBack(mismatch);
        }
        final LogSegmentHost host = new LogSegmentHost(context, new SegmentSet(new Segment[0]));
        final List<Segment> segments = segments(host, files);
        Checkpoint checkpoint = null;
        try
        {
            final RecoveredLog.Tail tail = segments.isEmpty() ? RecoveredLog.Tail.empty(facts.endOffset()) :
                openActive(segments.get(segments.size() - 1));
            final List<PreparedSegment> spares = tail == null ? null : spares(files, SegmentLadder.of(effective));
            checkpoint = spares == null ? null :
                Checkpoint.known(io, dir, meta.logId(), ManifestCheckpoint.cleanState(facts));
            if (checkpoint == null)
            {
                closeOpened();
                return fallBack("its active segment, index, spares or checkpoint are not as the manifest says");
            }
            final long millis = (System.nanoTime() - started) / 1_000_000;
            final long start = segments.isEmpty() ? facts.endOffset() : segments.get(0).baseOffset();
            final long nextSequence = files.isEmpty() ? 0 : files.lastKey() + 1;
            return new RecoveredLog(meta, effective, host, checkpoint, List.copyOf(segments), start, tail,
                nextSequence, spares, List.of(), List.of(), new RecoveryReport(context.recoveryMode(), true, 0, -1,
                facts.endOffset(), 0, false, 0, 0, 0, millis));
        }
        catch (final IOException | RuntimeException e)
        {
            closeOpened();
            if (checkpoint != null)
            {
                checkpoint.close();
            }
            throw e;
        }
    }

    /** @return why the directory's segment files are not the manifest's (plus spares after them), or null. */
    private String mismatch(final TreeMap<Long, Path> files)
    {
        final List<LogFacts.SegmentFacts> known = facts.segments();
        for (final LogFacts.SegmentFacts s : known)
        {
            if (!files.containsKey(s.sequence()))
            {
                return "segment " + s.sequence() + " is missing";
            }
        }
        final long last = known.isEmpty() ? -1 : known.get(known.size() - 1).sequence();
        if (last != facts.endSequence())
        {
            return "the manifest's end is in segment " + facts.endSequence() + ", its last segment is " + last;
        }
        final long first = known.isEmpty() ? Long.MAX_VALUE : known.get(0).sequence();
        for (final long sequence : files.keySet())
        {
            if (sequence < last && (sequence < first || known.stream().noneMatch(s -> s.sequence() == sequence)))
            {
                return "file " + files.get(sequence).getFileName() + " is not one of its segments";
            }
        }
        return null;
    }

    /**
     * @return why a file the log needs is missing ({@code log.meta}, the checkpoint) or a sealed segment's file is
     *     shorter than its size (an fstat each, no read), or null: file loss behind the store's back (issue 17)
     *     is judged by the open from the files.
     */
    private String lostOrShort(final TreeMap<Long, Path> files) throws IOException
    {
        final List<String> names = io.list(dir).stream().map(p -> p.getFileName().toString()).toList();
        for (final String needed : new String[] {SegmentFiles.META_FILE, SegmentFiles.CHECKPOINT_FILE})
        {
            if (!names.contains(needed))
            {
                return needed + " is missing";
            }
        }
        final List<LogFacts.SegmentFacts> known = facts.segments();
        for (int i = 0; i + 1 < known.size(); i++)
        {
            try (BlockFile f = io.open(files.get(known.get(i).sequence()), FileMode.READ, false))
            {
                if (f.size() < known.get(i).capacity())
                {
                    return "segment " + known.get(i).sequence() + " is shorter than its size";
                }
            }
        }
        return null;
    }

    /** @return the segments, every one but the last sealed at the next one's base offset. */
    private List<Segment> segments(final LogSegmentHost host, final TreeMap<Long, Path> files)
    {
        final List<Segment> segments = new ArrayList<>();
        for (final LogFacts.SegmentFacts s : facts.segments())
        {
            segments.add(new Segment(host, s.sequence(), s.baseOffset(), files.get(s.sequence()), s.capacity(),
                s.blockSize(), s.recycled(), s.zeroAhead(), -1));
        }
        for (int i = 0; i + 1 < segments.size(); i++)
        {
            final Segment s = segments.get(i);
            final long nextBase = segments.get(i + 1).baseOffset();
            s.publishEnd(s.capacity(), nextBase);
            s.seal(s.capacity(), nextBase);
        }
        return segments;
    }

    /** Reads the active segment's index and opens its file: where the writer goes on, or null (mismatch). */
    private RecoveredLog.Tail openActive(final Segment last) throws IOException
    {
        final IndexFile.Loaded loaded = IndexFile.read(io, dir, facts.logId(), last);
        if (loaded == null || loaded.endPosition() != facts.endPosition() || loaded.endOffset() != facts.endOffset())
        {
            return null;
        }
        // no write descriptor yet: the first append opens one, as after LogLoader's clean open
        if (fileSize(last.path()) < last.capacity())
        {
            return null; // truncated: crash recovery re-extends it
        }
        last.index(loaded.index());
        last.maxTimestamp(loaded.maxTimestamp());
        return new RecoveredLog.Tail(last, null, (int)facts.endPosition(), facts.endOffset(), loaded.maxTimestamp(),
            (int)facts.lastRecordPosition(), facts.lastRecordOffset());
    }

    /** @return the prepared files after the last segment (not opened), or null when one is not usable as it is. */
    private List<PreparedSegment> spares(final TreeMap<Long, Path> files, final SegmentLadder ladder)
        throws IOException
    {
        final List<PreparedSegment> spares = new ArrayList<>();
        final boolean asIs = new RecoveryRules(context.recoveryMode()).reusesFilesAsIs(config.zeroRecycledSegments());
        for (final var e : files.tailMap(facts.endSequence(), false).entrySet())
        {
            if (!asIs)
            {
                return null; // the loader zeroes them again
            }
            final long size = fileSize(e.getValue());
            if (!ladder.accepts(size, align))
            {
                return null;
            }
            spares.add(new PreparedSegment(e.getKey(), e.getValue(), (int)size, true)); // opened when taken
        }
        return spares;
    }

    private long fileSize(final Path path) throws IOException
    {
        try (BlockFile f = io.open(path, FileMode.READ, false))
        {
            return f.size();
        }
    }

    private void closeOpened()
    {
        opened.forEach(RecoveryScope::closeQuietly);
        opened.clear();
    }

    private RecoveredLog fallBack(final String why)
    {
        LOG.log(System.Logger.Level.WARNING, "log '" + name + "': its files do not match the store manifest (" +
            why + "): opened from its files");
        return null;
    }
}
