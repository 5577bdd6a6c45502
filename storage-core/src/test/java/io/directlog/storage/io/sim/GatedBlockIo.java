package io.directlog.storage.io.sim;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.io.DelegatingBlockFile;
import io.directlog.storage.io.DelegatingBlockIo;
import io.directlog.storage.spi.FileMode;

/**
 * A {@link BlockIo} whose calls from one named thread wait while its gate is shut: given to a background thread
 * (the segment preparer), it lets a test run that thread's I/O only between the foreground's operations, so the
 * trace of a workload is the same on every run and a seed reproduces a crash state. Calls from other threads
 * pass (the writer writes through descriptors the preparer opened).
 * <p>
 * Thread-safe.
 */
public final class GatedBlockIo extends DelegatingBlockIo
{
    private final String threadName;
    private boolean open;

    /**
     * @param delegate   the device.
     * @param threadName the thread whose calls the gate holds.
     */
    public GatedBlockIo(final BlockIo delegate, final String threadName)
    {
        super(delegate);
        this.threadName = threadName;
    }

    /**
     * Opens or shuts the gate.
     *
     * @param open true to let calls through.
     */
    public synchronized void open(final boolean open)
    {
        this.open = open;
        notifyAll();
    }

    private synchronized void pass() throws IOException
    {
        if (!Thread.currentThread().getName().equals(threadName))
        {
            return;
        }
        while (!open)
        {
            try
            {
                wait();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted at the gate", e);
            }
        }
    }

    @Override
    public BlockFile open(final Path path, final FileMode mode, final boolean create) throws IOException
    {
        pass();
        return new GatedFile(delegate().open(path, mode, create));
    }

    @Override
    public void rename(final Path from, final Path to) throws IOException
    {
        pass();
        delegate().rename(from, to);
    }

    @Override
    public void delete(final Path path) throws IOException
    {
        pass();
        delegate().delete(path);
    }

    @Override
    public List<Path> list(final Path dir) throws IOException
    {
        pass();
        return delegate().list(dir);
    }

    @Override
    public void createDirectories(final Path dir) throws IOException
    {
        pass();
        delegate().createDirectories(dir);
    }

    @Override
    public void syncDirectory(final Path dir) throws IOException
    {
        pass();
        delegate().syncDirectory(dir);
    }

    @Override
    public String describe()
    {
        return "gated " + delegate().describe();
    }

    private final class GatedFile extends DelegatingBlockFile
    {
        GatedFile(final BlockFile file)
        {
            super(file);
        }

        @Override
        public void write(final ByteBuffer source, final int index, final int length, final long position)
            throws IOException
        {
            pass();
            delegate().write(source, index, length, position);
        }

        @Override
        public int read(final ByteBuffer target, final int index, final int length, final long position)
            throws IOException
        {
            pass();
            return delegate().read(target, index, length, position);
        }

        @Override
        public void datasync() throws IOException
        {
            pass();
            delegate().datasync();
        }

        @Override
        public void allocate(final long length) throws IOException
        {
            pass();
            delegate().allocate(length);
        }

        @Override
        public long size() throws IOException
        {
            pass();
            return delegate().size();
        }

        @Override
        public void truncate(final long length) throws IOException
        {
            pass();
            delegate().truncate(length);
        }

        @Override
        public void close() throws IOException
        {
            pass();
            delegate().close();
        }
    }
}
