package io.directlog.broker.protocol;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.RecordsSend;

/**
 * Stored batches for a Fetch response, as views over the memory they were read into: a resident cache page
 * (pinned) or the engine's pooled read buffer. Nothing is copied in user space: {@link ResponseEncoder} splices
 * the views into the response between the serialized fields, and the connection releases them once the socket
 * took the bytes (or the response was dropped).
 * <p>
 * kafka-clients' serializers see it as {@link BaseRecords}: they ask its size, then hand it to
 * {@code Writable.writeRecords}, which {@link ResponseEncoder} answers. {@link #toSend()} is not used by this
 * broker and refuses.
 * <p>
 * Release is idempotent and may run on any thread once, after the views are no longer read.
 */
public final class PinnedRecords implements BaseRecords
{
    private final List<ByteBuffer> views;
    private final int sizeInBytes;
    private final AutoCloseable pin;
    private final AtomicBoolean released = new AtomicBoolean();

    /**
     * @param views the stored batches, back to back in response order; not copied.
     * @param pin   what keeps the memory under the views valid (the engine's read batch); closed on release.
     */
    public PinnedRecords(final List<ByteBuffer> views, final AutoCloseable pin)
    {
        this.views = List.copyOf(views);
        this.pin = pin;
        int size = 0;
        for (final ByteBuffer v : views)
        {
            size += v.remaining();
        }
        this.sizeInBytes = size;
    }

    /** @return independent duplicates of the views (their positions are the caller's), one per stored batch. */
    public ByteBuffer[] views()
    {
        final ByteBuffer[] out = new ByteBuffer[views.size()];
        for (int i = 0; i < out.length; i++)
        {
            out[i] = views.get(i).duplicate();
        }
        return out;
    }

    /** @return the batches copied into one heap buffer (for checks and tools; Fetch never copies). */
    public ByteBuffer copy()
    {
        final ByteBuffer out = ByteBuffer.allocate(sizeInBytes);
        for (final ByteBuffer v : views)
        {
            out.put(v.duplicate());
        }
        return out.flip();
    }

    @Override
    public int sizeInBytes()
    {
        return sizeInBytes;
    }

    @Override
    public RecordsSend<? extends BaseRecords> toSend()
    {
        throw new UnsupportedOperationException("pinned records are spliced by ResponseEncoder, not sent");
    }

    /** @return true when any view holds a zstd-compressed batch (Fetch below v10 cannot carry those). */
    public boolean containsZstd()
    {
        for (final ByteBuffer v : views)
        {
            if (KafkaRecords.containsZstd(v))
            {
                return true;
            }
        }
        return false;
    }

    /** Lets the engine reuse or evict the memory under the views. Idempotent. */
    public void release()
    {
        if (released.compareAndSet(false, true))
        {
            try
            {
                pin.close();
            }
            catch (final Exception e)
            {
                throw new IllegalStateException("could not release a fetched batch", e);
            }
        }
    }

    /** @return true after {@link #release()}. */
    public boolean isReleased()
    {
        return released.get();
    }
}
