package io.directlog.broker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.io.BufferedBlockIo;
import io.directlog.storage.spi.FileMode;

/**
 * A device whose writes to partition logs ({@code p.*} directories) can be held: while closed, such a write waits
 * until {@link #open()}. Stalls the engine's writer the way a slow disk does, so its queue fills and appends wait
 * for room. Every other operation goes to buffered I/O at once.
 */
final class GatedBlockIo implements BlockIo
{
    private final BlockIo device = new BufferedBlockIo(4096);
    private volatile CountDownLatch gate = new CountDownLatch(0);
    private final CountDownLatch held = new CountDownLatch(1);

    /** Holds partition-log writes from now on. */
    void close()
    {
        gate = new CountDownLatch(1);
    }

    /** Lets held and later writes through. */
    void open()
    {
        gate.countDown();
    }

    /**
     * @return true when a partition-log write was held within the timeout.
     * @throws InterruptedException when interrupted.
     */
    boolean awaitHeldWrite(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        return held.await(timeout, unit);
    }

    @Override
    public BlockFile open(final Path path, final FileMode mode, final boolean create) throws IOException
    {
        final BlockFile file = device.open(path, mode, create);
        if (!path.getParent().getFileName().toString().startsWith("p."))
        {
            return file;
        }
        return new BlockFile()
        {
            @Override
            public Path path()
            {
                return file.path();
            }

            @Override
            public void write(final ByteBuffer source, final int index, final int length, final long position)
                throws IOException
            {
                final CountDownLatch g = gate;
                if (g.getCount() > 0)
                {
                    held.countDown();
                    try
                    {
                        if (!g.await(2, TimeUnit.MINUTES))
                        {
                            throw new IOException("test gate never opened");
                        }
                    }
                    catch (final InterruptedException e)
                    {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted at the test gate", e);
                    }
                }
                file.write(source, index, length, position);
            }

            @Override
            public int read(final ByteBuffer target, final int index, final int length, final long position)
                throws IOException
            {
                return file.read(target, index, length, position);
            }

            @Override
            public void datasync() throws IOException
            {
                file.datasync();
            }

            @Override
            public void allocate(final long length) throws IOException
            {
                file.allocate(length);
            }

            @Override
            public long size() throws IOException
            {
                return file.size();
            }

            @Override
            public void truncate(final long length) throws IOException
            {
                file.truncate(length);
            }

            @Override
            public void close() throws IOException
            {
                file.close();
            }
        };
    }

    @Override
    public void rename(final Path from, final Path to) throws IOException
    {
        device.rename(from, to);
    }

    @Override
    public void delete(final Path path) throws IOException
    {
        device.delete(path);
    }

    @Override
    public List<Path> list(final Path dir) throws IOException
    {
        return device.list(dir);
    }

    @Override
    public void createDirectories(final Path dir) throws IOException
    {
        device.createDirectories(dir);
    }

    @Override
    public void syncDirectory(final Path dir) throws IOException
    {
        device.syncDirectory(dir);
    }

    @Override
    public int alignment()
    {
        return device.alignment();
    }

    @Override
    public boolean isDirect()
    {
        return device.isDirect();
    }

    @Override
    public String describe()
    {
        return "gated " + device.describe();
    }

    @Override
    public boolean exists(final Path path) throws IOException
    {
        return device.exists(path);
    }
}
