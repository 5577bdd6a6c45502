package io.directlog.storage.writer;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import io.directlog.storage.AppendCallback;
import io.directlog.storage.AppendTimeoutException;
import io.directlog.storage.Durability;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;

/**
 * How threads other than the writer reach it: an append or a command is claimed in the writer's queue, written and
 * committed, and the writer is unparked if it said it sleeps. A full queue is back-pressure: the offer waits for
 * room with a bounded back-off and returns false at its timeout, it never blocks for good.
 * <p>
 * Stopping: an offer that passed its log's open check just before the store stopped the writer can land in the
 * ring after the writer's final drain, where nobody would read it and its callback would never run. Such an offerer
 * reads the ring itself after its commit or abort ({@link LogWriterAgent#drainAfterStop()}). It knows it is late
 * without a fence: its claim is a CAS on the ring's tail and it reads {@link WriterQueue#stopping} (volatile) after
 * it; the writer reads the tail after the flag was set and waits in its final drain for every claim below it. So a
 * claim is either below that tail (the writer handles it) or made after the flag was set (this offerer sees the
 * flag and handles it).
 * <p>
 * Thread-safe.
 */
public final class LogWriterProxy
{
    /** Full-ring looks spent spinning before the producer parks. */
    static final int FULL_RING_SPINS = 100;
    /** The first park of a producer facing a full ring; it doubles every {@link #FULL_RING_PARKS_PER_STEP} looks. */
    static final long FULL_RING_PARK_MIN_NANOS = 50_000L;
    /** Looks at a full ring between two doublings of the park. */
    static final int FULL_RING_PARKS_PER_STEP = 8;
    /** The longest a producer sleeps between looks at a full ring. */
    static final long FULL_RING_PARK_MAX_NANOS = 1_000_000L;

    private final WriterQueue queue;
    private final ManyToOneRingBuffer ring;
    private final LogWriterAgent writer;
    private final Thread writerThread;

    LogWriterProxy(final WriterQueue queue, final LogWriterAgent writer, final Thread writerThread)
    {
        this.queue = queue;
        this.ring = queue.ring;
        this.writer = writer;
        this.writerThread = writerThread;
    }

    /** @return the largest payload that travels inside the ring. */
    public int maxInlinePayload()
    {
        return queue.maxInlinePayload();
    }

    /** @return bytes waiting in the queue. */
    public int queuedBytes()
    {
        return ring.size();
    }

    /**
     * Queues an append, waiting up to {@code timeout} for room.
     *
     * @param slot        the log's slot.
     * @param source      the bytes, copied now.
     * @param index       the first byte.
     * @param length      how many.
     * @param recordCount records the bytes hold.
     * @param durability  when to acknowledge.
     * @param callback    completion.
     * @param timeout     how long to wait for room.
     * @return true when queued; false after a timeout (nothing queued).
     */
    public boolean offerAppend(final int slot, final DirectBuffer source, final int index, final int length,
        final int recordCount, final Durability durability, final AppendCallback callback, final Duration timeout)
    {
        final boolean inline = length <= queue.maxInlinePayload();
        // a large payload is copied before the claim: a claim never committed (the allocation failed) would stop
        // the writer's reads at it for good
        final Object attachment = inline ? callback : new WriterQueue.LargeAppend(copy(source, index, length),
            callback);
        final int claimed = claim(inline ? WriterQueue.APPEND : WriterQueue.LARGE_APPEND,
            WriterQueue.HEADER_LENGTH + (inline ? length : 0), timeout);
        if (claimed < 0)
        {
            return false;
        }
        try
        {
            queue.buffer.putInt(claimed + WriterQueue.CLIENT_SLOT_OFFSET, slot);
            queue.buffer.putInt(claimed + WriterQueue.RECORD_COUNT_OFFSET, recordCount);
            queue.buffer.putInt(claimed + WriterQueue.DURABILITY_OFFSET, durability.ordinal());
            if (inline)
            {
                queue.buffer.putBytes(claimed + WriterQueue.HEADER_LENGTH, source, index, length);
            }
        }
        catch (final RuntimeException e)
        {
            ring.abort(claimed); // becomes padding: the writer's reads go past it
            // after the stop nobody else may read past it: a later offer committed meanwhile stopped its own
            // drain at this claim
            drainIfStopping();
            throw e;
        }
        queue.attachments[claimed >> WriterQueue.ATTACHMENT_SHIFT] = attachment;
        ring.commit(claimed); // release: header, payload and attachment visible before the message
        afterCommit();
        return true;
    }

