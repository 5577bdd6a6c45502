package io.directlog.storage.io;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

import io.directlog.storage.spi.BlockFile;

/**
 * A file of a {@link ChannelBlockIo}: positional FileChannel writes and reads, fdatasync by {@code force(false)}.
 * <p>
 * Thread-safe for positional calls (FileChannel's are); close once.
 */
final class ChannelBlockFile implements BlockFile
{
    private final Path path;
    private final FileChannel channel;
    /** Opened with O_DIRECT: every write must be aligned, so a file grows by ftruncate, never by a 1-byte write. */
    private final boolean direct;

    ChannelBlockFile(final Path path, final FileChannel channel, final boolean direct)
    {
        this.path = path;
        this.channel = channel;
        this.direct = direct;
    }

    @Override
    public Path path()
    {
        return path;
    }

    @Override
    public void write(final ByteBuffer source, final int index, final int length, final long position)
        throws IOException
    {
        final ByteBuffer view = source.duplicate();
        view.limit(index + length).position(index);
        long at = position;
        while (view.hasRemaining())
        {
            at += channel.write(view, at);
        }
    }

    @Override
    public int read(final ByteBuffer target, final int index, final int length, final long position)
        throws IOException
    {
        final ByteBuffer view = target.duplicate();
        view.limit(index + length).position(index);
        long at = position;
        while (view.hasRemaining())
        {
            final int n = channel.read(view, at);
            if (n < 0)
            {
                break;
            }
            at += n;
        }
        return view.position() - index;
    }

    @Override
    public void datasync() throws IOException
    {
        channel.force(false);
    }

    @Override
    public void allocate(final long length) throws IOException
    {
        if (channel.size() < length)
        {
            // no fallocate through FileChannel: the zero-fill that follows allocates the blocks for real
            grow(length);
        }
    }

    @Override
    public long size() throws IOException
    {
        return channel.size();
    }

    @Override
    public void truncate(final long length) throws IOException
    {
        if (length > channel.size())
        {
            // ftruncate grows a file (with zeros); FileChannel.truncate leaves a smaller file as it is
            grow(length);
        }
        else
        {
            channel.truncate(length);
        }
    }

    @Override
    public void close() throws IOException
    {
        channel.close();
    }

    /** Grows the file to {@code length} bytes of zeros. */
    private void grow(final long length) throws IOException
    {
        if (direct)
        {
            // an unaligned write is refused under O_DIRECT: ftruncate through a second, buffered descriptor
            try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw"))
            {
                file.setLength(length);
            }
        }
        else
        {
            channel.write(ByteBuffer.allocate(1), length - 1);
        }
    }
}
