package io.directlog.storage.log;

import io.directlog.storage.LogConfig;
import io.directlog.storage.format.SegmentHeaderDescriptor;

/**
 * The sizes a log's segment files take: a new log starts at {@link LogConfig#initialSegmentSize()} and each next
 * segment is {@link #FACTOR} times the one before, up to {@link LogConfig#segmentSize()} (the last rung, whatever
 * its ratio to the one below). So a log of a few records holds one small file, and a busy one reaches full-size
 * segments after a few rolls (128 KiB, 512 KiB, 2 MiB, 8 MiB, 32 MiB, 64 MiB with the defaults).
 * <p>
 * Design note: each segment's header carries its own size, so the rungs are not part of the format: a log whose
 * {@code initialSegmentSize} changed between opens reads its old segments as they are.
 * <p>
 * Immutable; thread-safe.
 *
 * @param initial the first rung.
 * @param max     the last rung: the log's segment size.
 */
record SegmentLadder(int initial, int max)
{
    /** Each rung is this many times the one below. */
    static final int FACTOR = 4;

    /** @return the ladder of {@code config}. */
    static SegmentLadder of(final LogConfig config)
    {
        return new SegmentLadder(Math.min(config.initialSegmentSize(), config.segmentSize()), config.segmentSize());
    }

    /**
     * @param current the size of the newest segment file, or 0 for a log that has none.
     * @return the size of the file after it.
     */
    int next(final int current)
    {
        return current <= 0 ? initial : (int)Math.min(max, Math.max(initial, (long)current * FACTOR));
    }

    /**
     * @param from    the rung to start from (the next one the log would take).
     * @param aligned a record's aligned length.
     * @return the smallest rung from {@code from} up whose segment holds the record after its header; {@link #max}
     *     at most (the intake refuses records that do not fit a full-size segment).
     */
    int holding(final int from, final int aligned)
    {
        int size = Math.max(from, initial);
        while (size < max && SegmentHeaderDescriptor.LENGTH + (long)aligned > size)
        {
            size = next(size);
        }
        return size;
    }

    /** @return true when a segment of {@code size} bytes holds a record of {@code aligned} bytes after its header. */
    static boolean holds(final int size, final int aligned)
    {
        return SegmentHeaderDescriptor.LENGTH + (long)aligned <= size;
    }

    /**
     * @param size  a segment file's size (from its header, or a spare file's length).
     * @param align the direct-I/O alignment.
     * @return true when a log with segment size {@link #max} may hold a segment of that size: whole blocks, room for
     *     a header and a record block, not over the segment size. Rungs of another {@code initialSegmentSize} pass.
     */
    boolean accepts(final long size, final int align)
    {
        return size >= LogConfig.INITIAL_SEGMENT_SIZE_MIN && size <= max && size % align == 0;
    }
}