    /**
     * Runs {@code command} on the writer thread, in queue order with appends.
     *
     * @param slot    the log's slot (or 0).
     * @param command what to run.
     * @param timeout how long to wait for room.
     * @return true when queued.
     */
    public boolean offerCommand(final int slot, final Runnable command, final Duration timeout)
    {
        final int claimed = claim(WriterQueue.COMMAND, WriterQueue.HEADER_LENGTH, timeout);
        if (claimed < 0)
        {
            return false;
        }
        queue.buffer.putInt(claimed + WriterQueue.CLIENT_SLOT_OFFSET, slot);
        queue.attachments[claimed >> WriterQueue.ATTACHMENT_SHIFT] = command;
        ring.commit(claimed);
        afterCommit();
        return true;
    }

    /** Wakes the writer if it sleeps (after a state change it must notice, like a failure). */
    public void wakeUp()
    {
        LockSupport.unpark(writerThread);
    }

    /**
     * @param timeout the append timeout, for the exception's message.
     * @param log     the log's name.
     * @return the exception of a queue that stayed full.
     */
    public AppendTimeoutException timeoutException(final Duration timeout, final String log)
    {
        return new AppendTimeoutException("append to log '" + log + "' timed out after " + timeout.toMillis() +
            " ms: the writer queue (" + ring.capacity() + " bytes) stayed full");
    }

    private void afterCommit()
    {
        wake();
        drainIfStopping();
    }

    private void drainIfStopping()
    {
        // a volatile load, no fence: the claim's CAS and this load are both in the synchronization order, which
        // makes the class comment's "below the writer's tail, or sees the flag" hold
        if (queue.stopping)
        {
            writer.drainAfterStop();
        }
    }

    private int claim(final int type, final int length, final Duration timeout)
    {
        int claimed = ring.tryClaim(type, length);
        if (claimed >= 0)
        {
            return claimed;
        }
        final long deadline = System.nanoTime() + timeout.toNanos();
        int attempts = 0;
        while (true)
        {
            claimed = ring.tryClaim(type, length);
            if (claimed >= 0)
            {
                return claimed;
            }
            if (System.nanoTime() - deadline >= 0 || queue.stopping)
            {
                return -1;
            }
            wake();
            if (++attempts < FULL_RING_SPINS)
            {
                Thread.onSpinWait();
            }
            else
            {
                LockSupport.parkNanos(fullRingParkNanos(attempts - FULL_RING_SPINS));
            }
        }
    }

    /**
     * A full ring means the writer is the bottleneck, with milliseconds of work queued: producers that looked again
     * every 50 us took the CPU it needs (16 of them on 2 cores: 300,000 wake-ups a second), so the park grows.
     *
     * @param parked looks at the full ring since the producer started parking.
     * @return how long to park before the next look.
     */
    static long fullRingParkNanos(final int parked)
    {
        final int doublings = Math.min(5, parked / FULL_RING_PARKS_PER_STEP);
        return Math.min(FULL_RING_PARK_MAX_NANOS, FULL_RING_PARK_MIN_NANOS << doublings);
    }

    private void wake()
    {
        if (queue.sleeping)
        {
            LockSupport.unpark(writerThread);
        }
    }

    private static byte[] copy(final DirectBuffer source, final int index, final int length)
    {
        final byte[] copy = new byte[length];
        source.getBytes(index, copy);
        return copy;
    }
}
