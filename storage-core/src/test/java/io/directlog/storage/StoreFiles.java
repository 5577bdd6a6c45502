package io.directlog.storage;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import io.directlog.storage.format.RecordDescriptor;

/** Test helpers over a store's files: crash images by copying, the checkpoint's fields, segment files, bit flips. */
final class StoreFiles
{
    private StoreFiles()
    {
    }

    /** Copies a store directory while the store is open: what a process crash leaves behind (for O_DIRECT writes). */
    static Path crashImage(final Path dir, final String name) throws IOException
    {
        final Path copy = TestDirs.create(name);
        final List<Path> all = listAll(dir);
        {
            for (final Path p : all)
            {
                final Path to = copy.resolve(dir.relativize(p).toString());
                if (Files.isDirectory(p))
                {
                    Files.createDirectories(to);
                }
                else if (!p.getFileName().toString().equals("store.lock") && !p.toString().endsWith(".tmp"))
                {
                    try
                    {
                        Files.copy(p, to, StandardCopyOption.REPLACE_EXISTING);
                    }
                    catch (final java.nio.file.NoSuchFileException gone)
                    {
                        // renamed or deleted by a background thread meanwhile: a crash would not have it either
                    }
                }
            }
        }
        return copy;
    }

    /**
     * Every path under {@code dir}. A background thread (the preparer's temp file, a roll) may remove a file while
     * {@code Files.walk} looks at it, which fails the walk: walk again, a bounded number of times.
     */
    private static List<Path> listAll(final Path dir) throws IOException
    {
        java.io.UncheckedIOException last = null;
        for (int attempt = 0; attempt < 20; attempt++)
        {
            try (Stream<Path> files = Files.walk(dir))
            {
                return files.toList();
            }
            catch (final java.io.UncheckedIOException e)
            {
                if (!(e.getCause() instanceof java.nio.file.NoSuchFileException))
                {
                    throw e;
                }
                last = e;
            }
        }
        throw last;
    }

    /** The newest valid checkpoint slot's fields: {generation, sequence, position, offset, flags}, or null. */
    static long[] checkpoint(final Path logDir) throws IOException
    {
        final Path file = logDir.resolve("checkpoint");
        if (!Files.exists(file))
        {
            return null;
        }
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        long[] best = null;
        for (int slot = 0; slot + 4096 <= b.capacity(); slot += 4096)
        {
            if (b.getLong(slot) != 0x31504B43474F4C44L)
            {
                continue;
            }
            final long generation = b.getLong(slot + 16);
            if (best == null || generation > best[0])
            {
                best = new long[] {generation, b.getLong(slot + 32), b.getLong(slot + 40), b.getLong(slot + 48),
                    b.getInt(slot + 12)};
            }
        }
        return best;
    }

    /** Waits (bounded) until the checkpoint's watermark offset reaches {@code offset}. */
    static void awaitWatermark(final Path logDir, final long offset) throws IOException
    {
        awaitCondition(() ->
        {
            try
            {
                final long[] c = checkpoint(logDir);
                return c != null && c[3] >= offset;
            }
            catch (final IOException e)
            {
                return false;
            }
        }, "watermark reaching offset " + offset + " in " + logDir);
    }

    static void awaitCondition(final BooleanSupplier condition, final String what)
    {
        final long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out waiting for " + what);
            }
            LockSupport.parkNanos(5_000_000);
        }
    }

    /** The log's segment files, in sequence order. */
    static List<Path> segments(final Path logDir) throws IOException
    {
        try (Stream<Path> s = Files.list(logDir))
        {
            return s.filter(p -> p.getFileName().toString().matches("\\d{20}\\.log")).sorted().toList();
        }
    }

    static void flip(final Path file, final long position) throws IOException
    {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw"))
        {
            f.seek(position);
            final int b = f.read();
            f.seek(position);
            f.write(b ^ 0x40);
        }
    }

    static void write(final Path file, final long position, final byte[] bytes) throws IOException
    {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw"))
        {
            f.seek(position);
            f.write(bytes);
        }
    }

    /**
     * @return the last non-zero byte of the records in a segment file: the gap the last write left after them
     * (a zero length field, then filler up to a 4 KiB boundary) is skipped; -1 when there is none.
     */
    static long lastRecordByte(final Path file) throws IOException
    {
        final byte[] b = Files.readAllBytes(file);
        int i = b.length - 1;
        while (i >= 0 && b[i] == 0)
        {
            i--;
        }
        if (i >= 0 && b[i] == RecordDescriptor.GAP_FILL && (i + 1) % 4096 == 0)
        {
            while (i >= 0 && b[i] == RecordDescriptor.GAP_FILL)
            {
                i--;
            }
            i -= 4; // the gap's zero length field
            while (i >= 0 && b[i] == 0)
            {
                i--;
            }
        }
        return i;
    }

    static byte[] read(final Path file, final long position, final int length) throws IOException
    {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r"))
        {
            final byte[] b = new byte[length];
            f.seek(position);
            f.readFully(b);
            return b;
        }
    }
}
