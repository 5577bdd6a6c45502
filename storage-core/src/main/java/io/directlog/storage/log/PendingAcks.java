package io.directlog.storage.log;

import java.util.Arrays;

import io.directlog.storage.AppendCallback;
import io.directlog.storage.Durability;

/**
 * Appends copied into the page but not yet acknowledged, in offset order: a growable ring of parallel arrays,
 * so the steady state allocates nothing.
 * <p>
 * Not thread-safe; owned by the writer thread.
 */
final class PendingAcks
{
    private final io.directlog.storage.writer.CallbackGuard guard;
    private AppendCallback[] callbacks = new AppendCallback[1024];
    private long[] offsets = new long[1024];
    private int head;
    private int size;
    private int[] lengths = new int[1024];
    private byte[] kinds = new byte[1024]; // the Durability ordinal of each pending append
    private int durable;
    private int dsync;
    private long completed;
    private long completedBytes;

    /** With a guard of its own: for a ring used outside a log. */
    PendingAcks()
    {
        this(new io.directlog.storage.writer.CallbackGuard("pending appends", null));
    }

    PendingAcks(final io.directlog.storage.writer.CallbackGuard guard)
    {
        this.guard = guard;
    }

    void add(final AppendCallback callback, final long offset, final Durability durability, final int length)
    {
        if (size == callbacks.length)
        {
            grow();
        }
        final int i = (head + size) & (callbacks.length - 1);
        callbacks[i] = callback;
        lengths[i] = length;
        kinds[i] = (byte)durability.ordinal();
        offsets[i] = durability == Durability.MEMORY ? offset : -offset - 1;
        size++;
        if (durability != Durability.MEMORY)
        {
            durable++;
            if (durability == Durability.DSYNC)
            {
                dsync++;
            }
        }
    }

    boolean isEmpty()
    {
        return size == 0;
    }

    int size()
    {
        return size;
    }

    /** @return pending appends that wait for a write (DIRECT or DSYNC). */
    int durable()
    {
        return durable;
    }

    /** @return pending appends that wait for a DSYNC write. */
    int dsync()
    {
        return dsync;
    }

    /** @return appends acknowledged successfully so far. */
    long completed()
    {
        return completed;
    }

    /** @return payload bytes of those appends. */
    long completedBytes()
    {
        return completedBytes;
    }

    /**
     * Completes pending appends successfully, in order, while each is a MEMORY append or its record was written
     * (its offset lies below {@code writtenEnd}); stops at the first DIRECT or DSYNC append not yet written, and
     * everything behind it waits. A writer that held its acknowledgements back (a sync in flight) and copied more
     * records since must not acknowledge those before they are written.
     *
     * @param writtenEnd the offset after the last record a completed write covered.
     */
    void completeUpTo(final long writtenEnd)
    {
        while (size > 0)
        {
            final int i = head;
            final long encoded = offsets[i];
            final long offset = encoded < 0 ? -encoded - 1 : encoded;
            final byte kind = kinds[i];
            if (kind != MEMORY && offset >= writtenEnd)
            {
                return;
            }
            final AppendCallback cb = callbacks[i];
            callbacks[i] = null;
            head = (head + 1) & (callbacks.length - 1);
            size--;
            if (kind != MEMORY)
            {
                durable--;
                if (kind == DSYNC)
                {
                    dsync--;
                }
            }
            completed++;
            completedBytes += lengths[i];
            guard.complete(cb, offset, null);
        }
    }

    private static final byte MEMORY = (byte)Durability.MEMORY.ordinal();
    private static final byte DSYNC = (byte)Durability.DSYNC.ordinal();

    /**
     * Fails every pending append, in order.
     *
     * @param error why.
     */
    void failAll(final Throwable error)
    {
        while (size > 0)
        {
            final int i = head;
            final AppendCallback cb = callbacks[i];
            callbacks[i] = null;
            head = (head + 1) & (callbacks.length - 1);
            size--;
            guard.complete(cb, -1, error);
        }
        durable = 0;
        dsync = 0;
    }

    /**
     * @param callback an append's completion.
     * @return true when it is pending here. A scan: only for a failure's path (an append that threw mid-copy).
     */
    boolean holds(final AppendCallback callback)
    {
        for (int k = 0; k < size; k++)
        {
            if (callbacks[(head + k) & (callbacks.length - 1)] == callback)
            {
                return true;
            }
        }
        return false;
    }

    private void grow()
    {
        final int n = callbacks.length;
        final AppendCallback[] c = new AppendCallback[n * 2];
        final long[] o = new long[n * 2];
        final int[] l = new int[n * 2];
        final byte[] d = new byte[n * 2];
        for (int k = 0; k < size; k++)
        {
            c[k] = callbacks[(head + k) & (n - 1)];
            o[k] = offsets[(head + k) & (n - 1)];
            l[k] = lengths[(head + k) & (n - 1)];
            d[k] = kinds[(head + k) & (n - 1)];
        }
        lengths = l;
        kinds = d;
        Arrays.fill(callbacks, null);
        callbacks = c;
        offsets = o;
        head = 0;
    }
}
