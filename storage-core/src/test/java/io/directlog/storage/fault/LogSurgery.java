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

/**
 * Damages a log's files the way the corruption cases need, and finds records in them with its own small
 * parser (not the engine's scanner, so a scanner bug cannot hide itself). Files are changed with buffered
 * writes plus fsync; the engine's O_DIRECT reads see them.
 */
final class LogSurgery
{
    static final int HEADER = 4096;

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

    /** @return the records of a segment's bytes, walked by length until a zero length or a bad one. */
    static List<Found> records(final byte[] segment)
    {
        final ByteBuffer b = ByteBuffer.wrap(segment).order(ByteOrder.nativeOrder());
        final List<Found> found = new ArrayList<>();
        int p = HEADER;
        while (p + 32 <= segment.length)
        {
            final int length = b.getInt(p);
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
