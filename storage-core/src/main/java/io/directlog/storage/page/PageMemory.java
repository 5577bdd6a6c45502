package io.directlog.storage.page;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import io.directlog.nativeio.AlignedMemory;
import io.directlog.nativeio.NativeIo;
import io.directlog.storage.buffer.Buffers;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;

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
    private static final int OS_PAGE = AlignedMemory.PAGE;
    private final AlignedMemory nativeMemory;
    private final ByteBuffer fallback;
    private final ByteBuffer byteBuffer;
    private final AtomicBuffer buffer;
    private final int size;
    private final boolean growing;
    /**
     * Bytes of this page counted against the pool's budget: all of it for a fixed page; for a growing page the
     * prefix its owner may write. Changed only by {@link PagePool}, under its lock, at its owner's request (so the
     * owner reads it without a lock); volatile for the populator, which reads it under its populate lock only.
     */
    private volatile int charge;
    /** The first byte a growing page's charge counts from (its owner writes nothing below); 0 for a fixed page. */
    private final int chargedFrom;
    private final AtomicBoolean freed = new AtomicBoolean();
    /**
     * Orders a background {@link #populate} against {@link #free()} and a lowered charge: it never touches memory
     * unmapped, nor leaves bytes resident past the charge. Taken after the pool's lock, never before it.
     */
    private final Object populateLock = new Object();
    /** The end of what {@link #populate} made resident (0: nothing). Guarded by populateLock. */
    private int populatedEnd;

    private PageMemory(final AlignedMemory nativeMemory, final ByteBuffer fallback, final ByteBuffer byteBuffer,
        final int size, final boolean growing, final int chargedFrom, final int charge)
    {
        this.chargedFrom = chargedFrom;
        this.nativeMemory = nativeMemory;
        this.fallback = fallback;
        this.byteBuffer = byteBuffer;
        this.size = size;
        this.growing = growing;
        this.charge = charge;
        this.buffer = Buffers.wrap(byteBuffer, 0, size);
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
        return allocate(size, alignment, false, 0, size);
    }

    /**
     * Allocates a growing page: the whole {@code size} is addressable (a segment's write page keeps one address
     * range, so O_DIRECT writes and readers' positions stay as they are), but only {@code charge} bytes count
     * against the budget until {@link PagePool#tryGrow} charges more. Where native memory is available the block
     * is an anonymous mapping whose untouched bytes are neither resident nor non-zero, so resident memory follows
     * what the owner wrote, never more than the charge; the fallback's direct ByteBuffer is zeroed (and resident)
     * in full by the JDK, so there the charge is accounting only.
     *
     * The charge counts from {@code from}: a page taken for a segment that already holds records below the writer's
     * next block (a log that gave its page back while idle) is charged for what it can hold from there, not for
     * addresses below it that nobody touches.
     *
     * @param size      the capacity in bytes, a multiple of alignment.
     * @param alignment a power of two.
     * @param from      the first byte the owner may write, a multiple of alignment.
     * @param charge    the bytes counted now from {@code from}, a positive multiple of alignment, at most
     *                  {@code size - from}.
     * @return the memory, zeroed.
     */
    static PageMemory allocateGrowing(final int size, final int alignment, final int from, final int charge)
    {
        checkWindow(from, charge, size, alignment);
        return allocate(size, alignment, true, from, charge);
    }

    private static PageMemory allocate(final int size, final int alignment, final boolean growing, final int from,
        final int charge)
    {
        if (size <= 0 || size % alignment != 0)
        {
            throw new IllegalArgumentException("page size " + size + " must be a positive multiple of the alignment " +
                alignment);
        }
        if (NativeIo.isAvailable())
        {
            // a growing page is always an anonymous mapping, whatever its size: resident as written, never more
            final AlignedMemory memory = growing && alignment <= OS_PAGE ?
                AlignedMemory.allocateMapped(size, alignment) : AlignedMemory.allocate(size, alignment);
            return new PageMemory(memory, null, memory.byteBuffer(), size, growing, from, charge);
        }
        final ByteBuffer raw = ByteBuffer.allocateDirect(size + alignment);
        final ByteBuffer aligned = raw.alignedSlice(alignment);
        aligned.limit(size);
        return new PageMemory(null, raw, aligned.slice(), size, growing, from, charge);
    }

    static void checkWindow(final int from, final int charge, final int size, final int alignment)
    {
        if (from < 0 || from >= size || from % alignment != 0)
        {
            throw new IllegalArgumentException("charge start " + from + " must be a multiple of the alignment " +
                alignment + " within the page size " + size);
        }
        if (charge <= 0 || charge > size - from || charge % alignment != 0)
        {
            throw new IllegalArgumentException("charge " + charge + " must be a positive multiple of the alignment " +
                alignment + ", at most the page size " + size + " less its start " + from);
        }
    }

    /** @return the bytes as an Agrona buffer (index 0 is the first byte). */
    public AtomicBuffer buffer()
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

    /**
     * Zeroes the page a chunk at a time, so that a thread that needs the page's memory back waits one chunk, not the
     * whole page.
     *
     * @param chunk   bytes zeroed between two looks at {@code stop}.
     * @param stop    asked between chunks; true stops the zeroing.
     * @return true when every byte is zero; false when {@code stop} ended it first.
     */
    public boolean zeroUnless(final int chunk, final BooleanSupplier stop)
    {
        for (int from = 0; from < size; from += chunk)
        {
            if (stop.getAsBoolean())
            {
                return false;
            }
            buffer.setMemory(from, Math.min(chunk, size - from), (byte)0);
        }
        return true;
    }

    /** @return true for a page charged in chunks (see {@link #allocateGrowing}). */
    public boolean growing()
    {
        return growing;
    }

    /**
     * @return the bytes counted against the budget: the page size for a fixed page; for a growing page the prefix
     * its owner may write (bytes from here on are zero and, with native memory, not resident). Read it on the
     * owner's thread, or under the pool's lock.
     */
    public int charge()
    {
        return charge;
    }

    /** @return the first byte the charge counts from: 0 for a fixed page. */
    public int chargedFrom()
    {
        return chargedFrom;
    }

    /** @return the end of what the owner may write: {@link #chargedFrom()} plus {@link #charge()}. Owner's thread. */
    public int chargedEnd()
    {
        return chargedFrom + charge;
    }

    /**
     * Sets the charge (the pool, under its lock). A lower charge gives back to the kernel what a {@link #populate}
     * made resident past it, under the populate lock: those bytes were never written (zero), and resident memory
     * stays within the charge.
     */
    void charge(final int bytes)
    {
        if (bytes >= charge)
        {
            charge = bytes; // a grow: a populate that reads the old charge stops early, and the grow's own follows
            return;         // so the writer never waits here for a populate piece
        }
        synchronized (populateLock)
        {
            charge = bytes;
            final int end = (chargedFrom + bytes + OS_PAGE - 1) & -OS_PAGE; // the OS page holding a charged byte stays
            if (populatedEnd > end)
            {
                nativeMemory.discard(end, populatedEnd - end);
                populatedEnd = end;
            }
        }
    }

    /**
     * Faults in {@code [from, to)} of a growing page as if written, without changing a byte (see
     * {@link AlignedMemory#populateWrite}), so that its writer finds the memory there instead of taking the page
     * faults and the kernel's zeroing on its own thread. A piece at a time, each under a lock that {@link #free()}
     * and a lowered charge also take: it never runs on memory unmapped, nor past what is charged now, and the
     * owner's {@code free()} or trim waits one piece at most. Called by the pool's populator thread, never by the
     * owner; does nothing for a fixed page or one not mapped.
     *
     * @param from  the first byte.
     * @param to    the end.
     * @param piece bytes populated under the lock at a time, a multiple of the OS page.
     */
    void populate(final int from, final int to, final int piece)
    {
        if (!growing || nativeMemory == null || !nativeMemory.isMapped())
        {
            return;
        }
        int at = from & -OS_PAGE;
        while (at < to)
        {
            synchronized (populateLock)
            {
                final int end = Math.min(Math.min(to, at + piece), chargedFrom + charge) & -OS_PAGE;
                if (freed.get() || at >= end || !nativeMemory.populateWrite(at, end - at))
                {
                    return;
                }
                populatedEnd = Math.max(populatedEnd, end);
                at = end;
            }
            Thread.yield(); // between pieces, outside the lock: a writer woken meanwhile gets the core now
        }
    }

    /** @return true once freed. */
    public boolean isFreed()
    {
        return freed.get();
    }

    /** Frees the memory; later calls do nothing. The caller guarantees nobody reads it any more. */
    public void free()
    {
        final boolean first;
        synchronized (populateLock)
        {
            first = freed.compareAndSet(false, true); // a populate now in progress ends before this returns
        }
        if (first)
        {
            if (nativeMemory != null)
            {
                nativeMemory.close();
            }
            else if (Buffers.unsafe())
            {
                BufferUtil.free(fallback);
            }
            // else the JVM gives Agrona no Unsafe to free with: the buffer's memory goes with it at a GC
        }
    }
}
