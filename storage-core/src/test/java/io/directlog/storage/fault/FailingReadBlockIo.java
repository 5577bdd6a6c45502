package io.directlog.storage.fault;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.directlog.storage.io.BlockFile;
import io.directlog.storage.io.BlockIo;
import io.directlog.storage.io.FileMode;
import io.directlog.storage.io.NativeBlockIo;

/**
 * A {@link BlockIo} over {@link NativeBlockIo} whose reads of one file fail with EIO when they touch a byte
 * range: a latent sector error seen by recovery (case C12). Everything else is delegated unchanged.
 * <p>
 * Thread-safe as its delegate is.
 */
final class FailingReadBlockIo implements BlockIo
{
    private final BlockIo delegate;
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
        this.delegate = new NativeBlockIo(4096);
        this.fileName = fileName;
        this.badFrom = badFrom;
        this.badTo = badTo;
    }

    @Override
    public BlockFile open(final Path path, final FileMode mode, final boolean create) throws IOException
    {
        final BlockFile file = delegate.open(path, mode, create);
        return path.getFileName().toString().equals(fileName) ? new FailingFile(file) : file;
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
        return "read-EIO on " + fileName + " [" + badFrom + ", " + badTo + ") over " + delegate.describe();
    }

    private final class FailingFile implements BlockFile
    {
        private final BlockFile file;

        FailingFile(final BlockFile file)
        {
            this.file = file;
        }

        @Override
        public Path path()
        {
            return file.path();
        }

        @Override
        public void write(final ByteBuffer source, final int index, final int length, final long position)
            throws IOException
        {
            file.write(source, index, length, position);
        }

        @Override
        public int read(final ByteBuffer target, final int index, final int length, final long position)
            throws IOException
        {
            if (position < badTo && position + length > badFrom)
            {
                failedReads.incrementAndGet();
                throw new IOException("pread " + file.path() + " at " + position + " length " + length +
                    ": Input/output error (injected, errno 5)");
            }
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
    }
}
