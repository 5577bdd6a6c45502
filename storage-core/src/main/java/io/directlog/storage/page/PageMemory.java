package io.directlog.storage.page;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

import io.directlog.nativeio.AlignedMemory;
import io.directlog.nativeio.NativeIo;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One block of aligned native memory: a segment's cache page, or a read buffer. Freed explicitly, once.
 * <p>
 * Design note: memory comes from posix_memalign through storage-native where it is available, so it is freed
 * the moment the pool lets it go rather than when a GC finds the ByteBuffer; where native I/O is off it falls
 * back to an over-allocated direct ByteBuffer sliced to alignment and freed through its cleaner.
 * <p>
 * Thread-safe for {@link #free()}; the bytes are guarded by whoever owns the page.
 */
public final class PageMemory
{
    private final AlignedMemory nativeMemory;
    private final ByteBuffer fallback;
    private final ByteBuffer byteBuffer;
    private final UnsafeBuffer buffer;
    private final int size;
    private final AtomicBoolean freed = new AtomicBoolean();

    private PageMemory(final AlignedMemory nativeMemory, final ByteBuffer fallback, final ByteBuffer byteBuffer,
        final int size)
    {
        this.nativeMemory = nativeMemory;
        this.fallback = fallback;
        this.byteBuffer = byteBuffer;
        this.size = size;
        this.buffer = new UnsafeBuffer(byteBuffer, 0, size);
    }

    /**
     * Allocates zeroed memory.
     *
     * @param size      bytes, a multiple of alignment.
     * @param alignment a power of two.
     * @return the memory.
     */
    public static PageMemory allocate(final int size, final int alignment)
    {
        if (size <= 0 || size % alignment != 0)
        {
            throw new IllegalArgumentException("page size " + size + " must be a positive multiple of the alignment " +
                alignment);
        }
        if (NativeIo.isAvailable())
        {
            final AlignedMemory memory = AlignedMemory.allocate(size, alignment);
            return new PageMemory(memory, null, memory.byteBuffer(), size);
        }
        final ByteBuffer raw = ByteBuffer.allocateDirect(size + alignment);
        final ByteBuffer aligned = raw.alignedSlice(alignment);
        aligned.limit(size);
        return new PageMemory(null, raw, aligned.slice(), size);
    }

    /** @return the bytes as an Agrona buffer (index 0 is the first byte). */
    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    /** @return the bytes as a direct ByteBuffer: duplicate it before moving its position. */
    public ByteBuffer byteBuffer()
    {
        return byteBuffer;
    }

    /** @return the size in bytes. */
    public int size()
    {
        return size;
    }

    /** Sets every byte to zero. */
    public void zero()
    {
        buffer.setMemory(0, size, (byte)0);
    }

    /** @return true once freed. */
    public boolean isFreed()
    {
        return freed.get();
    }

    /** Frees the memory; later calls do nothing. The caller guarantees nobody reads it any more. */
    public void free()
    {
        if (freed.compareAndSet(false, true))
        {
            if (nativeMemory != null)
            {
                nativeMemory.close();
            }
            else
            {
                BufferUtil.free(fallback);
            }
        }
    }
}
