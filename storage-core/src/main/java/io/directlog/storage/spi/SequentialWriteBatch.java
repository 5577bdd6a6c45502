package io.directlog.storage.spi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The default {@link BlockWriteBatch}: each write through its {@link BlockFile#write}, one after another, in the
 * order added; what one throws is that write's failure. Arrays grow to the largest batch seen and are reused.
 * <p>
 * Not thread-safe: one owner thread.
 */
public final class SequentialWriteBatch implements BlockWriteBatch
{
    private BlockFile[] files = new BlockFile[16];
    private ByteBuffer[] sources = new ByteBuffer[16];
    private int[] indexes = new int[16];
    private int[] lengths = new int[16];
    private long[] positions = new long[16];
    private Throwable[] failures = new Throwable[16];
    private int size;

    /** An empty batch. */
    public SequentialWriteBatch()
    {
    }

    @Override
    public int add(final BlockFile file, final ByteBuffer source, final int index, final int length,
        final long position)
    {
        if (size == files.length)
        {
            final int grown = size * 2;
            files = Arrays.copyOf(files, grown);
            sources = Arrays.copyOf(sources, grown);
            indexes = Arrays.copyOf(indexes, grown);
            lengths = Arrays.copyOf(lengths, grown);
            positions = Arrays.copyOf(positions, grown);
            failures = Arrays.copyOf(failures, grown);
        }
        files[size] = file;
        sources[size] = source;
        indexes[size] = index;
        lengths[size] = length;
        positions[size] = position;
        failures[size] = null;
        return size++;
    }

    @Override
    public int size()
    {
        return size;
    }

    @Override
    public void writeAll()
    {
        for (int i = 0; i < size; i++)
        {
            failures[i] = write(files[i], sources[i], indexes[i], lengths[i], positions[i]);
        }
    }

    /**
     * One write through {@link BlockFile#write}.
     *
     * @param file     the file.
     * @param source   the bytes' buffer.
     * @param index    the first byte in it.
     * @param length   how many bytes.
     * @param position where in the file.
     * @return null when written, else what the write threw (an Error too: it fails that write, not the batch).
     */
    public static Throwable write(final BlockFile file, final ByteBuffer source, final int index, final int length,
        final long position)
    {
        try
        {
            file.write(source, index, length, position);
            return null;
        }
        catch (final IOException | RuntimeException | Error e)
        {
            return e;
        }
    }

    @Override
    public Throwable failure(final int write)
    {
        if (write < 0 || write >= size)
        {
            throw new IndexOutOfBoundsException("write " + write + " of a batch of " + size);
        }
        return failures[write];
    }

    @Override
    public void clear()
    {
        Arrays.fill(files, 0, size, null);
        Arrays.fill(sources, 0, size, null);
        Arrays.fill(failures, 0, size, null);
        size = 0;
    }

    @Override
    public void close()
    {
        clear();
    }
}
