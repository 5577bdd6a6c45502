package io.directlog.storage.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import io.directlog.storage.format.Checksums;
import io.directlog.storage.format.SegmentHeaderDescriptor;
import io.directlog.storage.log.LogFacts;
import io.directlog.storage.page.PageMemory;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The store manifest, {@code <store>/manifest}: every log of a cleanly closed store, written last by the store's
 * close, so that the next open knows every log without reading a log file.
 * <pre>
 *  0 magic "DLOGMANI" (long)   8 version (int)   12 log count (int)   16 body length (long)
 * 24 body, per log:
 *      name length (short), name (ASCII), log id (long), segment size (int), created (long),
 *      checkpoint generation (long), end sequence (long), end position (long), end offset (long),
 *      last record position (long), last record offset (long), segment count (int),
 *      then per segment: sequence (long), base offset (long), capacity (int), block size (int), flags (int:
 *      1 = recycled, 8 = zero-ahead, as in the segment header; version 2 knew only 1)
 * 24 + body length: CRC32C of [0, 24 + body length) (int); zero padding to a multiple of 4 KiB
 * </pre>
 * Written to {@code manifest.tmp}, fdatasync'ed, renamed, the directory fsync'ed: a crash leaves the old state
 * (no manifest: the open recovers every log from its files) or the whole new file.
 * <p>
 * Thread-safe: static functions over the I/O layer.
 */
final class StoreManifest
{
    static final String FILE = "manifest";
    static final String TEMP_FILE = FILE + ".tmp";
    private static final long MAGIC = 0x494E414D474F4C44L; // "DLOGMANI" little-endian
    /**
     * 2: a segment's capacity, block size and flags, the log's created time and checkpoint generation. 3: the
     * zero-ahead flag (a build that knows only 2 opens from the files instead, and refuses the segment headers
     * that carry the flag rather than write such a segment without zero-ahead).
     */
    private static final int VERSION = 3;
    /** The version before the zero-ahead flag, still read. */
    private static final int VERSION_2 = 2;
    private static final int HEADER_LENGTH = 24;
    private static final int CRC_LENGTH = 4;
    private static final int BLOCK = 4096;
    /** Fixed bytes of one log's entry besides its name and segments. */
    private static final int ENTRY_FIXED = 2 + 8 + 4 + 7 * 8 + 4;
    /** Where the segment count is, from the entry's end of name. */
    private static final int COUNT_AT = 8 + 4 + 7 * 8;
    /** Bytes of one segment. */
    private static final int SEGMENT = 8 + 8 + 4 + 4 + 4;
    /** A manifest larger than this is not one this code wrote (10,000 logs of 100 segments each fit). */
    private static final long MAX_LENGTH = 1L << 30;

    /**
     * What the open found.
     *
     * @param logs    the logs, when the manifest is valid; null otherwise.
     * @param present whether a manifest file was there.
     * @param reason  why a manifest that was there is not used, or null.
     */
    record Found(List<LogFacts> logs, boolean present, String reason)
    {
        boolean valid()
        {
            return logs != null;
        }
    }

    private StoreManifest()
    {
    }

    /**
     * Writes the manifest durably (see the class comment).
     *
     * @throws IOException when it cannot be written; a partial file stays under the temporary name only.
     */
    static void write(final BlockIo io, final Path storeDir, final Collection<LogFacts> logs) throws IOException
    {
        long body = 0;
        for (final LogFacts f : logs)
        {
            body += ENTRY_FIXED + f.name().length() + (long)SEGMENT * f.segments().size();
        }
        final long length = HEADER_LENGTH + body + CRC_LENGTH;
        final int alignment = Math.max(io.alignment(), BLOCK);
        final long padded = (length + alignment - 1) / alignment * alignment;
        if (padded > MAX_LENGTH)
        {
            throw new IOException("store manifest of " + logs.size() + " logs would take " + length + " bytes");
        }
        final PageMemory memory = PageMemory.allocate((int)padded, alignment);
        try
        {
            final AtomicBuffer b = memory.buffer();
            b.putLong(0, MAGIC);
            b.putInt(8, VERSION);
            b.putInt(12, logs.size());
            b.putLong(16, body);
            int at = HEADER_LENGTH;
            for (final LogFacts f : logs)
            {
                at = putEntry(b, at, f);
            }
            b.putInt(at, Checksums.crc32c(b, 0, at));
            final Path tmp = storeDir.resolve(TEMP_FILE);
            io.delete(tmp);
            try (BlockFile file = io.open(tmp, FileMode.DIRECT_DSYNC, true))
            {
                file.write(memory.byteBuffer(), 0, (int)padded, 0);
                file.datasync();
            }
            io.rename(tmp, storeDir.resolve(FILE));
            io.syncDirectory(storeDir);
        }
        finally
        {
            memory.free();
        }
    }

