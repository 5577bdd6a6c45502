package io.directlog.nativeio;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * A Linux native AIO context for batches of positional writes: {@link #add} describes each write, then
 * {@link #submitAndAwait()} queues them all with one {@code io_submit} and waits for all of them with
 * {@code io_getevents}, so that the device has them in flight at once (an O_DIRECT write each; a device that does
 * 12,000 4 KiB writes/s one at a time did 97,000/s with 16 in flight), and the calling thread stays the only one.
 * Each write's outcome is then read per write: {@link #result}, {@link #failure}.
 * <p>
 * Everything the kernel reads (the {@code struct iocb}s, the array of pointers to them, the {@code struct
 * io_event}s it fills) lies in one block of native memory allocated when the context opens: a batch allocates
 * nothing, unless a write fails (its exception). Layouts are those of Linux's {@code include/uapi/linux/aio_abi.h}
 * on the 64-bit little-endian ABIs this package supports (x86-64, aarch64).
 * <p>
 * What can go wrong, per write: the kernel refuses it at submission (EBADF, EINVAL: that write fails with it, the
 * others are offered again), completes it with an error or short (its result), or cannot queue anything more for
 * want of resources (EAGAIN: the writes in flight are awaited and the rest offered again; when none is in flight, the
 * writes not queued end with {@code -EAGAIN}, never submitted, for the caller to write another way). A file closed
 * before its write is queued ends with {@code -EBADF}. Each file's descriptor is held open while its write is in
 * flight, as {@link NativeFile} holds it for every call.
 * <p>
 * Not thread-safe: one owner thread (a log store's writer thread), which must not close it while a batch runs.
 */
public final class AioContext implements AutoCloseable
{
    /** The write has not completed yet (never a kernel result: those are at least -4095). */
    private static final long PENDING = Long.MIN_VALUE;
    /** {@code sizeof(struct iocb)}. */
    static final int IOCB_LENGTH = 64;
    /** {@code sizeof(struct io_event)}. */
    static final int EVENT_LENGTH = 32;
    private static final short IOCB_CMD_PWRITE = 1;
    // struct iocb: aio_data, then aio_key and aio_rw_flags, aio_lio_opcode, aio_reqprio, aio_fildes, aio_buf,
    // aio_nbytes, aio_offset, aio_reserved2, aio_flags, aio_resfd (every field not set here must be zero)
    private static final int IOCB_DATA = 0;
    private static final int IOCB_OPCODE = 16;
    private static final int IOCB_FD = 20;
    private static final int IOCB_BUF = 24;
    private static final int IOCB_NBYTES = 32;
    private static final int IOCB_OFFSET = 40;
    // struct io_event: data (the iocb's aio_data), obj, res (bytes or -errno), res2
    private static final int EVENT_DATA = 0;
    private static final int EVENT_RES = 16;
    /** The context id io_setup fills, at the start of the block; the pointers follow at the next 64 bytes. */
    private static final int POINTERS_AT = 64;
    private static final int ALIGNMENT = 64;

    private final AioKernel kernel;
    private final int capacity;
    private final AlignedMemory memory;
    private final UnsafeBuffer bytes;
    private final long ctxId;
    private final int iocbsAt;
    private final int eventsAt;
    private final NativeFile[] files;
    /** The file's descriptor is held for the write (from its queueing to its completion). */
    private final boolean[] holding;
    private final long[] lengths;
    private final long[] positions;
    private final long[] results;
    /** The slots offered to io_submit, in the order of the pointer array. */
    private final int[] offered;
    private int size;
    private boolean closed;

    private AioContext(final AioKernel kernel, final int capacity, final AlignedMemory memory, final long ctxId)
    {
        this.kernel = kernel;
        this.capacity = capacity;
        this.memory = memory;
        this.bytes = memory.buffer();
        this.ctxId = ctxId;
        this.iocbsAt = POINTERS_AT + align(capacity * 8);
        this.eventsAt = iocbsAt + capacity * IOCB_LENGTH;
        files = new NativeFile[capacity];
        holding = new boolean[capacity];
        lengths = new long[capacity];
        positions = new long[capacity];
        results = new long[capacity];
        offered = new int[capacity];
    }

    /**
     * Opens a context (io_setup) for batches of up to {@code capacity} writes.
     *
     * @param capacity writes per batch, 1 to 4096.
     * @return the context.
     * @throws NativeIoException             when io_setup fails (EAGAIN: the system's {@code aio-max-nr} is used
     *                                       up; ENOSYS: a kernel without AIO, or an architecture not supported).
     * @throws IllegalArgumentException      for a capacity out of range.
     * @throws UnsupportedOperationException if native I/O is unavailable.
     */
    public static AioContext open(final int capacity) throws NativeIoException
    {
        NativeIo.ensureAvailable();
        return open(capacity, AioKernel.linux());
    }

    static AioContext open(final int capacity, final AioKernel kernel) throws NativeIoException
    {
        if (capacity < 1 || capacity > 4096)
        {
            throw new IllegalArgumentException("capacity must be 1 to 4096 writes: " + capacity);
        }
        final int size = align(POINTERS_AT + align(capacity * 8) + capacity * (IOCB_LENGTH + EVENT_LENGTH));
        final AlignedMemory memory = AlignedMemory.allocate(size, ALIGNMENT); // zero: io_setup wants a zero id
        final long rc = kernel.setup(capacity, memory.address());
        if (rc < 0)
        {
            memory.close();
            throw new NativeIoException("io_setup", null, (int)-rc, -1, capacity);
        }
        return new AioContext(kernel, capacity, memory, memory.buffer().getLong(0));
    }

    private static int align(final int length)
    {
        return (length + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /** @return false once closed (also by a failed io_getevents, see {@link #submitAndAwait()}). */
    public boolean isOpen()
    {
        return !closed;
    }

    /** @return the most writes a batch holds. */
    public int capacity()
    {
        return capacity;
    }

    /** @return the writes added since the last {@link #clear()}. */
    public int size()
    {
        return size;
    }

    /**
     * Adds a write of {@code length} bytes at {@code address} to {@code position} of {@code file}, for the next
     * {@link #submitAndAwait()}. The memory must stay valid and unchanged until that returns; for an O_DIRECT file,
     * address, length and position must be aligned as the file wants (else the write fails with EINVAL).
     *
     * @param file     the file, held open until the write completes.
     * @param address  native address of the bytes.
     * @param length   how many bytes.
     * @param position where in the file.
     * @return the write's slot, for {@link #result} and {@link #failure}: 0 for the first write of a batch, and so on.
     * @throws IllegalStateException when the batch is full or the context closed.
     */
    public int add(final NativeFile file, final long address, final long length, final long position)
    {
        if (closed || size == capacity)
        {
            throw new IllegalStateException(closed ? "AIO context is closed" : "AIO batch is full: " + capacity);
        }
        final int slot = size++;
        files[slot] = file;
        lengths[slot] = length;
        positions[slot] = position;
        results[slot] = PENDING;
        final int fd;
        try
        {
            fd = file.acquireForAsync("io_submit(pwrite)", position, length);
        }
        catch (final NativeIoException e)
        {
            results[slot] = -Errno.EBADF; // closed: never queued
            return slot;
        }
        holding[slot] = true;
        final int iocb = iocbsAt + slot * IOCB_LENGTH;
        bytes.setMemory(iocb, IOCB_LENGTH, (byte)0);
        bytes.putLong(iocb + IOCB_DATA, slot);
        bytes.putShort(iocb + IOCB_OPCODE, IOCB_CMD_PWRITE);
        bytes.putInt(iocb + IOCB_FD, fd);
        bytes.putLong(iocb + IOCB_BUF, address);
        bytes.putLong(iocb + IOCB_NBYTES, length);
        bytes.putLong(iocb + IOCB_OFFSET, position);
        return slot;
    }

    /**
     * Submits every write added and waits until each has an outcome. Nothing is retried: a short write stays
     * short (its {@link #failure} says so).
     *
     * @throws NativeIoException when io_getevents itself fails: the context is then closed (io_destroy waits for
     *                           what was in flight) and every write without an outcome failed with that errno.
     */
    public void submitAndAwait() throws NativeIoException
    {
        if (closed)
        {
            throw new IllegalStateException("AIO context is closed");
        }
        int count = 0;
        for (int slot = 0; slot < size; slot++)
        {
            if (results[slot] == PENDING)
            {
                offered[count] = slot;
                bytes.putLong(POINTERS_AT + count * 8, memory.address() + iocbsAt + (long)slot * IOCB_LENGTH);
                count++;
            }
        }
        int submitted = 0;
        int inFlight = 0;
        while (submitted < count)
        {
            final long r = kernel.submit(ctxId, count - submitted, memory.address() + POINTERS_AT + submitted * 8L);
            if (r > 0)
            {
                submitted += (int)r;
                inFlight += (int)r;
            }
            else if (r == -Errno.EINTR)
            {
                continue;
            }
            else if (r == 0 || r == -Errno.EAGAIN)
            {
                if (inFlight == 0)
                {
                    while (submitted < count)
                    {
                        complete(offered[submitted++], -Errno.EAGAIN); // for the caller to write another way
                    }
                }
                else
                {
                    inFlight -= reap(1, inFlight); // resources come back as writes complete
                }
            }
            else
            {
                complete(offered[submitted++], r); // the first offered was refused; the rest are offered again
            }
        }
        while (inFlight > 0)
        {
            inFlight -= reap(inFlight, inFlight);
        }
    }

    /** @return completions collected: at least {@code min} unless interrupted (then possibly 0). */
    private int reap(final int min, final int max) throws NativeIoException
    {
        final long n = kernel.getEvents(ctxId, min, max, memory.address() + eventsAt);
        if (n == -Errno.EINTR)
        {
            return 0;
        }
        if (n < 0)
        {
            final int errno = (int)-n;
            close(); // io_destroy waits for the writes in flight: their memory and descriptors are free after it
            for (int slot = 0; slot < size; slot++)
            {
                if (results[slot] == PENDING)
                {
                    complete(slot, -errno);
                }
            }
            throw new NativeIoException("io_getevents", null, errno, -1, max);
        }
        for (int i = 0; i < n; i++)
        {
            final int event = eventsAt + i * EVENT_LENGTH;
            complete((int)bytes.getLong(event + EVENT_DATA), bytes.getLong(event + EVENT_RES));
        }
        return (int)n;
    }

    private void complete(final int slot, final long result)
    {
        results[slot] = result;
        if (holding[slot])
        {
            holding[slot] = false;
            files[slot].releaseAfterAsync();
        }
    }

    /**
     * @param slot a write of the last batch, from {@link #add}.
     * @return the outcome of the write in {@code slot} of the last batch: the bytes written (fewer than asked: a short
     * write), or the negated errno (-EAGAIN: never submitted, see the class comment).
     */
    public long result(final int slot)
    {
        checkSlot(slot);
        return results[slot];
    }

    /**
     * @param slot a write of the last batch, from {@link #add}.
     * @return null when the write in {@code slot} wrote all its bytes, else why not, naming file, offset and length.
     */
    public NativeIoException failure(final int slot)
    {
        checkSlot(slot);
        final long r = results[slot];
        if (r == lengths[slot])
        {
            return null;
        }
        if (r >= 0)
        {
            return new NativeIoException("aio pwrite", files[slot].path(), 0, positions[slot], lengths[slot],
                "wrote " + r + " of " + lengths[slot] + " bytes (a short write)");
        }
        if (r == PENDING)
        {
            return new NativeIoException("aio pwrite", files[slot].path(), 0, positions[slot], lengths[slot],
                "not submitted");
        }
        return new NativeIoException("aio pwrite", files[slot].path(), (int)-r, positions[slot], lengths[slot]);
    }

    private void checkSlot(final int slot)
    {
        if (slot < 0 || slot >= size)
        {
            throw new IndexOutOfBoundsException("slot " + slot + " of a batch of " + size);
        }
    }

    /** Forgets the last batch (its files included), for the next one. */
    public void clear()
    {
        for (int slot = 0; slot < size; slot++)
        {
            if (holding[slot])
            {
                holding[slot] = false; // added, never submitted
                files[slot].releaseAfterAsync();
            }
            files[slot] = null;
        }
        size = 0;
    }

    /** io_destroy and the native memory freed. Idempotent. Not while a batch runs. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        kernel.destroy(ctxId); // nothing is in flight between batches; after a failed io_getevents it waits for it
        memory.close();
    }
}
