package io.directlog.storage.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

import io.directlog.nativeio.DsyncWrites;
import io.directlog.nativeio.NativeFile;
import io.directlog.nativeio.NativeIoException;
import io.directlog.nativeio.OpenFlags;

/**
 * The O_DSYNC handle of a segment on the descriptor its O_DIRECT handle holds: writes go through
 * {@code pwritev2(RWF_DSYNC)}, durable at completion as through a descriptor opened with O_DSYNC (a FUA write
 * where the device has one, else a write and a cache flush), so a segment costs one descriptor, not two.
 * <p>
 * Where the kernel refuses the flag (ENOSYS, EOPNOTSUPP: before Linux 4.7), the first write opens a descriptor of
 * its own with O_DSYNC and every later one uses it; the refused write changed nothing, so it is simply repeated.
 * The shared descriptor is closed when this view and its O_DIRECT handle both are.
 * <p>
 * Thread-safe.
 */
final class NativeDsyncView extends NativeFileHandle
{
    /** Releases this view's hold on the shared descriptor. */
    interface Release
    {
        void release() throws IOException;
    }

    private final Release release;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The O_DSYNC descriptor of a kernel without RWF_DSYNC, opened at the first write. */
    private volatile NativeFile fallback;

    NativeDsyncView(final NativeFile file, final Release release)
    {
        super(file);
        this.release = release;
    }

    @Override
    public void write(final ByteBuffer source, final int index, final int length, final long position)
        throws IOException
    {
        final long address = address(source, index, length);
        NativeFile own = fallback;
        if (own == null)
        {
            try
            {
                file.writeDsyncFully(address, length, position);
                return;
            }
            catch (final NativeIoException e)
            {
                if (DsyncWrites.isSupported())
                {
                    throw e;
                }
                own = openFallback();
            }
        }
        own.writeFully(address, length, position);
    }

    private synchronized NativeFile openFallback() throws IOException
    {
        if (closed.get())
        {
            throw new IOException(file.path() + " is closed");
        }
        if (fallback == null)
        {
            fallback = NativeFile.open(file.path(), OpenFlags.CLOEXEC | OpenFlags.DIRECT | OpenFlags.READ_WRITE |
                OpenFlags.DSYNC, 0644);
        }
        return fallback;
    }

    @Override
    public void close() throws IOException
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        synchronized (this)
        {
            final NativeFile own = fallback;
            if (own != null)
            {
                own.close();
            }
        }
        release.release();
    }
}
