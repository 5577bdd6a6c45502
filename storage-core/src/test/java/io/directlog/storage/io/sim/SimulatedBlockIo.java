package io.directlog.storage.io.sim;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;
import org.agrona.BufferUtil;

/**
 * An in-memory block device and filesystem under the engine, for power-loss simulation (after RocksDB's
 * FaultInjectionTestFS and FoundationDB's AsyncFileNonDurable): files are maps of 4 KiB pages (absent = zero),
 * directory entries a map of paths to inodes. Nothing touches a real disk.
 * <p>
 * Every call is recorded in a trace ({@link #trace()}); {@link CrashReplayer} walks it and builds the image a
 * power loss after any call may leave. Direct files enforce O_DIRECT alignment ({@link #ALIGNMENT}) of position,
 * length and memory address, and a violation fails the call with EINVAL and is counted.
 * <p>
 * Thread-safe: every call holds the device's lock, so the trace is one total order.
 */
public final class SimulatedBlockIo implements BlockIo
{
    /** O_DIRECT alignment enforced, bytes. */
    public static final int ALIGNMENT = 4096;
    /** Page size of the content maps. */
    public static final int PAGE = 4096;
    /** Sector size: the unit a crash tears at. */
    public static final int SECTOR = 512;

    private final Map<Path, Integer> names = new HashMap<>();
    private final Map<Integer, SimFile> files = new HashMap<>();
    private final Set<Path> dirs = new HashSet<>();
    private final List<IoCall> trace = new ArrayList<>();
    private final Map<Path, Integer> initialNames;
    private final Map<Integer, SimFile> initialFiles;
    private int nextInode;
    private long misaligned;
    /** What {@link #flushDomain} answers: null (each DSYNC flush its own), or the one device every file is on. */
    private volatile Object flushDomain;

    /** An empty device. */
    public SimulatedBlockIo()
    {
        this.initialNames = Map.of();
        this.initialFiles = Map.of();
    }

    /**
     * A device holding a crash image (every byte of it durable).
     *
     * @param names     directory entries.
     * @param files     contents by inode.
     * @param dirs      directories.
     * @param nextInode the next free inode.
     */
    SimulatedBlockIo(final Map<Path, Integer> names, final Map<Integer, SimFile> files, final Set<Path> dirs,
        final int nextInode)
    {
        this.names.putAll(names);
        this.files.putAll(files);
        this.dirs.addAll(dirs);
        this.nextInode = nextInode;
        this.initialNames = Map.copyOf(names);
        this.initialFiles = new HashMap<>();
        files.forEach((inode, f) -> initialFiles.put(inode, f.copy()));
    }

    /**
     * Makes this device answer {@link #flushDomain} with {@code domain} for every directory: the engine then
     * shares one fdatasync among the logs of a writer, and {@link CrashReplayer} models each fdatasync as ext4 and
     * XFS do it, a flush of the whole device cache (see {@link CrashReplayer}).
     *
     * @param domain the key, or null for the default (no shared flush; an fdatasync syncs its own file only).
     * @return this device.
     */
    public SimulatedBlockIo flushDomain(final Object domain)
    {
        this.flushDomain = domain;
        return this;
    }

    /** @return the key set with {@link #flushDomain(Object)}, or null. */
    public Object flushDomainKey()
    {
        return flushDomain;
    }

    @Override
    public Object flushDomain(final Path dir)
    {
        return flushDomain;
    }

    /** @return the recorded calls so far (a snapshot). */
    public synchronized List<IoCall> trace()
    {
        return new ArrayList<>(trace);
    }

    /** @return calls made so far: a crash "after call k" keeps calls [0, k). */
    public synchronized int callCount()
    {
        return trace.size();
    }

    /** @return calls refused for O_DIRECT misalignment (an engine bug when not 0). */
    public synchronized long misalignedCalls()
    {
        return misaligned;
    }

    /**
     * @param path a file.
     * @return true when the file exists now.
     */
    @Override
    public synchronized boolean exists(final Path path)
    {
        return names.containsKey(path);
    }

    /**
     * @param dir a directory.
     * @return the files in it now (not recorded as a call).
     */
    public synchronized List<Path> filesIn(final Path dir)
    {
        final List<Path> out = new ArrayList<>();
        for (final Path p : names.keySet())
        {
            if (dir.equals(p.getParent()))
            {
                out.add(p);
            }
        }
        return out;
    }

    /**
     * @param path a file.
     * @return its current content (up to its size), for diagnostics.
     */
    public synchronized byte[] content(final Path path)
    {
        final SimFile f = files.get(names.get(path));
        final byte[] out = new byte[(int)f.size];
        for (final var e : f.pages.entrySet())
        {
            final long at = e.getKey() * PAGE;
            if (at < f.size)
            {
                System.arraycopy(e.getValue(), 0, out, (int)at, (int)Math.min(PAGE, f.size - at));
            }
        }
        return out;
    }

    Map<Path, Integer> initialNames()
    {
        return initialNames;
    }

    Map<Integer, SimFile> initialFiles()
    {
        return initialFiles;
    }