    private static int putEntry(final AtomicBuffer b, final int from, final LogFacts f)
    {
        int at = from;
        final byte[] name = f.name().getBytes(StandardCharsets.US_ASCII);
        b.putShort(at, (short)name.length);
        b.putBytes(at + 2, name);
        at += 2 + name.length;
        b.putLong(at, f.logId());
        b.putInt(at + 8, f.segmentSize());
        b.putLong(at + 12, f.created());
        b.putLong(at + 20, f.checkpointGeneration());
        b.putLong(at + 28, f.endSequence());
        b.putLong(at + 36, f.endPosition());
        b.putLong(at + 44, f.endOffset());
        b.putLong(at + 52, f.lastRecordPosition());
        b.putLong(at + 60, f.lastRecordOffset());
        b.putInt(at + COUNT_AT, f.segments().size());
        at += COUNT_AT + 4;
        for (final LogFacts.SegmentFacts s : f.segments())
        {
            b.putLong(at, s.sequence());
            b.putLong(at + 8, s.baseOffset());
            b.putInt(at + 16, s.capacity());
            b.putInt(at + 20, s.blockSize());
            b.putInt(at + 24, (s.recycled() ? SegmentHeaderDescriptor.FLAG_RECYCLED : 0) |
                (s.zeroAhead() ? SegmentHeaderDescriptor.FLAG_ZERO_AHEAD : 0));
            at += SEGMENT;
        }
        return at;
    }

    /**
     * Reads the manifest, if there is one.
     *
     * @throws IOException when the directory or the file cannot be read.
     */
    static Found read(final BlockIo io, final Path storeDir) throws IOException
    {
        final Path path = storeDir.resolve(FILE);
        if (!io.exists(path))
        {
            return new Found(null, false, null);
        }
        final int alignment = Math.max(io.alignment(), BLOCK);
        try (BlockFile file = io.open(path, FileMode.READ, false))
        {
            final long size = file.size();
            if (size < BLOCK || size % alignment != 0 || size > MAX_LENGTH)
            {
                return invalid("its size " + size + " is not a positive multiple of " + alignment + " up to " +
                    MAX_LENGTH);
            }
            final PageMemory memory = PageMemory.allocate((int)size, alignment);
            try
            {
                final int n = file.read(memory.byteBuffer(), 0, (int)size, 0);
                if (n < size)
                {
                    return invalid("read " + n + " of its " + size + " bytes");
                }
                return parse(memory.buffer(), (int)size);
            }
            finally
            {
                memory.free();
            }
        }
    }

    private static Found parse(final AtomicBuffer b, final int size)
    {
        if (b.getLong(0) != MAGIC)
        {
            return invalid("bad magic");
        }
        if (b.getInt(8) != VERSION && b.getInt(8) != VERSION_2)
        {
            return invalid("unsupported version " + b.getInt(8));
        }
        final long body = b.getLong(16);
        if (body < 0 || HEADER_LENGTH + body + CRC_LENGTH > size)
        {
            return invalid("body length " + body + " does not fit its " + size + " bytes");
        }
        final int end = HEADER_LENGTH + (int)body;
        if (b.getInt(end) != Checksums.crc32c(b, 0, end))
        {
            return invalid("CRC32C mismatch");
        }
        final int count = b.getInt(12);
        final List<LogFacts> logs = new ArrayList<>();
        int at = HEADER_LENGTH;
        for (int i = 0; i < count; i++)
        {
            if (at + ENTRY_FIXED > end)
            {
                return invalid("entry " + i + " of " + count + " runs past the body");
            }
            final int nameLength = b.getShort(at);
            final int segments = nameLength < 1 || at + ENTRY_FIXED + nameLength > end ? -1 :
                b.getInt(at + 2 + nameLength + COUNT_AT);
            if (segments < 0 || at + ENTRY_FIXED + nameLength + (long)SEGMENT * segments > end)
            {
                return invalid("entry " + i + " of " + count + " runs past the body");
            }
            final String name = b.getStringWithoutLengthAscii(at + 2, nameLength);
            at += 2 + nameLength;
            final List<LogFacts.SegmentFacts> list = new ArrayList<>(segments);
            for (int s = 0; s < segments; s++)
            {
                final int from = at + COUNT_AT + 4 + SEGMENT * s;
                list.add(new LogFacts.SegmentFacts(b.getLong(from), b.getLong(from + 8), b.getInt(from + 16),
                    b.getInt(from + 20), (b.getInt(from + 24) & SegmentHeaderDescriptor.FLAG_RECYCLED) != 0,
                    (b.getInt(from + 24) & SegmentHeaderDescriptor.FLAG_ZERO_AHEAD) != 0));
            }
            logs.add(new LogFacts(name, b.getLong(at), b.getInt(at + 8), b.getLong(at + 12), b.getLong(at + 20),
                b.getLong(at + 28), b.getLong(at + 36), b.getLong(at + 44), b.getLong(at + 52), b.getLong(at + 60),
                list));
            at += COUNT_AT + 4 + SEGMENT * segments;
        }
        return at == end ? new Found(List.copyOf(logs), true, null) :
            invalid("its " + count + " entries end at byte " + at + ", not at the body's end " + end);
    }

    private static Found invalid(final String reason)
    {
        return new Found(null, true, reason);
    }
}
