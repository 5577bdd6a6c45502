package io.directlog.storage.io;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;

/**
 * A {@link BlockIo} for tests that forwards every call to a delegate, so a wrapper that injects faults, gates
 * threads or records calls overrides only the calls it changes.
 * <p>
 * {@link #exists} and {@link #listDirectories} are deliberately not forwarded: the interface defaults run
 * through this wrapper's own {@link #list}, so a wrapper that intercepts {@code list} intercepts them too,
 * as every wrapper did before this class existed. A wrapper that wants the delegate's versions overrides them.
 * <p>
 * Thread-safe as its delegate is; the delegate can be swapped ({@link #delegateTo}) for a device a test
 * replaces between runs.
 */
public abstract class DelegatingBlockIo implements BlockIo
{
    private volatile BlockIo delegate;

    /** @param delegate the I/O layer calls go to; null only for a wrapper that sets one before use. */
    protected DelegatingBlockIo(final BlockIo delegate)
    {
        this.delegate = delegate;
    }

    /** @return the I/O layer calls go to. */
    protected final BlockIo delegate()
    {
        return delegate;
    }

    /** @param io the I/O layer calls go to from now on. */
    protected final void delegateTo(final BlockIo io)
    {
        delegate = io;
    }

    @Override
    public BlockFile open(final Path path, final FileMode mode, final boolean create) throws IOException
    {
        return delegate.open(path, mode, create);
    }

    @Override
    public void rename(final Path from, final Path to) throws IOException
    {
        delegate.rename(from, to);
    }

    @Override
    public void delete(final Path path) throws IOException
    {
        delegate.delete(path);
    }

    @Override
    public List<Path> list(final Path dir) throws IOException
    {
        return delegate.list(dir);
    }

    @Override
    public void createDirectories(final Path dir) throws IOException
    {
        delegate.createDirectories(dir);
    }

    @Override
    public void syncDirectory(final Path dir) throws IOException
    {
        delegate.syncDirectory(dir);
    }

    @Override
    public int alignment()
    {
        return delegate.alignment();
    }

    @Override
    public boolean isDirect()
    {
        return delegate.isDirect();
    }

    @Override
    public String describe()
    {
        return delegate.describe();
    }

    /** Forwarded: a wrapper keeps its device's shared flush (and its faults reach the shared fdatasync). */
    @Override
    public Object flushDomain(final Path dir) throws IOException
    {
        return delegate.flushDomain(dir);
    }
}