    int nextInode()
    {
        return nextInode;
    }

    Set<Path> directories()
    {
        return dirs;
    }

    @Override
    public synchronized BlockFile open(final Path path, final FileMode mode, final boolean create) throws IOException
    {
        Integer inode = names.get(path);
        if (inode == null)
        {
            if (!create)
            {
                trace.add(IoCall.other());
                throw new NoSuchFileException(path.toString());
            }
            if (!dirs.contains(path.getParent()))
            {
                trace.add(IoCall.other());
                throw new NoSuchFileException(path.getParent().toString());
            }
            inode = nextInode++;
            names.put(path, inode);
            files.put(inode, new SimFile());
            trace.add(new IoCall(IoCall.Kind.CREATE, inode, 0, null, 0, false, path, null));
        }
        else
        {
            trace.add(IoCall.other());
        }
        return new SimBlockFile(path, inode, mode);
    }

    @Override
    public synchronized void rename(final Path from, final Path to) throws IOException
    {
        final Integer inode = names.get(from);
        if (inode == null)
        {
            trace.add(IoCall.other());
            throw new NoSuchFileException(from.toString());
        }
        if (!from.getParent().equals(to.getParent()))
        {
            throw new IOException("the simulated device renames within one directory only: " + from + " -> " + to);
        }
        names.remove(from);
        names.put(to, inode);
        trace.add(new IoCall(IoCall.Kind.RENAME, inode, 0, null, 0, false, from, to));
    }

    @Override
    public synchronized void delete(final Path path)
    {
        final Integer inode = names.remove(path);
        trace.add(inode == null ? IoCall.other() : new IoCall(IoCall.Kind.DELETE, inode, 0, null, 0, false, path, null));
    }

    @Override
    public synchronized List<Path> list(final Path dir) throws IOException
    {
        trace.add(IoCall.other());
        if (!dirs.contains(dir))
        {
            throw new NoSuchFileException(dir.toString());
        }
        final List<Path> out = new ArrayList<>();
        for (final Path p : names.keySet())
        {
            if (dir.equals(p.getParent()))
            {
                out.add(p);
            }
        }
        out.sort(null);
        return out;
    }

    @Override
    public synchronized List<Path> listDirectories(final Path dir)
    {
        trace.add(IoCall.other());
        final List<Path> out = new ArrayList<>();
        for (final Path d : dirs)
        {
            if (dir.equals(d.getParent()))
            {
                out.add(d);
            }
        }
        out.sort(null);
        return out;
    }

    @Override
    public synchronized void createDirectories(final Path dir)
    {
        trace.add(IoCall.other()); // directories are created durably (the interface says so)
        for (Path d = dir; d != null; d = d.getParent())
        {
            dirs.add(d);
        }
    }

    @Override
    public synchronized void syncDirectory(final Path dir) throws IOException
    {
        if (!dirs.contains(dir))
        {
            trace.add(IoCall.other());
            throw new NoSuchFileException(dir.toString());
        }
        trace.add(new IoCall(IoCall.Kind.SYNCDIR, -1, 0, null, 0, false, dir, null));
    }

    @Override
    public int alignment()
    {
        return ALIGNMENT;
    }

    @Override
    public boolean isDirect()
    {
        return true;
    }

    @Override
    public String describe()
    {
        return "simulated block device (in memory)";
    }

    private void checkAligned(final ByteBuffer buffer, final int index, final int length, final long position)
        throws IOException
    {
        if (!buffer.isDirect())
        {
            misaligned++;
            throw new IOException("EINVAL: a heap buffer given to an O_DIRECT file");
        }
        if (index < 0 || length < 0 || index + length > buffer.capacity())
        {
            throw new IndexOutOfBoundsException("index " + index + " length " + length + " in a buffer of " +
                buffer.capacity());
        }
        final long address = BufferUtil.address(buffer) + index;
        if (position % ALIGNMENT != 0 || length % ALIGNMENT != 0 || address % ALIGNMENT != 0)
        {
            misaligned++;
            throw new IOException("EINVAL: O_DIRECT I/O not aligned to " + ALIGNMENT + ": position " + position +
                " length " + length + " address " + address);
        }
    }

    /** A file's content: 4 KiB pages by index (absent pages are zero; arrays are never changed once stored). */
    static final class SimFile
    {
        final HashMap<Long, byte[]> pages;
        long size;

        SimFile()
        {
            this(new HashMap<>(), 0);
        }

        SimFile(final HashMap<Long, byte[]> pages, final long size)
        {
            this.pages = pages;
            this.size = size;
        }

        /** Writes {@code data} (null: zeros) of {@code length} bytes at {@code position}, copy-on-write. */
        void write(final long position, final byte[] data, final int dataOffset, final int length)
        {
            long at = position;
            int done = 0;
            while (done < length)
            {
                final long index = at / PAGE;
                final int inPage = (int)(at % PAGE);
                final int n = Math.min(PAGE - inPage, length - done);
                final byte[] old = pages.get(index);
                if (data == null && n == PAGE)
                {
                    pages.remove(index);
                }
                else if (data != null || old != null)
                {
                    final byte[] page = old == null ? new byte[PAGE] : old.clone();
                    if (data == null)
                    {
                        java.util.Arrays.fill(page, inPage, inPage + n, (byte)0);
                    }
                    else
                    {
                        System.arraycopy(data, dataOffset + done, page, inPage, n);
                    }
                    pages.put(index, page);
                }
                at += n;
                done += n;
            }
        }

