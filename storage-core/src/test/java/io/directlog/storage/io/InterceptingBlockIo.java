package io.directlog.storage.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;

/**
 * A {@link BlockIo} for tests that runs a hook before every write and every datasync of the files it opens, so a
 * wrapper that fails, holds or watches those calls (for chosen files or threads) writes only its hook. A hook runs
 * on the calling thread with the path the file was opened with; what it throws reaches the caller instead of the
 * call, and when it returns the call goes on to the delegate.
 */
public abstract class InterceptingBlockIo extends DelegatingBlockIo
{
    /** @param delegate the I/O layer calls go to. */
    protected InterceptingBlockIo(final BlockIo delegate)
    {
        super(delegate);
    }

    /**
     * Runs before a write to {@code file}; does nothing unless overridden.
     *
     * @param file the path the file was opened with.
     * @throws IOException to fail the write (which is then not made).
     */
    protected void beforeWrite(final Path file) throws IOException
    {
    }

    /**
     * Runs before a datasync of {@code file}; does nothing unless overridden.
     *
     * @param file the path the file was opened with.
     * @throws IOException to fail the datasync (which is then not made).
     */
    protected void beforeDatasync(final Path file) throws IOException
    {
    }

    @Override
    public BlockFile open(final Path path, final FileMode mode, final boolean create) throws IOException
    {
        return new DelegatingBlockFile(delegate().open(path, mode, create))
        {
            @Override
            public void write(final ByteBuffer source, final int index, final int length, final long position)
                throws IOException
            {
                beforeWrite(path);
                super.write(source, index, length, position);
            }

            @Override
            public void datasync() throws IOException
            {
                beforeDatasync(path);
                super.datasync();
            }
        };
    }
}
