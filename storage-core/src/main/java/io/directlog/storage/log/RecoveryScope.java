package io.directlog.storage.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import io.directlog.storage.CorruptLogException;
import io.directlog.storage.MemoryBudgetExceededException;
import io.directlog.storage.RecoveryMode;
import io.directlog.storage.cache.CachePage;
import io.directlog.storage.format.RecordDescriptor;
import io.directlog.storage.format.SegmentHeaderDescriptor;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;
import io.directlog.storage.page.PageMemory;
import org.agrona.concurrent.AtomicBuffer;

/**
 * What every step of one log's recovery shares: who and where the log is, the {@link RecoveryRules}, the tally
 * the {@link io.directlog.storage.RecoveryReport} is made from (scanned, dropped, zeroed, extended, unreadable),
 * the files given back for the preparer, where the writer goes on, and the reads that survive bad blocks.
 * <p>
 * Not thread-safe: one open, on the opening thread.
 */
final class RecoveryScope
{
    static final System.Logger LOG = System.getLogger(LogLoader.class.getName());

    final String name;
    final Path dir;
    final LogContext context;
    final BlockIo io;
    final RecoveryMode mode;
    final RecoveryRules rules;
    final int align;
    /**
     * Segment files this open gives up, for the preparer to zero and reuse: renamed out of the segment namespace
     * only after the open's first checkpoint write names the list without them ({@link SpareSegments#retireFromOpen}).
     */
    final List<Path> recycle = new ArrayList<>();
    /** Blank files this open cannot use, deleted after that same checkpoint write. */
    final List<Path> delete = new ArrayList<>();
    long scannedBytes;
    long cutPosition = -1;
    long droppedEnd = -1;
    /** The first offset dropped after a cut or with dropped segments (the tail's range starts there), or -1. */
    long droppedFrom = -1;
    /** A lost start range TRUNCATE_AT_CORRUPTION gave up ([from, to)), or -1. */
    long startLostFrom = -1;
    long startLostTo = -1;
    /** Lost bytes may have held records beyond any offset known: the dropped range has no known end. */
    boolean droppedUnbounded;
    /** The checkpoint read at open was written by a clean close. */
    boolean cleanCheckpoint;
    long zeroedBytes;
    long extendedBytes;
    final List<Unreadable> unreadableBlocks = new ArrayList<>();
    boolean tornTail;
    /** Where the writer goes on: set by whichever path found the end (clean, crash, or no segment). */
    RecoveredLog.Tail tail;
    private final StringBuilder phases = new StringBuilder();
    private long phaseStart = System.nanoTime();

    RecoveryScope(final String name, final Path dir, final LogContext context)
    {
        this.name = name;
        this.dir = dir;
        this.context = context;
        this.io = context.io();
        this.mode = context.recoveryMode();
        this.rules = new RecoveryRules(mode);
        this.align = IoBlock.of(io).length();
    }

    /** Notes how long the phase that just ended took (logged with the recovery summary). */
    void phase(final String what)
    {
        final long now = System.nanoTime();
        phases.append(what).append('=').append((now - phaseStart) / 1_000_000).append("ms ");
        phaseStart = now;
    }

    /** @return the phases noted so far. */
    String phases()
    {
        return phases.toString();
    }

    /** The highest offset end found by scanning segments {@code from..} (TRUNCATE_AT_CORRUPTION's count), or -1. */
    long endOfDropped(final List<Segment> used, final int from, final int recordLogId) throws IOException
    {
        return endOfDropped(used, from, used.size(), recordLogId);
    }

    /** The same over segments {@code [from, to)}. */
    long endOfDropped(final List<Segment> used, final int from, final int to, final int recordLogId)
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
    int readTolerant(final BlockFile f, final ByteBuffer target, final int from, final int length)
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
    record Unreadable(Path path, long from, long to)
    {
    }

    /** Names the unreadable blocks at or after the damage position in a damage description. */
    String unreadable(final Path path, final int position, final String damage)
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
    void countZeroed(final AtomicBuffer buffer, final Path path, final int cut, final int size)
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

    CachePage writePage(final Segment segment)
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

    /**
     * Gives a segment file up: the preparer re-zeroes it before it is used again. It keeps its name until the open's
     * first checkpoint write: a crash before that finds the directory as this open did (the checkpoint may still
     * name the file, and a file it names that is gone is a loss); one after it finds the file past the end that
     * checkpoint's watermark is, and recovery gives it up again.
     */
    void recycle(final Path path)
    {
        recycle.add(path);
    }

    /** A blank file the open cannot use: deleted after the open's first checkpoint write, as {@link #recycle}. */
    void deleteLater(final Path path)
    {
        delete.add(path);
    }

    int alignDown(final int position)
    {
        return position / align * align;
    }

    int alignUp(final int position)
    {
        return (position + align - 1) / align * align;
    }

    static void closeQuietly(final BlockFile f)
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
