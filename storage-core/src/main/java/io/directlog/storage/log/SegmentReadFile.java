package io.directlog.storage.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.directlog.storage.spi.BlockFile;

/**
 * A segment's read descriptor (issue 18): opened by the first read that misses the cache, closed again once no read
 * used it for a while ({@link #closeIfIdle}), so descriptors follow reading, not the number of segments a store
 * holds. A later read opens it again.
 * <p>
 * A read never runs on a closed descriptor, nor on a number the kernel gave to another file since: it holds a
 * {@link Lease} for the call, a reference count the idle close only drops its own share of; the descriptor closes
 * when the last holder lets go. Taking a lease is a CAS, no lock: the writer thread, which may close idle
 * descriptors, never waits for a reader, and a reader waits for nobody but its own open(2).
 * <p>
 * Thread-safe.
 */
final class SegmentReadFile
{
    /** Opens the descriptor (the log's I/O layer, READ mode). */
    interface Opener
    {
        BlockFile open() throws IOException;
    }

    /** One open descriptor and its holders: this object while it is current, and each read in flight. */
    static final class Lease
    {
        private final BlockFile file;
        private final AtomicInteger holders;

        private Lease(final BlockFile file, final int holders)
        {
            this.file = file;
            this.holders = new AtomicInteger(holders);
        }

        /** @return false once the last holder let go: the descriptor is closed (or closing). */
        private boolean retain()
        {
            int h;
            do
            {
                h = holders.get();
                if (h == 0)
                {
                    return false;
                }
            }
            while (!holders.compareAndSet(h, h + 1));
            return true;
        }

        private void release()
        {
            if (holders.decrementAndGet() == 0)
            {
                try
                {
                    file.close();
                }
                catch (final IOException ignore)
                {
                    // a read descriptor: nothing was written through it
                }
            }
        }
    }

    private final Opener opener;
    private final AtomicReference<Lease> current = new AtomicReference<>();
    private volatile long lastUsedNanos = System.nanoTime();
    private volatile boolean closedForGood;

    SegmentReadFile(final Opener opener)
    {
        this.opener = opener;
    }

    /**
     * Reads through the descriptor, opening it if it is closed.
     *
     * @see BlockFile#read
     * @throws ClosedChannelException once {@link #closeForGood()} ran (the log closed, the segment deleted).
     */
    int read(final ByteBuffer target, final int index, final int length, final long position) throws IOException
    {
        final Lease lease = acquire();
        try
        {
            lastUsedNanos = System.nanoTime();
            return lease.file.read(target, index, length, position);
        }
        finally
        {
            lease.release();
        }
    }

    private Lease acquire() throws IOException
    {
        while (true)
        {
            if (closedForGood)
            {
                throw new ClosedChannelException();
            }
            final Lease held = current.get();
            if (held == null)
            {
                final Lease opened = new Lease(opener.open(), 2); // current's share and this read's
                if (!current.compareAndSet(null, opened))
                {
                    opened.release();
                    opened.release(); // another read opened it first: use that one
                    continue;
                }
                if (closedForGood)
                {
                    if (current.compareAndSet(opened, null))
                    {
                        opened.release(); // closed for good while this read opened: current's share goes here
                    }
                    opened.release();
                    throw new ClosedChannelException();
                }
                return opened;
            }
            if (held.retain())
            {
                return held;
            }
            current.compareAndSet(held, null); // closed by an idle close whose CAS this read saw late
        }
    }

    /**
     * Closes the descriptor if no read used it for {@code idleNanos}; reads in flight keep it open until they end.
     *
     * @return true when a descriptor was let go of.
     */
    boolean closeIfIdle(final long nowNanos, final long idleNanos)
    {
        final Lease held = current.get();
        if (held == null || nowNanos - lastUsedNanos < idleNanos || !current.compareAndSet(held, null))
        {
            return false;
        }
        held.release();
        return true;
    }

    /** @return true while a descriptor is open (or held by a read in flight past an idle close). */
    boolean isOpen()
    {
        return current.get() != null;
    }

    /** Closes the descriptor (once reads in flight end); later reads fail. */
    void closeForGood()
    {
        closedForGood = true;
        final Lease held = current.getAndSet(null);
        if (held != null)
        {
            held.release();
        }
    }
}
