package io.directlog.storage.page;

import java.util.concurrent.ArrayBlockingQueue;

import org.agrona.BitUtil;

/**
 * Aligned buffers for reads that go to disk without paging a whole segment in. A small bounded set outside
 * the page budget: buffers of {@link #bufferSize()} are reused, larger ones are allocated and freed per read.
 * <p>
 * Thread-safe.
 */
public final class ReadBufferPool implements AutoCloseable
{
    /** Pooled buffer size: large enough for the aligned reads of a record batch, small enough to keep 32. */
    public static final int BUFFER_SIZE_DEFAULT = 256 << 10;
    /** Buffers kept for reuse: about one per concurrent reader thread, 8 MiB outside the page budget. */
    public static final int POOLED_BUFFERS_DEFAULT = 32;

    private final int bufferSize;
    private final int alignment;
    private final ArrayBlockingQueue<PageMemory> free;

    /**
     * @param bufferSize the size of pooled buffers (at least 256 KiB: large aligned reads).
     * @param alignment  the direct-I/O alignment, a power of two.
     * @param maxPooled  buffers kept for reuse.
     */
    public ReadBufferPool(final int bufferSize, final int alignment, final int maxPooled)
    {
        this.bufferSize = bufferSize;
        this.alignment = alignment;
        this.free = new ArrayBlockingQueue<>(maxPooled);
    }

    /** @return the pooled buffer size. */
    public int bufferSize()
    {
        return bufferSize;
    }

    /**
     * @param size bytes needed.
     * @return a buffer of at least {@code size} bytes.
     */
    public PageMemory acquire(final int size)
    {
        if (size <= bufferSize)
        {
            final PageMemory pooled = free.poll();
            return pooled != null ? pooled : PageMemory.allocate(bufferSize, alignment);
        }
        return PageMemory.allocate(BitUtil.align(size, alignment), alignment);
    }

    /**
     * @param buffer a buffer from {@link #acquire(int)}, no longer used.
     */
    public void release(final PageMemory buffer)
    {
        if (buffer.size() != bufferSize || !free.offer(buffer))
        {
            buffer.free();
        }
    }

    @Override
    public void close()
    {
        PageMemory p;
        while ((p = free.poll()) != null)
        {
            p.free();
        }
    }
}
