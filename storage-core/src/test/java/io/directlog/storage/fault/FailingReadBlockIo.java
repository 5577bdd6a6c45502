package io.directlog.storage.fault;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.io.DelegatingBlockFile;
import io.directlog.storage.io.DelegatingBlockIo;
import io.directlog.storage.spi.FileMode;
import io.directlog.storage.io.NativeBlockIo;

/**
 * A {@link BlockIo} over {@link NativeBlockIo} whose reads of one file fail with EIO when they touch a byte
 * range: a latent sector error seen by recovery (case C12). Everything else is delegated unchanged.
 * <p>
 * Thread-safe as its delegate is.
 */
final class FailingReadBlockIo extends DelegatingBlockIo
{
    private final String fileName;
    private final long badFrom;
    private final long badTo;
    final AtomicInteger failedReads = new AtomicInteger();

    /**
     * @param fileName the file name (not path) whose reads fail.
     * @param badFrom  first bad byte.
     * @param badTo    end of the bad range, exclusive.
     */
    FailingReadBlockIo(final String fileName, final long badFrom, final long badTo)
    {
        super(new NativeBlockIo(4096));
        this.fileName = fileName;
        this.badFrom = badFrom;
        this.badTo = badTo;
    }

    @Override
    public BlockFile open(final Path path, final FileMode mode, final boolean create) throws IOException
    {
        final BlockFile file = delegate().open(path, mode, create);
        return path.getFileName().toString().equals(fileName) ? new FailingFile(file) : file;
    }

    @Override
    public String describe()
    {
        return "read-EIO on " + fileName + " [" + badFrom + ", " + badTo + ") over " + delegate().describe();
    }

    private final class FailingFile extends DelegatingBlockFile
    {
        FailingFile(final BlockFile file)
        {
            super(file);
        }

        @Override
        public int read(final ByteBuffer target, final int index, final int length, final long position)
            throws IOException
        {
            if (position < badTo && position + length > badFrom)
            {
                failedReads.incrementAndGet();
                throw new IOException("pread " + path() + " at " + position + " length " + length +
                    ": Input/output error (injected, errno 5)");
            }
            return delegate().read(target, index, length, position);
        }
    }
}
