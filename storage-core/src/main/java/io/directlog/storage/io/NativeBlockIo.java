package io.directlog.storage.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import io.directlog.nativeio.DsyncWrites;
import io.directlog.nativeio.NativeFile;
import io.directlog.nativeio.NativeFileSystem;
import io.directlog.nativeio.OpenFlags;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.BlockWriteBatch;
import io.directlog.storage.spi.FileMode;

/**
 * O_DIRECT I/O through storage-native: writes go from the page memory itself to the device, with no copy and
 * no page-cache pages left dirty behind (so kernel writeback never stalls the writer).
 * <p>
 * Design note: not FileChannel, because a thread interrupted during FileChannel I/O closes the channel for
 * every thread (LUCENE-2239), and because FileChannel cannot use O_DSYNC with O_DIRECT and FIEMAP.
 * <p>
 * Thread-safe.
 */
public final class NativeBlockIo implements BlockIo
{
    private final int alignment;
    private final FlushDomains flushDomains = new FlushDomains();

    /**
     * @param alignment the direct-I/O alignment of the store's directory.
     */
    public NativeBlockIo(final int alignment)
    {
        this.alignment = alignment;
    }

    @Override
    public BlockFile open(final Path path, final FileMode mode, final boolean create) throws IOException
    {
        int flags = OpenFlags.CLOEXEC | OpenFlags.DIRECT;
        flags |= mode == FileMode.READ ? OpenFlags.READ_ONLY : OpenFlags.READ_WRITE;
        if (mode == FileMode.DIRECT_DSYNC)
        {
            // O_DSYNC, never O_SYNC: only a datasync write lets the kernel use a single FUA write.
            flags |= OpenFlags.DSYNC;
        }
        if (create)
        {
            flags |= OpenFlags.CREATE;
        }
        return new NativeBlockFile(NativeFile.open(path, flags, 0644));
    }

    /** Shares {@code direct}'s descriptor where pwritev2(RWF_DSYNC) works (see {@link NativeDsyncView}). */
    @Override
    public BlockFile openDsync(final BlockFile direct) throws IOException
    {
        if (direct instanceof NativeBlockFile f && DsyncWrites.isSupported() && f.retain())
        {
            return new NativeDsyncView(f.file, f::release);
        }
        return BlockIo.super.openDsync(direct);
    }

    /**
     * Linux native AIO for the writes of a shared flush ({@link NativeWriteBatch}): the device gets them in flight
     * at once, from the one writer thread.
     */
    @Override
    public BlockWriteBatch newWriteBatch()
    {
        return new NativeWriteBatch();
    }

    @Override
    public void rename(final Path from, final Path to) throws IOException
    {
        NativeFileSystem.rename(from, to);
    }

    @Override
    public void delete(final Path path) throws IOException
    {
        Files.deleteIfExists(path);
    }

    @Override
    public List<Path> list(final Path dir) throws IOException
    {
        final List<Path> files = new ArrayList<>();
        try (Stream<Path> stream = Files.list(dir))
        {
            stream.filter(Files::isRegularFile).forEach(files::add);
        }
        return files;
    }

    @Override
    public boolean exists(final Path path)
    {
        return Files.isRegularFile(path);
    }

    @Override
    public void createDirectories(final Path dir) throws IOException
    {
        final List<Path> created = new ArrayList<>();
        for (Path p = dir.toAbsolutePath(); p != null && !Files.exists(p); p = p.getParent())
        {
            created.add(p);
        }
        Files.createDirectories(dir);
        for (final Path p : created)
        {
            // a new directory entry is durable only once its parent is fsync'ed
            NativeFileSystem.fsyncDirectory(p.getParent());
        }
    }

    @Override
    public void createDirectoryUnsynced(final Path dir) throws IOException
    {
        Files.createDirectory(dir);
    }

    @Override
    public void syncDirectory(final Path dir) throws IOException
    {
        NativeFileSystem.fsyncDirectory(dir);
    }

    @Override
    public int alignment()
    {
        return alignment;
    }

    @Override
    public boolean isDirect()
    {
        return true;
    }

    @Override
    public String describe()
    {
        return "native O_DIRECT (alignment " + alignment + ")";
    }

    /**
     * The block device (st_dev) of {@code dir} on ext4 or XFS, where an fdatasync ends in a flush of the whole
     * device's cache even when the synced file has nothing to commit:
     * <ul>
     * <li>ext4 with a journal ({@code ext4_sync_file}, {@code ext4_fsync_journal}): when the file's datasync
     * transaction has committed already, {@code jbd2_trans_will_send_data_barrier} says no commit will flush, and
     * ext4 calls {@code blkdev_issue_flush(sb->s_bdev)}; otherwise the commit it waits for writes its commit block
     * with REQ_PREFLUSH, which flushes the same device (an internal journal);</li>
     * <li>XFS ({@code xfs_file_fsync}): with no log force to do it calls {@code blkdev_issue_flush} on the data
     * device; a log force writes its iclog with REQ_PREFLUSH.</li>
     * </ul>
     * A flush makes every write the device completed before it durable, whichever file it belonged to. Elsewhere
     * (btrfs, tmpfs, overlay, NFS, FUSE, an unknown filesystem, ext4 with data=journal: {@link FlushDomains}) null:
     * the logs there keep one O_DSYNC write each. Limits named in docs/architecture.md: ext4 with an external
     * journal on kernels before the end of 2024, XFS realtime files.
     */
    @Override
    public Object flushDomain(final Path dir) throws IOException
    {
        return flushDomains.of(dir);
    }

    static final class NativeBlockFile extends NativeFileHandle
    {
        /** This handle and the {@link NativeDsyncView}s sharing its descriptor: closed when all are. */
        private final AtomicInteger holders = new AtomicInteger(1);
        private final AtomicBoolean closed = new AtomicBoolean();

        NativeBlockFile(final NativeFile file)
        {
            super(file);
        }

        /** @return false once the descriptor is closed: it cannot be shared any more. */
        boolean retain()
        {
            while (true)
            {
                final int h = holders.get();
                if (h == 0 || closed.get())
                {
                    return false;
                }
                if (holders.compareAndSet(h, h + 1))
                {
                    return true;
                }
            }
        }

        void release() throws IOException
        {
            if (holders.decrementAndGet() == 0)
            {
                file.close();
            }
        }

        @Override
        public void write(final ByteBuffer source, final int index, final int length, final long position)
            throws IOException
        {
            file.writeFully(address(source, index, length), length, position);
        }

        @Override
        public void close() throws IOException
        {
            if (closed.compareAndSet(false, true))
            {
                release();
            }
        }
    }
}
