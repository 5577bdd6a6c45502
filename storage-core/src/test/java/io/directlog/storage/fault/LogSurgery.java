package io.directlog.storage.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.directlog.storage.format.RecordDescriptor;

/**
 * Damages a log's files the way the corruption cases need, and finds records in them with its own small
 * parser (not the engine's scanner, so a scanner bug cannot hide itself). Files are changed with buffered
 * writes plus fsync; the engine's O_DIRECT reads see them.
 */
final class LogSurgery
{
    static final int HEADER = 4096;
    /** The format's gap filler (RecordDescriptor.GAP_FILL), spelled here again on purpose: an independent parser. */
    static final byte GAP_FILL = 0x5A;

    /** Where a record lies in its segment. */
    record Found(int position, int length, long offset)
    {
        int aligned()
        {
            return (length + 7) & -8;
        }
    }

    private LogSurgery()
    {
    }

    static Path segment(final Path logDir, final long sequence)
    {
        return logDir.resolve(String.format("%020d.log", sequence));
    }

    static byte[] read(final Path file)
    {
        try
        {
            return Files.readAllBytes(file);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    static void write(final Path file, final long position, final byte[] bytes)
    {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            final ByteBuffer b = ByteBuffer.wrap(bytes);
            long at = position;
            while (b.hasRemaining())
            {
                at += ch.write(b, at);
            }
            ch.force(false);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    static void truncate(final Path file, final long length)
    {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            ch.truncate(length);
            ch.force(true);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    static void flipBit(final Path file, final long position, final int bit)
    {
        final byte[] one = new byte[1];
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ))
        {
            ch.read(ByteBuffer.wrap(one), position);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        one[0] ^= (byte)(1 << bit);
        write(file, position, one);
    }

    static void putInt(final Path file, final long position, final int value)
    {
        write(file, position, ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(value).array());
    }

    /**
     * @return the records of a segment's bytes, walked by length until a zero length or a bad one; a zero length
     * off a block boundary (the header's block size) is a gap when a record follows at the boundary.
     */
    static List<Found> records(final byte[] segment)
    {
        final ByteBuffer b = ByteBuffer.wrap(segment).order(ByteOrder.nativeOrder());
        final int block = b.getInt(44);
        final List<Found> found = new ArrayList<>();
        int p = HEADER;
        while (p + 32 <= segment.length)
        {
            int length = b.getInt(p);
            if (length == 0 && block > 0 && p % block != 0)
            {
                final int next = (p / block + 1) * block;
                if (next + 32 > segment.length || b.getInt(next) < 32)
                {
                    break;
                }
                p = next;
                length = b.getInt(p);
            }
            if (length < 32 || p + ((length + 7) & -8) > segment.length)
            {
                break;
            }
            found.add(new Found(p, length, b.getLong(p + 8)));
            p += (length + 7) & -8;
        }
        return found;
    }

    /** @return true when bytes {@code [from, to)} of the file (or as many as it has) are zero. */
    static boolean zeroFrom(final Path file, final int from, final int to)
    {
        final ByteBuffer b = ByteBuffer.allocate(to - from);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ))
        {
            ch.read(b, from);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        for (int i = 0; i < b.position(); i++)
        {
            if (b.get(i) != 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @return true when the bytes after a recovered end {@code end} are what the format allows there: a gap to the
     * next 4 KiB boundary (a zero length, then sectors of filler or zeros), then zeros to the file's end.
     */
    static boolean cleanAfter(final Path file, final int end)
    {
        final byte[] bytes = read(file);
        final int boundary = (end + 4095) & -4096;
        if (boundary > end && (end + 4 > bytes.length || bytes[end] != 0 || bytes[end + 1] != 0 || bytes[end + 2] != 0 ||
            bytes[end + 3] != 0))
        {
            return false;
        }
        // a recycled segment's write ends its gap with a write mark (FLAG_WRITE_MARKS: the last 24 bytes before the
        // block boundary, when the gap holds them); the rest of the gap is gap fill or zeros, sector by sector
        final int mark = RecordDescriptor.WRITE_MARK_LENGTH;
        final int gapEnd = boundary - end >= mark ? boundary - mark : boundary;
        for (int at = end + 4; at < Math.min(gapEnd, bytes.length); )
        {
            final int sectorEnd = Math.min(gapEnd, (at & -512) + 512);
            final byte first = bytes[at];
            if (first != 0 && first != GAP_FILL)
            {
                return false;
            }
            for (int i = at; i < sectorEnd; i++)
            {
                if (bytes[i] != first)
                {
                    return false;
                }
            }
            at = sectorEnd;
        }
        for (int i = boundary; i < bytes.length; i++)
        {
            if (bytes[i] != 0)
            {
                return false;
            }
        }
        return true;
    }

    /** @return true when every byte from {@code from} to the file's end is zero. */
    static boolean zeroFrom(final Path file, final int from)
    {
        final byte[] bytes = read(file);
        for (int i = from; i < bytes.length; i++)
        {
            if (bytes[i] != 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Copies a store's log files as they are on disk now: with the store still open, that is the state a
     * SIGKILL would leave (every acknowledged O_DIRECT write is in the file), taken without killing this JVM.
     */
    static void crashImage(final Path storeDir, final String log, final Path targetStoreDir)
    {
        try
        {
            final Path to = targetStoreDir.resolve(log);
            Files.createDirectories(to);
            try (Stream<Path> files = Files.list(storeDir.resolve(log)))
            {
                for (final Path f : (Iterable<Path>)files::iterator)
                {
                    final String name = f.getFileName().toString();
                    if (!name.endsWith(".tmp"))
                    {
                        Files.copy(f, to.resolve(name));
                    }
                }
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }
}
