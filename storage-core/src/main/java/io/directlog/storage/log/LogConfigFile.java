package io.directlog.storage.log;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.directlog.storage.CorruptLogException;
import io.directlog.storage.Durability;
import io.directlog.storage.LogConfig;
import io.directlog.storage.format.Checksums;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;
import io.directlog.storage.page.PageMemory;
import org.agrona.concurrent.AtomicBuffer;

/**
 * A log's settings ({@link LogConfig}), in the 4 KiB file {@code log.config} beside its data, so that a log
 * opened with MEMORY durability or a retention comes back with them after a restart:
 * <pre>
 *  0 magic "DLOGCONF" (long)   8 version (int)   12 body length n (int)
 * 16 body: n bytes of UTF-8 "key=value\n" lines, one per setting
 * 16 + n CRC32C of [0, 16 + n) (int)
 * </pre>
 * The body is text so that an operator can read it with {@code strings}; the CRC makes a damaged file an error
 * rather than settings silently different from the ones asked for (a durability downgrade). The file is replaced
 * atomically: written as {@code log.config.tmp} and fdatasync'ed, renamed, the directory fsynced; a crash leaves the
 * old file or the new one, and the loader deletes a left-over {@code .tmp}.
 * <p>
 * The segment size is stored too but {@code log.meta} (written once at creation) stays its authority.
 * <p>
 * Thread-safe (no state).
 */
public final class LogConfigFile
{
    /** The file's name in the log's directory. */
    public static final String FILE_NAME = "log.config";
    private static final long MAGIC = 0x464E4F43474F4C44L; // "DLOGCONF" little-endian
    private static final int VERSION = 1;
    private static final int LENGTH = 4096;
    private static final int BODY_OFFSET = 16;

    private LogConfigFile()
    {
    }

    /**
     * Writes the file durably and atomically.
     *
     * @param io     the I/O layer.
     * @param dir    the log's directory (exists).
     * @param config the settings.
     * @throws IOException when it cannot be written.
     */
    public static void write(final BlockIo io, final Path dir, final LogConfig config) throws IOException
    {
        writeFile(io, dir, config);
        io.syncDirectory(dir);
    }

    /**
     * Writes the file's content durably and renames it into place; the rename is durable once the caller
     * fsyncs the directory (a batch of new logs fsyncs each directory once for all its files).
     *
     * @param io     the I/O layer.
     * @param dir    the log's directory (exists).
     * @param config the settings.
     * @throws IOException when it cannot be written.
     */
    static void writeFile(final BlockIo io, final Path dir, final LogConfig config) throws IOException
    {
        final byte[] body = encode(config).getBytes(StandardCharsets.UTF_8);
        if (BODY_OFFSET + body.length + 4 > LENGTH)
        {
            throw new IllegalStateException("log config of " + body.length + " bytes does not fit " + LENGTH);
        }
        final PageMemory block = PageMemory.allocate(LENGTH, Math.max(io.alignment(), 4096));
        try
        {
            final AtomicBuffer b = block.buffer();
            b.putLong(0, MAGIC);
            b.putInt(8, VERSION);
            b.putInt(12, body.length);
            b.putBytes(BODY_OFFSET, body);
            b.putInt(BODY_OFFSET + body.length, Checksums.crc32c(b, 0, BODY_OFFSET + body.length));
            final Path tmp = dir.resolve(FILE_NAME + ".tmp");
            try (BlockFile f = io.open(tmp, FileMode.DIRECT, true))
            {
                f.write(block.byteBuffer(), 0, LENGTH, 0);
                f.datasync(); // content and size (the write extended the file): one journal commit, one flush
            }
            io.rename(tmp, dir.resolve(FILE_NAME));
        }
        finally
        {
            block.free();
        }
    }

