package io.directlog.storage.io.sim;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import io.directlog.storage.io.BlockFile;
import io.directlog.storage.io.BlockIo;
import io.directlog.storage.io.FileMode;

/**
 * A {@link BlockIo} that forwards to a device the test can swap: lets one long-lived SegmentPreparer serve crash
 * image after crash image (the test swaps only while the preparer is idle).
 * <p>
 * Thread-safe.
 */
public final class SwitchingBlockIo implements BlockIo
{
    private volatile BlockIo delegate;

    /** @param io the device calls go to from now on. */
    public void use(final BlockIo io)
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
        return SimulatedBlockIo.ALIGNMENT;
    }

    @Override
    public boolean isDirect()
    {
        return true;
    }

    @Override
    public String describe()
    {
        return "switching simulated device";
    }
}
