package io.directlog.storage.writer;

import io.directlog.storage.AppendCallback;
import io.directlog.storage.buffer.Buffers;
import org.agrona.BitUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * The queue between the threads that append ({@link LogWriterProxy}) and the writer thread ({@link LogWriterAgent}):
 * a bounded many-to-one ring buffer (Agrona) of messages, a table of their heap attachments, and the flag that says
 * the writer is stopping.
 * <p>
 * A message after the ring's own 8-byte header:
 * <pre>
 *   0                   4                   8                   12                  16
 *   +-------------------+-------------------+-------------------+-------------------+----------------
 *   | client slot       | record count      | durability        | (padding)         | payload (APPEND)
 *   +-------------------+-------------------+-------------------+-------------------+----------------
 * </pre>
 * A command carries only the client slot; a large append carries no payload (it travels in the attachment).
 * <p>
 * The attachment of a message (its callback, command or large payload) sits at {@code index >> ATTACHMENT_SHIFT}:
 * a message occupies at least 24 bytes (ring header and ours), so the shifted index is unique among live messages;
 * the writer clears the attachment before the ring lets the bytes be claimed again. So the append path allocates
 * nothing for its callback.
 * <p>
 * Thread-safe: many threads claim and commit, one thread reads (the writer, or after its final drain a late
 * offerer holding {@link #drainLock}).
 */
final class WriterQueue
{
    /** Message type of an inline append. */
    static final int APPEND = 1;
    /** Message type of an append too large for the ring: the payload travels on the heap. */
    static final int LARGE_APPEND = 2;
    /** Message type of a command run on the writer thread. */
    static final int COMMAND = 3;
    static final int CLIENT_SLOT_OFFSET = 0;
    static final int RECORD_COUNT_OFFSET = CLIENT_SLOT_OFFSET + BitUtil.SIZE_OF_INT;
    static final int DURABILITY_OFFSET = RECORD_COUNT_OFFSET + BitUtil.SIZE_OF_INT;
    /** Bytes before the payload in a message. */
    static final int HEADER_LENGTH = 16;
    /** A message index shifted by this is its attachment's slot (see the class comment). */
    static final int ATTACHMENT_SHIFT = 4;

    final ManyToOneRingBuffer ring;
    final AtomicBuffer buffer;
    /** Written by the claiming thread before its commit (release), read and cleared by the reader. */
    final Object[] attachments;
    /**
     * Set once by {@link LogWriterAgent#stop}, or when the writer thread ended without it ({@link WriterThreadBody});
     * producers that see it after a claim take the late-offer path.
     */
    volatile boolean stopping;
    /**
     * True while the writer may be parked (written by {@link WriterIdleStrategy} around each park, read by every
     * offer). It lives here, among fields written once, not beside the idle strategy's counters, which the writer
     * writes on every idle cycle: producers reading it would miss the cache line each time.
     */
    volatile boolean sleeping;
    /** Held while the ring is read by anyone but the running writer: its final drain, and late offerers after it. */
    final Object drainLock = new Object();
    /** Guarded by {@link #drainLock}: the writer's final drain is over, late offerers read the ring themselves. */
    boolean finalDrainDone;

    /**
     * @param capacity the ring's capacity in bytes, a power of two.
     */
    WriterQueue(final int capacity)
    {
        buffer = Buffers.wrap(Buffers.allocateDirectAligned(
            capacity + RingBufferDescriptor.TRAILER_LENGTH, BitUtil.CACHE_LINE_LENGTH));
        ring = new ManyToOneRingBuffer(buffer);
        attachments = new Object[capacity >> ATTACHMENT_SHIFT];
    }

    /** @return the largest payload that travels inside the ring. */
    int maxInlinePayload()
    {
        return ring.maxMsgLength() - HEADER_LENGTH;
    }

    /** An append too large for the ring: its bytes, copied on the appending thread, and its completion. */
    record LargeAppend(byte[] payload, AppendCallback callback)
    {
    }
}
