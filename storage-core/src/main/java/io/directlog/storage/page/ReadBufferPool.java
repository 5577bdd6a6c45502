package io.directlog.storage.page;

import java.util.concurrent.ArrayBlockingQueue;

/**
 * Aligned buffers for reads that go to disk without paging a whole segment in. A small bounded set outside
 * the page budget: buffers of {@link #bufferSize()} are reused, larger ones are allocated and freed per read.
 * <p>
 * Thread-safe.
 */
public final class ReadBufferPool implements AutoCloseable
{
    private final int bufferSize;
    private final int alignment;
    private final ArrayBlockingQueue<PageMemory> free;

    /**
     * @param bufferSize the size of pooled buffers (at least 256 KiB: large aligned reads).
     * @param alignment  the direct-I/O alignment.
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
        return PageMemory.allocate((size + alignment - 1) / alignment * alignment, alignment);
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
