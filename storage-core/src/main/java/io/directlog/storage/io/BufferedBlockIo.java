package io.directlog.storage.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;

/**
 * The fallback where O_DIRECT is unavailable (native I/O switched off, an unsupported OS, a filesystem that
 * refuses O_DIRECT): buffered FileChannel I/O. {@link #isDirect()} is false, which tells the engine to follow
 * every write that acknowledges DIRECT or DSYNC appends with fdatasync, so each mode keeps its promise at the
 * price of a journal-free but cache-flushing sync per group commit.
 * <p>
 * Thread-safe.
 */
public final class BufferedBlockIo implements BlockIo
{
    private final int alignment;

    /**
     * @param alignment the block size the engine aligns to anyway (4096).
     */
    public BufferedBlockIo(final int alignment)
    {
        this.alignment = alignment;
    }

    @Override
    public BlockFile open(final Path path, final FileMode mode, final boolean create) throws IOException
    {
        final Set<OpenOption> options = new java.util.HashSet<>();
        options.add(StandardOpenOption.READ);
        if (mode != FileMode.READ)
        {
            options.add(StandardOpenOption.WRITE);
        }
        if (mode == FileMode.DIRECT_DSYNC)
        {
            options.add(StandardOpenOption.DSYNC);
        }
        if (create)
        {
            options.add(StandardOpenOption.CREATE);
        }
        return new ChannelBlockFile(path, FileChannel.open(path, options));
    }

    @Override
    public void rename(final Path from, final Path to) throws IOException
    {
        Files.move(from, to, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    @Override
    public void delete(final Path path) throws IOException
    {
        Files.deleteIfExists(path);
    }

    @Override
    public List<Path> list(final Path dir) throws IOException
    {
        final List<Path> files = new ArrayList<>();
        try (Stream<Path> stream = Files.list(dir))
        {
            stream.filter(Files::isRegularFile).forEach(files::add);
        }
        return files;
    }

    @Override
    public boolean exists(final Path path)
    {
        return Files.isRegularFile(path);
    }

    @Override
    public void createDirectories(final Path dir) throws IOException
    {
        final boolean existed = Files.isDirectory(dir);
        Files.createDirectories(dir);
        if (!existed && dir.toAbsolutePath().getParent() != null)
        {
            syncDirectory(dir.toAbsolutePath().getParent());
        }
    }

    @Override
    public void createDirectoryUnsynced(final Path dir) throws IOException
    {
        Files.createDirectory(dir);
    }

    @Override
    public void syncDirectory(final Path dir) throws IOException
    {
        // Linux lets a directory be opened read-only and fsync'ed through a channel
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ))
        {
            channel.force(true);
        }
    }

    @Override
    public int alignment()
    {
        return alignment;
    }

    @Override
    public boolean isDirect()
    {
        return false;
    }

    @Override
    public String describe()
    {
        return "buffered FileChannel with fdatasync per durable flush (O_DIRECT unavailable)";
    }

    private static final class ChannelBlockFile implements BlockFile
    {
        private final Path path;
        private final FileChannel channel;

        ChannelBlockFile(final Path path, final FileChannel channel)
        {
            this.path = path;
            this.channel = channel;
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
                channel.write(ByteBuffer.allocate(1), length - 1);
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
                channel.write(ByteBuffer.allocate(1), length - 1);
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
    }
}
