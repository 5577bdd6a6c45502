package io.directlog.storage.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

import io.directlog.storage.spi.BlockFile;

/**
 * A {@link BlockFile} for tests that forwards every call to a delegate, so a wrapper overrides only the calls it
 * changes (see {@link DelegatingBlockIo}).
 */
public abstract class DelegatingBlockFile implements BlockFile
{
    private final BlockFile delegate;

    /** @param delegate the file calls go to. */
    protected DelegatingBlockFile(final BlockFile delegate)
    {
        this.delegate = delegate;
    }

    /** @return the file calls go to. */
    protected final BlockFile delegate()
    {
        return delegate;
    }

    @Override
    public Path path()
    {
        return delegate.path();
    }

    @Override
    public void write(final ByteBuffer source, final int index, final int length, final long position)
        throws IOException
    {
        delegate.write(source, index, length, position);
    }

    @Override
    public int read(final ByteBuffer target, final int index, final int length, final long position)
        throws IOException
    {
        return delegate.read(target, index, length, position);
    }

    @Override
    public void datasync() throws IOException
    {
        delegate.datasync();
    }

    @Override
    public void allocate(final long length) throws IOException
    {
        delegate.allocate(length);
    }

    @Override
    public long size() throws IOException
    {
        return delegate.size();
    }

    @Override
    public void truncate(final long length) throws IOException
    {
        delegate.truncate(length);
    }

    @Override
    public void close() throws IOException
    {
        delegate.close();
    }
}
