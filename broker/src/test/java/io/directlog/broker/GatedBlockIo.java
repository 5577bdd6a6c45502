package io.directlog.broker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.io.BufferedBlockIo;
import io.directlog.storage.io.DelegatingBlockFile;
import io.directlog.storage.io.DelegatingBlockIo;
import io.directlog.storage.spi.FileMode;

/**
 * A device whose writes to partition logs ({@code p.*} directories) can be held: while closed, such a write waits
 * until {@link #open()}. Stalls the engine's writer the way a slow disk does, so its queue fills and appends wait
 * for room. Every other operation goes to buffered I/O at once.
 */
final class GatedBlockIo extends DelegatingBlockIo
{
    private volatile CountDownLatch gate = new CountDownLatch(0);
    private final CountDownLatch held = new CountDownLatch(1);

    GatedBlockIo()
    {
        super(new BufferedBlockIo(4096));
    }

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
     * @param timeout how long to wait.
     * @param unit    its unit.
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
        final BlockFile file = delegate().open(path, mode, create);
        if (!path.getParent().getFileName().toString().startsWith("p."))
        {
            return file;
        }
        return new DelegatingBlockFile(file)
        {
            @Override
            public void write(final ByteBuffer source, final int index, final int length, final long position)
                throws IOException
            {
                awaitGate();
                super.write(source, index, length, position);
            }
        };
    }

    @Override
    public String describe()
    {
        return "gated " + delegate().describe();
    }

    private void awaitGate() throws IOException
    {
        final CountDownLatch g = gate;
        if (g.getCount() == 0)
        {
            return;
        }
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
}