    /**
     * @param io   the I/O layer.
     * @param dir  the log's directory.
     * @param name the log's name, for messages.
     * @return the settings, or null when the log has no such file (a new log, or one created before it existed).
     * @throws IOException         when it cannot be read.
     * @throws CorruptLogException when it is damaged or of an unknown version.
     */
    public static LogConfig read(final BlockIo io, final Path dir, final String name) throws IOException
    {
        final Path path = dir.resolve(FILE_NAME);
        if (!io.exists(path))
        {
            return null;
        }
        final PageMemory block = PageMemory.allocate(LENGTH, Math.max(io.alignment(), 4096));
        try (BlockFile f = io.open(path, FileMode.READ, false))
        {
            final int n = f.read(block.byteBuffer(), 0, LENGTH, 0);
            final AtomicBuffer b = block.buffer();
            final int length = n >= BODY_OFFSET ? b.getInt(12) : -1;
            if (n < BODY_OFFSET + 4 || b.getLong(0) != MAGIC || length < 0 || BODY_OFFSET + length + 4 > n ||
                b.getInt(BODY_OFFSET + length) != Checksums.crc32c(b, 0, BODY_OFFSET + length))
            {
                throw new CorruptLogException("log '" + name + "': " + path + " is not a valid log.config file " +
                    "(bad magic, length or CRC); restore it, or delete it to open the log with the store's default " +
                    "config");
            }
            if (b.getInt(8) != VERSION)
            {
                throw new CorruptLogException("log '" + name + "': " + path + " has unsupported version " +
                    b.getInt(8) + " (this build reads version " + VERSION + ")");
            }
            final byte[] body = new byte[length];
            b.getBytes(BODY_OFFSET, body);
            return decode(new String(body, StandardCharsets.UTF_8), path, name);
        }
        catch (final NoSuchFileException e)
        {
            return null;
        }
        finally
        {
            block.free();
        }
    }

    static String encode(final LogConfig c)
    {
        final StringBuilder s = new StringBuilder();
        s.append("segmentSize=").append(c.segmentSize()).append('\n');
        s.append("initialSegmentSize=").append(c.initialSegmentSize()).append('\n');
        s.append("durability=").append(c.durability().name()).append('\n');
        s.append("flushBytes=").append(c.flushBytes()).append('\n');
        s.append("flushIntervalNanos=").append(c.flushInterval().toNanos()).append('\n');
        s.append("syncIntervalNanos=").append(c.syncInterval().toNanos()).append('\n');
        s.append("preparedSegments=").append(c.preparedSegments()).append('\n');
        s.append("retentionBytes=").append(c.retentionBytes()).append('\n');
        s.append("retentionTimeNanos=").append(c.retentionTime() == null ? -1 : c.retentionTime().toNanos())
            .append('\n');
        s.append("zeroRecycledSegments=").append(c.zeroRecycledSegments()).append('\n');
        return s.toString();
    }

    static LogConfig decode(final String body, final Path path, final String name)
    {
        final Map<String, String> values = new LinkedHashMap<>();
        for (final String line : body.split("\n"))
        {
            final int eq = line.indexOf('=');
            if (eq > 0)
            {
                values.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        try
        {
            final LogConfig.Builder b = LogConfig.builder()
                .segmentSize(Integer.parseInt(required(values, "segmentSize")))
                .durability(Durability.valueOf(required(values, "durability")))
                .flushBytes(Integer.parseInt(required(values, "flushBytes")))
                .flushInterval(Duration.ofNanos(Long.parseLong(required(values, "flushIntervalNanos"))))
                .syncInterval(Duration.ofNanos(Long.parseLong(required(values, "syncIntervalNanos"))))
                .preparedSegments(Integer.parseInt(required(values, "preparedSegments")))
                .retentionBytes(Long.parseLong(required(values, "retentionBytes")))
                .zeroRecycledSegments(Boolean.parseBoolean(required(values, "zeroRecycledSegments")));
            final String initial = values.remove("initialSegmentSize"); // absent in files written before the ladder
            if (initial != null)
            {
                b.initialSegmentSize(Integer.parseInt(initial));
            }
            final long retention = Long.parseLong(required(values, "retentionTimeNanos"));
            b.retentionTime(retention < 0 ? null : Duration.ofNanos(retention));
            if (!values.isEmpty())
            {
                throw new IllegalArgumentException("unknown settings " + values.keySet());
            }
            return b.build();
        }
        catch (final IllegalArgumentException e) // NumberFormatException too
        {
            throw new CorruptLogException("log '" + name + "': " + path + " holds settings this build refuses: " +
                e.getMessage());
        }
    }

    private static String required(final Map<String, String> values, final String key)
    {
        final String v = values.remove(key);
        if (v == null)
        {
            throw new IllegalArgumentException("no " + key);
        }
        return v;
    }

    /**
     * @param current the settings in force.
     * @param asked   the settings asked for.
     * @return the settings that differ, "name current, asked value" each, comma-separated; empty when equal.
     */
    public static String differences(final LogConfig current, final LogConfig asked)
    {
        final String[] a = encode(current).split("\n");
        final String[] b = encode(asked).split("\n");
        final StringBuilder s = new StringBuilder();
        for (int i = 0; i < a.length; i++)
        {
            if (!a[i].equals(b[i]))
            {
                final int eq = a[i].indexOf('=');
                s.append(s.length() == 0 ? "" : "; ").append(a[i], 0, eq).append(' ').append(a[i].substring(eq + 1))
                    .append(", asked ").append(b[i].substring(eq + 1));
            }
        }
        return s.toString();
    }
}
