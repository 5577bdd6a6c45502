package io.directlog.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.format.SegmentHeaderDescriptor;

/**
 * The fixture of the recycled-segment tests: a store whose log keeps two 1 MiB segments, so retention gives files
 * back after a few megabytes, and the reading of segment headers that tells a recycled active segment.
 * <p>
 * Thread-safe: stateless.
 */
final class RecycledSegments
{
    static final int SEGMENT = TestStores.SEGMENT;
    static final int HEADER = SegmentHeaderDescriptor.LENGTH;

    private RecycledSegments()
    {
    }

    /** A store of DIRECT logs that keep two segments and one prepared file, with the given sync interval. */
    static StoreConfig config(final Path dir, final RecoveryMode mode, final Duration syncInterval,
        final boolean zeroRecycled)
    {
        return TestStores.store(dir, logConfig(syncInterval, zeroRecycled)).memoryBudget(32L << 20)
            .recoveryMode(mode).build();
    }

    /** @param budget the store's memory budget; write pages are never released for idleness. */
    static StoreConfig config(final Path dir, final RecoveryMode mode, final Duration syncInterval,
        final boolean zeroRecycled, final long budget)
    {
        return TestStores.store(dir, logConfig(syncInterval, zeroRecycled)).memoryBudget(budget)
            .pageIdleRelease(Duration.ofHours(1)).recoveryMode(mode).build();
    }

    private static LogConfig logConfig(final Duration syncInterval, final boolean zeroRecycled)
    {
        // every segment full size, so that each file retention gives back fits the next segment as it is
        return TestStores.log(Durability.DIRECT).initialSegmentSize(SEGMENT).syncInterval(syncInterval)
            .retentionBytes(2L * SEGMENT)
            .preparedSegments(1).zeroRecycledSegments(zeroRecycled).build();
    }

    /** Appends until the newest segment was made from a file retention gave back; returns the end offset. */
    static long fillUntilRecycledSegmentIsActive(final Log log, final Path logDir) throws IOException
    {
        long end = log.endOffset();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() - deadline < 0)
        {
            RecoveryTest.append(log, end, end + 500);
            end += 500;
            final ByteBuffer h = header(newestSegment(logDir));
            // a dozen segments written: retention (2 MiB) has given files back for a while
            if (h.getLong(0) == SegmentHeaderDescriptor.MAGIC && end > 12_000 && isRecycled(h))
            {
                return end;
            }
        }
        throw new AssertionError("no segment was made from a recycled file within 60 s");
    }

    static ByteBuffer header(final Path segment) throws IOException
    {
        return ByteBuffer.wrap(StoreFiles.read(segment, 0, HEADER)).order(ByteOrder.nativeOrder());
    }

    static boolean isRecycled(final Path segment) throws IOException
    {
        return isRecycled(header(segment));
    }

    private static boolean isRecycled(final ByteBuffer header)
    {
        return (header.getInt(SegmentHeaderDescriptor.FLAGS_OFFSET) & SegmentHeaderDescriptor.FLAG_RECYCLED) != 0;
    }

    /** The newest segment file with a header: the active segment (prepared files after it are blank). */
    static Path newestSegment(final Path logDir) throws IOException
    {
        final var segments = StoreFiles.segments(logDir);
        for (int i = segments.size() - 1; i > 0; i--)
        {
            if (header(segments.get(i)).getLong(0) == SegmentHeaderDescriptor.MAGIC)
            {
                return segments.get(i);
            }
        }
        return segments.get(0);
    }

    /** The segment file of the newest checkpoint's watermark (the active one in a crash image). */
    static Path watermarkSegment(final Path logDir) throws IOException
    {
        return logDir.resolve(String.format("%020d.log", StoreFiles.checkpoint(logDir)[1]));
    }
}
