package io.directlog.storage.log;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The newest written {@link Watermark}, which the writer publishes after every flush and the syncer reads about
 * once a second: a sequence lock over plain fields, so the writer allocates nothing per flush (a new Watermark
 * object per flush was 56 B per append for a lone producer, all of the engine's allocation on that path).
 * <p>
 * One writer at a time (the writer thread, or the opening thread before the writer knows the log); any number of
 * readers, who retry while a write is in progress. Assumes 64-bit plain long accesses do not tear (x86-64 and
 * aarch64 HotSpot).
 */
final class WatermarkCell
{
    private static final VarHandle VERSION;

    static
    {
        try
        {
            VERSION = MethodHandles.lookup().findVarHandle(WatermarkCell.class, "version", long.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through VERSION: odd while a write is in progress
    private volatile long version;
    private long epoch;
    private long sequence;
    private int position;
    private long offset;
    private int lastRecordPosition;
    private long lastRecordOffset;

    /** @param w the watermark to publish. Writer only. */
    void set(final Watermark w)
    {
        set(w.epoch(), w.sequence(), w.position(), w.offset(), w.lastRecordPosition(), w.lastRecordOffset());
    }

    /** Publishes a watermark without allocating (see {@link Watermark} for the fields). Writer only. */
    void set(final long epoch, final long sequence, final int position, final long offset,
        final int lastRecordPosition, final long lastRecordOffset)
    {
        final long v = (long)VERSION.getOpaque(this);
        VERSION.setOpaque(this, v + 1);
        VarHandle.storeStoreFence(); // the odd version before any field
        this.epoch = epoch;
        this.sequence = sequence;
        this.position = position;
        this.offset = offset;
        this.lastRecordPosition = lastRecordPosition;
        this.lastRecordOffset = lastRecordOffset;
        VERSION.setRelease(this, v + 2); // the fields before the even version
    }

    /** @return a consistent copy of the newest watermark, or null before the first {@link #set}. Any thread. */
    Watermark get()
    {
        while (true)
        {
            final long before = (long)VERSION.getAcquire(this);
            if (before == 0)
            {
                return null;
            }
            if ((before & 1) == 0)
            {
                final Watermark w = new Watermark(epoch, sequence, position, offset, lastRecordPosition,
                    lastRecordOffset);
                VarHandle.loadLoadFence(); // the fields before the second look at the version
                if ((long)VERSION.getOpaque(this) == before)
                {
                    return w;
                }
            }
            Thread.onSpinWait();
        }
    }
}
