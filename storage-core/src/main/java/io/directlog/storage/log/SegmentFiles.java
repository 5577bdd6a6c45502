package io.directlog.storage.log;

import java.nio.file.Path;

import io.directlog.storage.spi.BlockIo;

/**
 * The names of a log's files, spelled once. A segment file is named by its sequence number, zero-padded to
 * 20 digits, not by its base offset: the preparer creates and names files ahead of the writer, before their
 * base offset is known, and rolling must not rename anything. The base offset is in the segment's header.
 * <p>
 * Stateless; thread-safe.
 */
public final class SegmentFiles
{
    /** Suffix of a segment file. */
    public static final String SEGMENT_SUFFIX = ".log";
    /** Suffix of a file being prepared (zero-filled); never used by the writer, deleted at open. */
    public static final String PREPARING_SUFFIX = ".log.tmp";
    /** The log's metadata file (its id and segment size). */
    public static final String META_FILE = "log.meta";
    /** Suffix of a persisted segment index. */
    public static final String INDEX_SUFFIX = ".idx";
    /** The durable-watermark checkpoint. */
    public static final String CHECKPOINT_FILE = "checkpoint";

    private SegmentFiles()
    {
    }

    /**
     * Whether a directory holds a log: its {@code log.meta}, or, when that file was lost, a checkpoint or a segment
     * file (opening such a log takes its identity from the segment headers; see issue 17).
     *
     * @param io  the I/O layer.
     * @param dir a directory in the store.
     * @return true when it holds a log's files.
     * @throws IOException when it cannot be listed.
     */
    public static boolean isLogDirectory(final io.directlog.storage.spi.BlockIo io, final Path dir) throws java.io.IOException
    {
        if (io.exists(dir.resolve(META_FILE)) || io.exists(dir.resolve(CHECKPOINT_FILE)))
        {
            return true;
        }
        for (final Path file : io.list(dir))
        {
            if (sequenceOf(file.getFileName().toString()) >= 0)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @param dir      the log's directory.
     * @param sequence the segment's sequence number.
     * @return the segment's path.
     */
    public static Path segment(final Path dir, final long sequence)
    {
        return dir.resolve(name(sequence) + SEGMENT_SUFFIX);
    }

    /**
     * @param dir      the log's directory.
     * @param sequence the segment's sequence number.
     * @return the path it has while being prepared.
     */
    public static Path preparing(final Path dir, final long sequence)
    {
        return dir.resolve(name(sequence) + PREPARING_SUFFIX);
    }

    /**
     * @param dir      the log's directory.
     * @param sequence the segment's sequence number.
     * @return the path of its persisted index.
     */
    public static Path index(final Path dir, final long sequence)
    {
        return dir.resolve(name(sequence) + INDEX_SUFFIX);
    }

    /**
     * @param dir the log's directory.
     * @param tag a name unique within the directory.
     * @return a name for a segment file on its way back to the preparer (ends with .tmp: deleted at open if left).
     */
    public static Path recycled(final Path dir, final String tag)
    {
        return dir.resolve("recycle-" + tag + ".tmp");
    }

    /**
     * @param file a file name.
     * @return the sequence number of a segment file name, or -1 when it is not one.
     */
    public static long sequenceOf(final String file)
    {
        if (!file.endsWith(SEGMENT_SUFFIX) || file.length() != 20 + SEGMENT_SUFFIX.length())
        {
            return -1;
        }
        try
        {
            return Long.parseLong(file.substring(0, 20));
        }
        catch (final NumberFormatException e)
        {
            return -1;
        }
    }

    private static String name(final long sequence)
    {
        final String digits = Long.toString(sequence);
        return "0".repeat(20 - digits.length()) + digits;
    }
}
