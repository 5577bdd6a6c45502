package io.directlog.storage.log;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.directlog.storage.AppendCallback;
import io.directlog.storage.Durability;
import io.directlog.storage.RecordTooLargeException;
import io.directlog.storage.buffer.Buffers;
import io.directlog.storage.format.RecordDescriptor;
import io.directlog.storage.writer.CallbackGuard;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The producer's side of an append: checks its arguments (bad input is refused by name, before anything is
 * queued), refuses it when the log is closed or failed, and offers it to the writer's queue (a full queue for
 * longer than the append timeout fails the append, never blocks forever).
 * <p>
 * Thread-safe: any producer thread; holds no state of its own.
 */
final class AppendIntake
{
    private final String name;
    private final LogContext context;
    private final LogLifecycle lifecycle;
    private final LogEventSink events;
    private final CallbackGuard callbacks;
    private final int slot;
    private final int segmentSize;
    private final int maxPayload;

    /** @param slot the log's writer slot (the intake is built once the log registered). */
    AppendIntake(final LogParts parts, final CallbackGuard callbacks, final int slot)
    {
        this.name = parts.name();
        this.context = parts.context();
        this.events = parts.events();
        this.lifecycle = parts.lifecycle();
        this.callbacks = callbacks;
        this.slot = slot;
        this.segmentSize = parts.meta().segmentSize();
        this.maxPayload = RecordDescriptor.maxPayloadLength(segmentSize);
    }

    CompletableFuture<Long> append(final byte[] payload, final int recordCount, final Durability durability)
    {
        if (payload == null)
        {
            throw new NullPointerException("payload");
        }
        final FutureCallback future = new FutureCallback();
        append(Buffers.wrap(payload), 0, payload.length, recordCount, durability, future);
        return future;
    }

    CompletableFuture<Long> append(final ByteBuffer payload, final Durability durability)
    {
        if (payload == null)
        {
            throw new NullPointerException("payload");
        }
        final FutureCallback future = new FutureCallback();
        final AtomicBuffer view = payload.isDirect() ? Buffers.wrap(payload, payload.position(), payload.remaining()) :
            Buffers.wrap(payload.array(), payload.arrayOffset() + payload.position(), payload.remaining());
        append(view, 0, payload.remaining(), 1, durability, future);
        return future;
    }

    void append(final DirectBuffer buffer, final int index, final int length, final int recordCount,
        final Durability durability, final AppendCallback callback)
    {
        if (buffer == null || durability == null || callback == null)
        {
            throw new NullPointerException(buffer == null ? "buffer" : durability == null ? "durability" : "callback");
        }
        if (length < 0 || index < 0 || (long)index + length > buffer.capacity())
        {
            throw new IndexOutOfBoundsException("index=" + index + " length=" + length + " outside a buffer of " +
                buffer.capacity() + " bytes");
        }
        if (recordCount < 1)
        {
            throw new IllegalArgumentException("recordCount=" + recordCount + " must be at least 1");
        }
        if (length > maxPayload)
        {
            throw new RecordTooLargeException("record of " + length + " bytes is larger than log '" + name +
                "' can hold: at most " + maxPayload + " bytes with segmentSize " + segmentSize);
        }
        final Throwable refused = lifecycle.refusal();
        if (refused != null)
        {
            callbacks.complete(callback, -1, refused);
            return;
        }
        final Duration timeout = context.appendTimeout();
        if (!context.writer().offerAppend(slot, buffer, index, length, recordCount, durability, callback,
            timeout))
        {
            final Throwable again = lifecycle.refusal();
            if (again == null)
            {
                events.appendTimedOut();
            }
            callbacks.complete(callback, -1, again != null ? again : context.writer().timeoutException(timeout, name));
        }
    }

    /**
     * The future behind the CompletableFuture API: itself the callback, so one allocation per append; its join and
     * get poll before they park (see {@link PollingFuture}).
     */
    static final class FutureCallback extends PollingFuture<Long> implements AppendCallback
    {
        @Override
        public void onComplete(final long offset, final Throwable error)
        {
            if (error == null)
            {
                complete(offset);
            }
            else
            {
                completeExceptionally(error);
            }
        }
    }
}
