package io.directlog.nativeio;

import com.sun.jna.Pointer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A block of zeroed native memory, freed by {@link #close()}. O_DIRECT needs the buffer address aligned (512 or
 * 4096 bytes, see {@link NativeFileSystem#directIoAlignment}); the JVM's own direct buffers only promise 8 (or 16),
 * hence this class.
 *
 * <p>Small blocks come from {@code posix_memalign} and are zeroed with memset. Blocks of
 * {@link #MMAP_THRESHOLD} bytes or more (segment-sized write pages, up to 1 GiB) come from an anonymous private
 * mapping: the kernel hands out zero pages lazily, so the allocation costs nothing up front, where memset of a
 * 1 GiB block took 0.9-1.8 s of a 2 s recovery budget; the address is page-aligned (4096, so only alignments up
 * to 4096 take this path); close munmaps it. This is memory allocation, not file mapping: the design forbids mmap
 * of files on the read/write path, which this is not.
 *
 * <p>There is no cleaner: memory not closed is leaked, on purpose, so that owners (page pools) stay accountable.
 * After {@link #close()} the {@link #buffer()} view is re-pointed at an empty array, so a stale reference fails a
 * bounds check instead of touching freed memory; the {@link #byteBuffer()} view cannot be revoked and must not be
 * used after close.
 *
 * <p>Thread-safe for {@link #close()} (frees exactly once); reading and writing the bytes is the caller's to order.
 */
public final class AlignedMemory implements AutoCloseable
{
    private static final byte[] EMPTY = new byte[0];
    /** Blocks at least this large are anonymous mappings (lazily zeroed by the kernel). */
    static final long MMAP_THRESHOLD = 2L << 20;
    /** The kernel's page: the unit a mapping is made resident, populated and discarded in. */
    public static final int PAGE = 4096;
    /** False once the kernel answered EINVAL to MADV_POPULATE_WRITE (before Linux 5.14). */
    private static volatile boolean populateSupported = true;

    private final long address;
    private final boolean mapped;
    private final long size;
    private final int alignment;
    private final UnsafeBuffer buffer;
    private final ByteBuffer byteBuffer;
    private final AtomicBoolean closed = new AtomicBoolean();

    private AlignedMemory(final long address, final long size, final int alignment, final boolean mapped)
    {
        this.address = address;
        this.mapped = mapped;
        this.size = size;
        this.alignment = alignment;
        if (size <= Integer.MAX_VALUE)
        {
            this.buffer = new UnsafeBuffer(address, (int)size);
            this.byteBuffer = new Pointer(address).getByteBuffer(0, size);
        }
        else
        {
            this.buffer = null;
            this.byteBuffer = null;
        }
    }

    /**
     * Allocates zeroed memory.
     *
     * @param size      bytes; positive and a multiple of {@code alignment}.
     * @param alignment a power of two, at least 8.
     * @return the block.
     * @throws IllegalArgumentException      naming the bad value.
     * @throws NativeMemoryException         if posix_memalign or mmap fails.
     * @throws UnsupportedOperationException if native I/O is unavailable.
     */
    public static AlignedMemory allocate(final long size, final int alignment)
    {
        if (alignment < 8 || Integer.bitCount(alignment) != 1)
        {
            throw new IllegalArgumentException("alignment must be a power of two >= 8: " + alignment);
        }
        if (size <= 0)
        {
            throw new IllegalArgumentException("size must be positive: " + size);
        }
        if ((size & (alignment - 1)) != 0)
        {
            throw new IllegalArgumentException(
                "size must be a multiple of the alignment " + alignment + ": " + size);
        }
        NativeIo.ensureAvailable();
        if (size >= MMAP_THRESHOLD && alignment <= PAGE)
        {
            return map(size, alignment);
        }
        final long[] out = new long[1];
        final int rc = LibC.posix_memalign(out, alignment, size);
        if (rc != 0)
        {
            throw new NativeMemoryException(
                "posix_memalign(alignment=" + alignment + ", size=" + size + ") failed", rc);
        }
        // posix_memalign does not zero; a page-cache page or I/O buffer must not expose old heap bytes.
        LibC.memset(out[0], 0, size);
        return new AlignedMemory(out[0], size, alignment, false);
    }

    /**
     * Allocates an anonymous private mapping whatever its size: zero, and not resident until written, so that its
     * resident memory is what its owner wrote. A growing write page needs this at any segment size; below
     * {@link #MMAP_THRESHOLD} {@link #allocate} would take memory from posix_memalign and memset all of it (and
     * malloc keeps freed blocks for reuse instead of giving them back, so a store closed and opened again would
     * hold both generations of pages).
     *
     * @param size      bytes; positive and a multiple of 4096.
     * @param alignment a power of two from 8 to 4096 (the mapping is page-aligned).
     * @return the block.
     * @throws IllegalArgumentException      naming the bad value.
     * @throws NativeMemoryException         if mmap fails.
     * @throws UnsupportedOperationException if native I/O is unavailable.
     */
    public static AlignedMemory allocateMapped(final long size, final int alignment)
    {
        if (alignment < 8 || alignment > PAGE || Integer.bitCount(alignment) != 1)
        {
            throw new IllegalArgumentException("alignment must be a power of two from 8 to " + PAGE + ": " + alignment);
        }
        if (size <= 0 || (size & (PAGE - 1)) != 0)
        {
            throw new IllegalArgumentException("size must be a positive multiple of " + PAGE + ": " + size);
        }
        NativeIo.ensureAvailable();
        return map(size, alignment);
    }

    private static AlignedMemory map(final long size, final int alignment)
    {
        final long at = LibC.mmap(0L, size, LibC.PROT_READ | LibC.PROT_WRITE, LibC.MAP_PRIVATE | LibC.MAP_ANONYMOUS,
            -1, 0L);
        if (at == LibC.MAP_FAILED)
        {
            throw new NativeMemoryException("mmap(anonymous, size=" + size + ") failed",
                com.sun.jna.Native.getLastError());
        }
        return new AlignedMemory(at, size, alignment, true); // anonymous pages read as zero: no memset
    }

    /**
     * @return the native address of the first byte.
     * @throws IllegalStateException after {@link #close()}.
     */
    public long address()
    {
        checkOpen();
        return address;
    }

    /**
     * @return the size in bytes.
     */
    public long size()
    {
        return size;
    }

    /**
     * @return the alignment of {@link #address()}.
     */
    public int alignment()
    {
        return alignment;
    }

    /**
     * A view over the whole block, created once: share it, do not re-wrap it.
     *
     * @return the view.
     * @throws IllegalStateException after close, or if the block is larger than {@link Integer#MAX_VALUE} bytes.
     */
    public UnsafeBuffer buffer()
    {
        checkOpen();
        checkViewable();
        return buffer;
    }

    /**
     * A direct {@link ByteBuffer} over the whole block, created once; callers {@code duplicate()} it to get their
     * own position and limit. Its byte order is the native one (as Agrona's views use), but a {@code duplicate()}
     * is big-endian again, as the JDK specifies: set the order on the duplicate.
     *
     * @return the view.
     * @throws IllegalStateException after close, or if the block is larger than {@link Integer#MAX_VALUE} bytes.
     */
    public ByteBuffer byteBuffer()
    {
        checkOpen();
        checkViewable();
        return byteBuffer;
    }

    /**
     * Sets every byte to 0.
     *
     * @throws IllegalStateException after close.
     */
    public void zero()
    {
        checkOpen();
        LibC.memset(address, 0, size);
    }

    /**
     * Zeroes a range and, in a block that is an anonymous mapping, gives its physical memory back to the kernel
     * ({@code madvise(MADV_DONTNEED)}): the range reads as zero again and costs no resident memory until it is
     * written. So a large block that was written only up to some point is zeroed by discarding what was written,
     * which is both cheaper than memset and leaves the block's resident size at zero. A small block (from
     * posix_memalign) is zeroed with memset.
     *
     * @param offset the first byte; a multiple of 4096.
     * @param length bytes; a multiple of 4096, within the block.
     * @throws IllegalArgumentException naming a bad offset or length.
     * @throws NativeMemoryException    if madvise fails.
     * @throws IllegalStateException    after close.
     */
    public void discard(final long offset, final long length)
    {
        checkOpen();
        checkPageRange(offset, length);
        if (length == 0)
        {
            return;
        }
        if (!mapped)
        {
            LibC.memset(address + offset, 0, length);
            return;
        }
        if (LibC.madvise(address + offset, length, LibC.MADV_DONTNEED) != 0)
        {
            throw new NativeMemoryException("madvise(MADV_DONTNEED, offset=" + offset + ", length=" + length +
                ") failed", com.sun.jna.Native.getLastError());
        }
    }

    /**
     * Makes a range of an anonymous mapping resident as if it had been written, without changing a byte
     * ({@code madvise(MADV_POPULATE_WRITE)}): whoever writes it next finds its pages there instead of taking the
     * page faults (and the kernel's zeroing of each page) on its own thread. Only the call's thread pays. Nothing is
     * ever written, so it may race a writer of the same range. A block from posix_memalign is resident already:
     * nothing to do.
     *
     * <p>The caller guarantees that the block is not closed while this runs (a closed block's range may be
     * mapped again by someone else).
     *
     * @param offset the first byte; a multiple of 4096.
     * @param length bytes; a multiple of 4096, within the block.
     * @return true when the range is resident now; false when the block is not a mapping, when the kernel has no
     * such advice (EINVAL before Linux 5.14: remembered, later calls return false at once), or when the call failed
     * (e.g. no memory left): then nothing is lost, the writer takes its own faults.
     * @throws IllegalArgumentException naming a bad offset or length.
     * @throws IllegalStateException    after close.
     */
    public boolean populateWrite(final long offset, final long length)
    {
        checkOpen();
        checkPageRange(offset, length);
        if (!mapped || length == 0 || !populateSupported)
        {
            return false;
        }
        if (LibC.madvise(address + offset, length, LibC.MADV_POPULATE_WRITE) == 0)
        {
            return true;
        }
        if (com.sun.jna.Native.getLastError() == Errno.EINVAL)
        {
            populateSupported = false; // the range is valid (checked above): the kernel lacks the advice
        }
        return false;
    }

    /** @return false once a kernel answered EINVAL to {@link #populateWrite}: it has no MADV_POPULATE_WRITE. */
    public static boolean populateSupported()
    {
        return populateSupported;
    }

    /** @return true when the block is an anonymous mapping: untouched bytes cost no resident memory. */
    public boolean isMapped()
    {
        return mapped;
    }

    /**
     * @return whether {@link #close()} has been called.
     */
    public boolean isClosed()
    {
        return closed.get();
    }

    /**
     * Frees the memory; idempotent and safe against concurrent calls.
     */
    @Override
    public void close()
    {
        if (closed.compareAndSet(false, true))
        {
            if (buffer != null)
            {
                buffer.wrap(EMPTY);
            }
            if (mapped)
            {
                LibC.munmap(address, size);
            }
            else
            {
                LibC.free(address);
            }
        }
    }

    @Override
    public String toString()
    {
        return "AlignedMemory{address=0x" + Long.toHexString(address) + ", size=" + size + ", alignment=" +
            alignment + (closed.get() ? ", closed" : "") + "}";
    }

    private void checkOpen()
    {
        if (closed.get())
        {
            throw new IllegalStateException("aligned memory is closed: " + this);
        }
    }

    private void checkPageRange(final long offset, final long length)
    {
        if (offset < 0 || length < 0 || offset > size - length)
        {
            throw new IllegalArgumentException("range [" + offset + ", +" + length + ") is outside the block of " +
                size + " bytes");
        }
        if ((offset & (PAGE - 1)) != 0 || (length & (PAGE - 1)) != 0)
        {
            throw new IllegalArgumentException("offset " + offset + " and length " + length +
                " must be multiples of " + PAGE);
        }
    }

    private void checkViewable()
    {
        if (buffer == null)
        {
            throw new IllegalStateException("block of " + size + " bytes is too large for a buffer view");
        }
    }
}
