package io.directlog.nativeio;

import org.agrona.concurrent.UnsafeBuffer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An open file descriptor with positional I/O, sync, allocation and mapping calls, each turning a failure into a
 * {@link NativeIoException} naming the call, path, offset, length and errno.
 *
 * <p>Calls interrupted by a signal (EINTR) are retried, except {@code close}: Linux releases the descriptor even
 * when close returns EINTR, so a retry could close a number another thread has just been given.
 *
 * <p>Nothing here checks O_DIRECT alignment; the kernel answers EINVAL and the exception carries the offset and
 * length. Callers that want friendlier messages check first against {@link NativeFileSystem#directIoAlignment}.
 *
 * <p>Design note: a descriptor number is reused by the kernel as soon as it is closed, so a call racing with
 * {@link #close()} could read or write an unrelated file. Every call therefore holds a use count for its duration
 * (one uncontended CAS in and one out, small next to a system call); {@link #close()} marks the file closed and the
 * descriptor is released by whichever of close or the last in-flight call finishes last. Calls that start after
 * close fail with EBADF without reaching the kernel.
 *
 * <p>Thread-safe: positional calls may run concurrently from several threads; ordering between them is the
 * caller's business.
 */
public final class NativeFile implements AutoCloseable
{
    /** Mode used by {@link #open(Path, int)} when it creates a file: rw-r--r--. */
    public static final int DEFAULT_MODE = 0644;

    private static final int CLOSED = Integer.MIN_VALUE;
    private static final int FIEMAP_HEADER_LENGTH = 32;
    private static final int FIEMAP_EXTENT_LENGTH = 56;
    private static final int FIEMAP_BATCH = 128;

    private final Path path;
    private final int fd;
    // Sign bit: closed. Low bits: calls in flight.
    private final AtomicInteger state = new AtomicInteger();

    private NativeFile(final Path path, final int fd)
    {
        this.path = path;
        this.fd = fd;
    }

    /**
     * Opens a file; when {@code flags} contains {@link OpenFlags#CREATE} the file is created with mode
     * {@link #DEFAULT_MODE} (less the umask).
     *
     * @param path  the file.
     * @param flags {@link OpenFlags} values or'ed together, used as given (add {@link OpenFlags#CLOEXEC} if wanted).
     * @return the open file.
     * @throws NativeIoException             if open(2) fails, e.g. ENOENT, or EINVAL for O_DIRECT on a
     *                                       filesystem that does not support it.
     * @throws UnsupportedOperationException if native I/O is unavailable.
     */
    public static NativeFile open(final Path path, final int flags) throws NativeIoException
    {
        return open(path, flags, DEFAULT_MODE);
    }

    /**
     * Opens a file.
     *
     * @param path  the file.
     * @param flags {@link OpenFlags} values or'ed together, used as given.
     * @param mode  permission bits for a file created by {@link OpenFlags#CREATE}, e.g. {@code 0600}.
     * @return the open file.
     * @throws NativeIoException             if open(2) fails.
     * @throws UnsupportedOperationException if native I/O is unavailable.
     */
    public static NativeFile open(final Path path, final int flags, final int mode) throws NativeIoException
    {
        NativeIo.ensureAvailable();
        final byte[] bytes = NativeIo.pathBytes(path);
        int fd;
        int errno = 0;
        do
        {
            NativeIo.OPEN.increment();
            fd = LibC.open(bytes, flags, mode);
        }
        while (fd == -1 && (errno = NativeIo.errno()) == Errno.EINTR);
        if (fd == -1)
        {
            throw new NativeIoException("open", path, errno, -1, -1);
        }
        return new NativeFile(path, fd);
    }

    /**
     * Opens a directory read-only (O_RDONLY | O_DIRECTORY | O_CLOEXEC), e.g. to {@link #sync()} it after creating,
     * renaming or deleting an entry, which is what makes the entry itself durable.
     *
     * @param dir the directory.
     * @return the open directory.
     * @throws NativeIoException             if open(2) fails (ENOTDIR if it is not a directory).
     * @throws UnsupportedOperationException if native I/O is unavailable.
     */
    public static NativeFile openDirectory(final Path dir) throws NativeIoException
    {
        return open(dir, OpenFlags.READ_ONLY | OpenFlags.DIRECTORY | OpenFlags.CLOEXEC, 0);
    }

    /**
     * @return the path this file was opened with.
     */
    public Path path()
    {
        return path;
    }

    /**
     * The descriptor number, for passing to other native code. It is only meaningful while the file is open and
     * must not be closed by anyone else.
     *
     * @return the descriptor, or -1 once {@link #close()} has been called.
     */
    public int fd()
    {
        return state.get() < 0 ? -1 : fd;
    }

    /**
     * @return false once {@link #close()} has been called.
     */
    public boolean isOpen()
    {
        return state.get() >= 0;
    }

    /**
     * One {@code pwrite(2)} (retried on EINTR); it may write fewer bytes than asked.
     *
     * @param address  native address of the bytes to write.
     * @param length   number of bytes.
     * @param position file offset.
     * @return the number of bytes written.
     * @throws NativeIoException if pwrite fails (e.g. EINVAL for misaligned O_DIRECT, ENOSPC, EIO) or the file is
     *                           closed (EBADF).
     */
    public long write(final long address, final long length, final long position) throws NativeIoException
    {
        acquire("pwrite", position, length);
        try
        {
            return pwrite(address, length, position);
        }
        finally
        {
            release();
        }
    }

    /**
     * Writes all {@code length} bytes, repeating {@code pwrite(2)} after short writes.
     *
     * @param address  native address of the bytes to write.
     * @param length   number of bytes.
     * @param position file offset.
     * @throws NativeIoException if a pwrite fails, or writes 0 bytes (errno 0), or the file is closed.
     */
    public void writeFully(final long address, final long length, final long position) throws NativeIoException
    {
        acquire("pwrite", position, length);
        try
        {
            long done = 0;
            while (done < length)
            {
                final long n = pwrite(address + done, length - done, position + done);
                if (n == 0)
                {
                    // A regular file never returns 0 for a non-empty write unless it cannot progress; looping
                    // would spin forever.
                    throw new NativeIoException(
                        "pwrite", path, 0, position + done, length - done, "wrote 0 bytes after " + done);
                }
                done += n;
            }
        }
        finally
        {
            release();
        }
    }

    /**
     * Writes all {@code length} bytes durably, as through an O_DSYNC descriptor: {@code pwritev2} with
     * {@code RWF_DSYNC} (see {@link DsyncWrites}), repeated after short writes.
     *
     * @param address  native address of the bytes to write.
     * @param length   number of bytes.
     * @param position file offset.
     * @throws NativeIoException if a write fails; ENOSYS or EOPNOTSUPP mean the flag is unsupported here, and
     *                           {@link DsyncWrites#isSupported()} is false from then on.
     */
    public void writeDsyncFully(final long address, final long length, final long position) throws NativeIoException
    {
        acquire("pwritev2", position, length);
        try
        {
            final UnsafeBuffer iovec = DsyncWrites.iovec();
            long done = 0;
            while (done < length)
            {
                iovec.putLong(0, address + done);
                iovec.putLong(8, length - done);
                long n;
                int errno = 0;
                do
                {
                    NativeIo.PWRITE.increment();
                    n = LibCWritev2.pwritev2(fd, iovec.addressOffset(), 1, position + done, LibCWritev2.RWF_DSYNC);
                }
                while (n == -1 && (errno = NativeIo.errno()) == Errno.EINTR);
                if (n == -1)
                {
                    if (errno == Errno.ENOSYS || errno == Errno.EOPNOTSUPP)
                    {
                        DsyncWrites.markUnsupported();
                    }
                    throw new NativeIoException("pwritev2", path, errno, position + done, length - done);
                }
                if (n == 0)
                {
                    throw new NativeIoException(
                        "pwritev2", path, 0, position + done, length - done, "wrote 0 bytes after " + done);
                }
                done += n;
            }
        }
        finally
        {
            release();
        }
    }

    /**
     * One {@code pread(2)} (retried on EINTR); it may read fewer bytes than asked.
     *
     * @param address  native address to read into.
     * @param length   number of bytes.
     * @param position file offset.
     * @return the number of bytes read, 0 at end of file.
     * @throws NativeIoException if pread fails or the file is closed.
     */
    public long read(final long address, final long length, final long position) throws NativeIoException
    {
        acquire("pread", position, length);
        try
        {
            return pread(address, length, position);
        }
        finally
        {
            release();
        }
    }

    /**
     * Reads until {@code length} bytes have been read or end of file is reached.
     *
     * @param address  native address to read into.
     * @param length   number of bytes.
     * @param position file offset.
     * @return the number of bytes read: {@code length}, or fewer if end of file came first.
     * @throws NativeIoException if a pread fails or the file is closed.
     */
    public long readFully(final long address, final long length, final long position) throws NativeIoException
    {
        acquire("pread", position, length);
        try
        {
            long done = 0;
            while (done < length)
            {
                final long n = pread(address + done, length - done, position + done);
                if (n == 0)
                {
                    break;
                }
                done += n;
            }
            return done;
        }
        finally
        {
            release();
        }
    }

    /**
     * {@code fallocate(2)}. Note that on ext4/XFS the allocated range is made of unwritten extents (see
     * {@link FallocateMode}).
     *
     * @param mode   a {@link FallocateMode} value.
     * @param offset start of the range.
     * @param length length of the range.
     * @throws NativeIoException if fallocate fails (EOPNOTSUPP when the filesystem or mode is unsupported, ENOSPC).
     */
    public void fallocate(final int mode, final long offset, final long length) throws NativeIoException
    {
        acquire("fallocate", offset, length);
        try
        {
            int rc;
            int errno = 0;
            do
            {
                NativeIo.FALLOCATE.increment();
                rc = LibC.fallocate(fd, mode, offset, length);
            }
            while (rc == -1 && (errno = NativeIo.errno()) == Errno.EINTR);
            if (rc == -1)
            {
                throw new NativeIoException("fallocate", path, errno, offset, length);
            }
        }
        finally
        {
            release();
        }
    }

    /**
     * {@code ftruncate(2)}: sets the file size, freeing or adding (sparse) space past the old end.
     *
     * @param size the new size.
     * @throws NativeIoException if ftruncate fails.
     */
    public void truncate(final long size) throws NativeIoException
    {
        acquire("ftruncate", -1, size);
        try
        {
            int rc;
            int errno = 0;
            do
            {
                rc = LibC.ftruncate(fd, size);
            }
            while (rc == -1 && (errno = NativeIo.errno()) == Errno.EINTR);
            if (rc == -1)
            {
                throw new NativeIoException("ftruncate", path, errno, -1, size);
            }
        }
        finally
        {
            release();
        }
    }

    /**
     * {@code fdatasync(2)}: makes written data, and the metadata needed to read it (size, extent state), durable,
     * including a device cache flush. After a failure, the failed pages may be marked clean by the kernel: a later
     * successful fdatasync does not mean the earlier data reached the disk.
     *
     * @throws NativeIoException if fdatasync fails (EIO, ENOSPC).
     */
    public void datasync() throws NativeIoException
    {
        syncCall("fdatasync");
    }

    /**
     * {@code fsync(2)}: like {@link #datasync()} plus all metadata; on a directory descriptor it makes created,
     * renamed and deleted entries durable.
     *
     * @throws NativeIoException if fsync fails.
     */
    public void sync() throws NativeIoException
    {
        syncCall("fsync");
    }

    private void syncCall(final String call) throws NativeIoException
    {
        acquire(call, -1, -1);
        try
        {
            NativeIo.beforeSync(call);
            final boolean data = "fdatasync".equals(call);
            int rc;
            int errno = 0;
            do
            {
                if (data)
                {
                    NativeIo.FDATASYNC.increment();
                    rc = LibC.fdatasync(fd);
                }
                else
                {
                    NativeIo.FSYNC.increment();
                    rc = LibC.fsync(fd);
                }
            }
            while (rc == -1 && (errno = NativeIo.errno()) == Errno.EINTR);
            if (rc == -1)
            {
                throw new NativeIoException(call, path, errno, -1, -1);
            }
        }
        finally
        {
            release();
        }
    }

    /**
     * {@code sync_file_range(2)}: starts and/or waits for write-back of dirty page-cache pages. It flushes no
     * metadata and no device cache: useful to smooth buffered write-back, never a durability point.
     *
     * @param offset start of the range.
     * @param nbytes length of the range; 0 means to the end of the file.
     * @param flags  {@link SyncFileRange} values or'ed together.
     * @throws NativeIoException if sync_file_range fails.
     */
    public void syncFileRange(final long offset, final long nbytes, final int flags) throws NativeIoException
    {
        acquire("sync_file_range", offset, nbytes);
        try
        {
            NativeIo.beforeSync("sync_file_range");
            int rc;
            int errno = 0;
            do
            {
                rc = LibC.sync_file_range(fd, offset, nbytes, flags);
            }
            while (rc == -1 && (errno = NativeIo.errno()) == Errno.EINTR);
            if (rc == -1)
            {
                throw new NativeIoException("sync_file_range", path, errno, offset, nbytes);
            }
        }
        finally
        {
            release();
        }
    }

    /**
     * {@code posix_fadvise(2)}.
     *
     * @param offset start of the range.
     * @param length length of the range; 0 means to the end of the file.
     * @param advice a {@link Fadvise} value.
     * @throws NativeIoException if posix_fadvise fails (ESPIPE on a pipe, EINVAL for a bad advice).
     */
    public void fadvise(final long offset, final long length, final int advice) throws NativeIoException
    {
        acquire("posix_fadvise", offset, length);
        try
        {
            // posix_fadvise returns the error number instead of setting errno.
            final int rc = LibC.posix_fadvise(fd, offset, length, advice);
            if (rc != 0)
            {
                throw new NativeIoException("posix_fadvise", path, rc, offset, length);
            }
        }
        finally
        {
            release();
        }
    }

    /**
     * @return the file size (st_size).
     * @throws NativeIoException if statx fails.
     */
    public long size() throws NativeIoException
    {
        acquire("statx", -1, -1);
        try
        {
            return Statx.ofFd(fd, LibC.STATX_SIZE, path).size;
        }
        finally
        {
            release();
        }
    }

    /**
     * @return size, allocation, device and inode of the open file.
     * @throws NativeIoException if statx fails.
     */
    public FileStat stat() throws NativeIoException
    {
        acquire("statx", -1, -1);
        try
        {
            return Statx.ofFd(fd, LibC.STATX_BASIC_STATS, path).toFileStat();
        }
        finally
        {
            release();
        }
    }

    /**
     * The extents covering a range, without forcing write-back first (same as {@code extents(offset, length,
     * false)}): dirty page-cache data may show as {@link Extent#FLAG_DELALLOC}.
     *
     * @param offset start of the range.
     * @param length length of the range.
     * @return extents overlapping the range, in file order; empty for a hole or an empty file.
     * @throws NativeIoException if the ioctl fails (EOPNOTSUPP on filesystems without FIEMAP, e.g. tmpfs).
     */
    public List<Extent> extents(final long offset, final long length) throws NativeIoException
    {
        return extents(offset, length, false);
    }

    /**
     * The extents covering a range, from {@code ioctl(FS_IOC_FIEMAP)}, fetched in batches until the range or the
     * file ends.
     *
     * @param offset start of the range.
     * @param length length of the range.
     * @param sync   whether to pass FIEMAP_FLAG_SYNC, which writes dirty pages back first so that delayed
     *               allocations show their real extents.
     * @return extents overlapping the range, in file order; empty for a hole or an empty file.
     * @throws NativeIoException if the ioctl fails.
     */
    public List<Extent> extents(final long offset, final long length, final boolean sync) throws NativeIoException
    {
        acquire("ioctl(FS_IOC_FIEMAP)", offset, length);
        try (AlignedMemory memory = AlignedMemory.allocate(
            FIEMAP_HEADER_LENGTH + (long)FIEMAP_BATCH * FIEMAP_EXTENT_LENGTH, 8))
        {
            final UnsafeBuffer b = memory.buffer();
            final long end = length > Long.MAX_VALUE - offset ? Long.MAX_VALUE : offset + length;
            final List<Extent> extents = new ArrayList<>();
            long start = offset;
            boolean first = true;
            while (start < end)
            {
                b.setMemory(0, FIEMAP_HEADER_LENGTH, (byte)0);
                b.putLong(0, start);                              // fm_start
                b.putLong(8, end - start);                        // fm_length
                b.putInt(16, sync && first ? LibC.FIEMAP_FLAG_SYNC : 0); // fm_flags
                b.putInt(24, FIEMAP_BATCH);                       // fm_extent_count
                first = false;
                int rc;
                int errno = 0;
                do
                {
                    rc = LibC.ioctl(fd, LibC.FS_IOC_FIEMAP, memory.address());
                }
                while (rc == -1 && (errno = NativeIo.errno()) == Errno.EINTR);
                if (rc == -1)
                {
                    throw new NativeIoException("ioctl(FS_IOC_FIEMAP)", path, errno, start, end - start);
                }
                final int mapped = b.getInt(20);                  // fm_mapped_extents
                if (mapped == 0)
                {
                    break;
                }
                Extent last = null;
                for (int i = 0; i < mapped; i++)
                {
                    final int at = FIEMAP_HEADER_LENGTH + i * FIEMAP_EXTENT_LENGTH;
                    last = new Extent(b.getLong(at), b.getLong(at + 8), b.getLong(at + 16), b.getInt(at + 40));
                    extents.add(last);
                }
                if (last.last() || last.logicalEnd() <= start)
                {
                    break;
                }
                start = last.logicalEnd();
            }
            return extents;
        }
        finally
        {
            release();
        }
    }

    /**
     * Closes the descriptor. Idempotent. Calls made afterwards fail with EBADF; calls still in flight finish first
     * and the descriptor is released when the last of them returns (an error from that deferred close is lost).
     *
     * @throws NativeIoException if close(2) reports an error (EIO, e.g. from NFS write-back); the descriptor is
     *                           released regardless.
     */
    @Override
    public void close() throws NativeIoException
    {
        while (true)
        {
            final int s = state.get();
            if (s < 0)
            {
                return;
            }
            if (state.compareAndSet(s, s | CLOSED))
            {
                if (s == 0)
                {
                    closeFd(true);
                }
                return;
            }
        }
    }

    @Override
    public String toString()
    {
        return "NativeFile{path=" + path + ", fd=" + fd() + "}";
    }

    /**
     * Holds the descriptor open for a call that outlives this method ({@link AioContext}: an asynchronous write),
     * as every call here holds it for its duration; {@link #releaseAfterAsync()} ends the hold once the kernel is
     * done with it.
     *
     * @return the descriptor.
     * @throws NativeIoException EBADF once the file is closed.
     */
    int acquireForAsync(final String call, final long offset, final long length) throws NativeIoException
    {
        acquire(call, offset, length);
        return fd;
    }

    /** Ends a hold of {@link #acquireForAsync}. */
    void releaseAfterAsync()
    {
        release();
    }

    private void acquire(final String call, final long offset, final long length) throws NativeIoException
    {
        while (true)
        {
            final int s = state.get();
            if (s < 0)
            {
                throw new NativeIoException(call, path, Errno.EBADF, offset, length, "EBADF (file is closed)");
            }
            if (state.compareAndSet(s, s + 1))
            {
                return;
            }
        }
    }

    private void release()
    {
        if (state.decrementAndGet() == CLOSED)
        {
            // close() ran while this call was in flight and we were the last one: release the descriptor now.
            try
            {
                closeFd(false);
            }
            catch (final NativeIoException ignore)
            {
                // Nobody is left to report it to; close() already returned.
            }
        }
    }

    private void closeFd(final boolean report) throws NativeIoException
    {
        NativeIo.CLOSE.increment();
        // No EINTR retry: Linux has already released the descriptor when close returns EINTR.
        if (LibC.close(fd) == -1)
        {
            final int errno = NativeIo.errno();
            if (report && errno != Errno.EINTR)
            {
                throw new NativeIoException("close", path, errno, -1, -1);
            }
        }
    }

    private long pwrite(final long address, final long length, final long position) throws NativeIoException
    {
        long n;
        int errno = 0;
        do
        {
            NativeIo.PWRITE.increment();
            n = LibC.pwrite(fd, address, length, position);
        }
        while (n == -1 && (errno = NativeIo.errno()) == Errno.EINTR);
        if (n == -1)
        {
            throw new NativeIoException("pwrite", path, errno, position, length);
        }
        return n;
    }

    private long pread(final long address, final long length, final long position) throws NativeIoException
    {
        long n;
        int errno = 0;
        do
        {
            NativeIo.PREAD.increment();
            n = LibC.pread(fd, address, length, position);
        }
        while (n == -1 && (errno = NativeIo.errno()) == Errno.EINTR);
        if (n == -1)
        {
            throw new NativeIoException("pread", path, errno, position, length);
        }
        return n;
    }
}
