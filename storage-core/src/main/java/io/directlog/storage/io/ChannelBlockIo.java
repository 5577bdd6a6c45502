package io.directlog.storage.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;

/**
 * What the two I/O layers on the JDK's own {@link FileChannel} share ({@link BufferedBlockIo},
 * {@link JdkDirectBlockIo}): files opened with the JDK's options, and the directory operations. They differ in the
 * options a file is opened with and in whether writes bypass the page cache.
 * <p>
 * Thread-safe.
 */
abstract class ChannelBlockIo implements BlockIo
{
    private final int alignment;

    ChannelBlockIo(final int alignment)
    {
        this.alignment = alignment;
    }

    /** @return the options beyond READ, WRITE, DSYNC and CREATE every file of this layer is opened with. */
    abstract Set<OpenOption> extraOptions();

    @Override
    public final BlockFile open(final Path path, final FileMode mode, final boolean create) throws IOException
    {
        final Set<OpenOption> options = new HashSet<>(extraOptions());
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
        return new ChannelBlockFile(path, FileChannel.open(path, options), isDirect());
    }

    @Override
    public final void rename(final Path from, final Path to) throws IOException
    {
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    }

    @Override
    public final void delete(final Path path) throws IOException
    {
        Files.deleteIfExists(path);
    }

    @Override
    public final List<Path> list(final Path dir) throws IOException
    {
        final List<Path> files = new ArrayList<>();
        try (Stream<Path> stream = Files.list(dir))
        {
            stream.filter(Files::isRegularFile).forEach(files::add);
        }
        return files;
    }

    @Override
    public final boolean exists(final Path path)
    {
        return Files.isRegularFile(path);
    }

    @Override
    public final void createDirectories(final Path dir) throws IOException
    {
        final boolean existed = Files.isDirectory(dir);
        Files.createDirectories(dir);
        if (!existed && dir.toAbsolutePath().getParent() != null)
        {
            syncDirectory(dir.toAbsolutePath().getParent());
        }
    }

    @Override
    public final void createDirectoryUnsynced(final Path dir) throws IOException
    {
        Files.createDirectory(dir);
    }

    @Override
    public final void syncDirectory(final Path dir) throws IOException
    {
        // Linux lets a directory be opened read-only and fsync'ed through a channel
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ))
        {
            channel.force(true);
        }
    }

    @Override
    public final int alignment()
    {
        return alignment;
    }
}