        void read(final ByteBuffer out, final int index, final long position, final int length)
        {
            final org.agrona.concurrent.UnsafeBuffer view = new org.agrona.concurrent.UnsafeBuffer(out);
            long at = position;
            int done = 0;
            while (done < length)
            {
                final long page = at / PAGE;
                final int inPage = (int)(at % PAGE);
                final int n = Math.min(PAGE - inPage, length - done);
                final byte[] data = pages.get(page);
                if (data != null)
                {
                    view.putBytes(index + done, data, inPage, n);
                }
                else
                {
                    view.setMemory(index + done, n, (byte)0);
                }
                at += n;
                done += n;
            }
        }

        /** Drops content at and beyond {@code length}. */
        void cut(final long length)
        {
            pages.keySet().removeIf(i -> i * PAGE >= length);
            final long last = length / PAGE;
            final int inPage = (int)(length % PAGE);
            final byte[] page = pages.get(last);
            if (inPage != 0 && page != null)
            {
                final byte[] copy = page.clone();
                java.util.Arrays.fill(copy, inPage, PAGE, (byte)0);
                pages.put(last, copy);
            }
        }

        SimFile copy()
        {
            return new SimFile(new HashMap<>(pages), size);
        }
    }

    private final class SimBlockFile implements BlockFile
    {
        private final Path path;
        private final int inode;
        private final FileMode mode;
        private boolean closed;

        SimBlockFile(final Path path, final int inode, final FileMode mode)
        {
            this.path = path;
            this.inode = inode;
            this.mode = mode;
        }

        @Override
        public Path path()
        {
            return path;
        }

        @Override
        public void write(final ByteBuffer source, final int index, final int length, final long position)
            throws IOException
        {
            synchronized (SimulatedBlockIo.this)
            {
                checkOpen();
                if (mode == FileMode.READ)
                {
                    trace.add(IoCall.other());
                    throw new IOException("EBADF: write to a file opened for reading: " + path);
                }
                checkAligned(source, index, length, position);
                boolean zero = true;
                for (int i = 0; i + 8 <= length && zero; i += 8)
                {
                    zero = source.getLong(index + i) == 0;
                }
                byte[] copy = null;
                if (!zero)
                {
                    copy = new byte[length];
                    source.get(index, copy, 0, length);
                }
                final SimFile f = files.get(inode);
                f.write(position, copy, 0, length);
                f.size = Math.max(f.size, position + length);
                trace.add(new IoCall(IoCall.Kind.WRITE, inode, position, copy, length,
                    mode == FileMode.DIRECT_DSYNC, path, null));
            }
        }

        @Override
        public int read(final ByteBuffer target, final int index, final int length, final long position)
            throws IOException
        {
            synchronized (SimulatedBlockIo.this)
            {
                checkOpen();
                trace.add(IoCall.other());
                checkAligned(target, index, length, position);
                final SimFile f = files.get(inode);
                final int n = (int)Math.max(0, Math.min(length, f.size - position));
                f.read(target, index, position, n);
                return n;
            }
        }

        @Override
        public void datasync() throws IOException
        {
            synchronized (SimulatedBlockIo.this)
            {
                checkOpen();
                trace.add(new IoCall(IoCall.Kind.SYNC, inode, 0, null, 0, false, path, null));
            }
        }

        @Override
        public void allocate(final long length) throws IOException
        {
            synchronized (SimulatedBlockIo.this)
            {
                checkOpen();
                final SimFile f = files.get(inode);
                if (length > f.size)
                {
                    f.size = length;
                    trace.add(new IoCall(IoCall.Kind.SIZE, inode, length, null, 0, false, path, null));
                }
                else
                {
                    trace.add(IoCall.other());
                }
            }
        }

        @Override
        public long size() throws IOException
        {
            synchronized (SimulatedBlockIo.this)
            {
                checkOpen();
                trace.add(IoCall.other());
                return files.get(inode).size;
            }
        }

        @Override
        public void truncate(final long length) throws IOException
        {
            synchronized (SimulatedBlockIo.this)
            {
                checkOpen();
                final SimFile f = files.get(inode);
                f.size = length;
                f.cut(length);
                trace.add(new IoCall(IoCall.Kind.SIZE, inode, length, null, 0, false, path, null));
            }
        }

        @Override
        public void close()
        {
            synchronized (SimulatedBlockIo.this)
            {
                if (!closed)
                {
                    closed = true;
                    trace.add(IoCall.other());
                }
            }
        }

        private void checkOpen() throws IOException
        {
            if (closed)
            {
                throw new IOException("EBADF: " + path + " is closed");
            }
        }

        @Override
        public String toString()
        {
            return "SimBlockFile{" + path + ", " + mode + '}';
        }
    }
}
