package io.directlog.storage.writer;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

import io.directlog.nativeio.CpuSet;
import io.directlog.nativeio.NativeIoException;
import io.directlog.nativeio.ThreadAffinity;
import io.directlog.storage.AppendCallback;
import io.directlog.storage.AppendTimeoutException;
import io.directlog.storage.Durability;
import io.directlog.storage.LogClosedException;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * One writer thread and the logs pinned to it. Producers on any thread copy their records into a bounded
 * many-to-one ring buffer (Agrona); the writer drains it, copies each record into its log's cache page, and
 * writes everything that arrived meanwhile with one O_DIRECT pwrite per log (group commit).
 * <p>
 * The completion of each queued append travels in a slot table indexed by the message's ring position:
 * a ring message occupies at least 24 bytes, so {@code index >> 4} is unique among live messages, and the slot
 * is cleared before the ring lets the bytes be claimed again. So the callback path allocates nothing.
 * <p>
 * The thread may pin itself to given CPUs when it starts (see {@code StoreConfig.writerCpus}): a writer woken on
 * the CPU that took its write's completion interrupt is woken without an inter-processor interrupt.
 * <p>
 * Idle strategy: spin briefly, yield, then park until a producer unparks it or the next background flush is
 * due. Producers unpark only when the writer said it sleeps (a volatile flag checked after publishing).
 * <p>
 * Thread-safe for the offer methods; {@link #run()} is the writer thread.
 */
public final class LogWriterAgent implements Runnable
{
    /** Message type of an inline append. */
    static final int APPEND = 1;
    /** Message type of an append too large for the ring: the payload travels on the heap. */
    static final int LARGE_APPEND = 2;
    /** Message type of a command run on the writer thread. */
    static final int COMMAND = 3;
    /** Bytes before the payload in a message: client slot, record count, durability, padding. */
    static final int HEADER_LENGTH = 16;
    private static final System.Logger LOG = System.getLogger(LogWriterAgent.class.getName());
    private static final Durability[] DURABILITIES = Durability.values();
    private static final int SPINS = 200;
    private static final int YIELDS = 20;
    private static final long MAX_PARK_NANOS = 10_000_000L;

    private final ManyToOneRingBuffer ring;
    private final UnsafeBuffer ringBuffer;
    private final Object[] slots;
    private final Thread thread;
    /** Where the thread pins itself (next to the device's completion interrupts), or null. */
    private final CpuSet cpus;
    private final MessageHandler handler = this::onMessage;
    /** Counts what the callbacks of this writer's logs throw (the logs' guards count into it). */
    private final CallbackGuard callbacks;
    private volatile WriterClient[] clients = new WriterClient[0];
    private volatile boolean sleeping;
    private volatile boolean running = true;
    /** Guards reads of the ring once the writer's loop ended: its final drain, and late offers after it. */
    private final Object stoppedLock = new Object();
    private boolean finalDrainDone;
    private long messages;
    private long parks;

    /**
     * @param name       the thread's name.
     * @param queueBytes the ring's capacity, a power of two.
     */
    public LogWriterAgent(final String name, final int queueBytes)
    {
        this(name, queueBytes, null);
    }

    /**
     * @param name       the thread's name.
     * @param queueBytes the ring's capacity, a power of two.
     * @param cpus       the CPUs the thread pins itself to when it starts, or null to leave it to the scheduler.
     */
    public LogWriterAgent(final String name, final int queueBytes, final CpuSet cpus)
    {
        this.cpus = cpus;
        ringBuffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            queueBytes + RingBufferDescriptor.TRAILER_LENGTH, 64));
        ring = new ManyToOneRingBuffer(ringBuffer);
        slots = new Object[queueBytes >> 4];
        thread = new Thread(this, name);
        thread.setDaemon(true);
        callbacks = new CallbackGuard("a log of " + name, null);
    }

    /** Starts the writer thread. */
    public void start()
    {
        thread.start();
    }

    /** @return the writer thread. */
    public Thread thread()
    {
        return thread;
    }

    /** @return the largest payload that travels inside the ring. */
    public int maxInlinePayload()
    {
        return ring.maxMsgLength() - HEADER_LENGTH;
    }

    /** @return bytes waiting in the queue. */
    public int queuedBytes()
    {
        return ring.size();
    }

    /** @return the guard that counts what callbacks of this writer's logs threw; never decreases. */
    public CallbackGuard callbacks()
    {
        return callbacks;
    }

    /** @return messages processed (writer's counter, read racily). */
    public long messages()
    {
        return messages;
    }

    /** @return times the writer parked. */
    public long parks()
    {
        return parks;
    }

    /**
     * Adds a log to this writer. Call before any append of that log is offered.
     *
     * @param client the log.
     * @return its slot, carried by each of its messages.
     */
    public synchronized int register(final WriterClient client)
    {
        // slots are never reused: an append queued for a log that closed meanwhile must not reach a newer log
        final WriterClient[] current = clients;
        final WriterClient[] next = Arrays.copyOf(current, current.length + 1);
        next[current.length] = client;
        clients = next;
        return current.length;
    }

    /**
     * Removes a log; call from the writer thread (in a command) once the log is closed.
     *
     * @param slot the log's slot.
     */
    public synchronized void deregister(final int slot)
    {
        final WriterClient[] next = clients.clone();
        next[slot] = null;
        clients = next;
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
        final boolean inline = length <= maxInlinePayload();
        final int claimed = claim(inline ? APPEND : LARGE_APPEND, HEADER_LENGTH + (inline ? length : 0), timeout);
        if (claimed < 0)
        {
            return false;
        }
        ringBuffer.putInt(claimed, slot);
        ringBuffer.putInt(claimed + 4, recordCount);
        ringBuffer.putInt(claimed + 8, durability.ordinal());
        if (inline)
        {
            ringBuffer.putBytes(claimed + HEADER_LENGTH, source, index, length);
            slots[claimed >> 4] = callback;
        }
        else
        {
            final byte[] copy = new byte[length];
            source.getBytes(index, copy);
            slots[claimed >> 4] = new LargeAppend(copy, callback);
        }
        ring.commit(claimed); // release: header, payload and slot visible before the message
        wake();
        completeIfStopped();
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
        final int claimed = claim(COMMAND, HEADER_LENGTH, timeout);
        if (claimed < 0)
        {
            return false;
        }
        ringBuffer.putInt(claimed, slot);
        slots[claimed >> 4] = command;
        ring.commit(claimed);
        wake();
        completeIfStopped();
        return true;
    }

    /**
     * An offer that passed its log's open check just before the store stopped this writer can land in the ring
     * after the writer's final drain; nobody would ever read it and its callback would never run. So the late
     * offerer drains the ring itself (its log is deregistered by then: the append completes with
     * LogClosedException). Before the final drain it leaves the message to the writer, which will see it.
     */
    private void completeIfStopped()
    {
        // StoreLoad: the commit above must be visible before 'running' is read, or both this thread (running still
        // true) and the writer's final drain (commit not yet seen) could leave the message behind
        java.lang.invoke.VarHandle.fullFence();
        if (!running && Thread.currentThread() != thread)
        {
            synchronized (stoppedLock)
            {
                if (finalDrainDone)
                {
                    ring.read(handler, Integer.MAX_VALUE);
                }
            }
        }
    }

    /** The longest a producer sleeps between looks at a full ring. */
    private static final long FULL_RING_PARK_MAX_NANOS = 1_000_000;

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
            if (System.nanoTime() - deadline >= 0 || !running)
            {
                return -1;
            }
            wake();
            if (++attempts < 100)
            {
                Thread.onSpinWait();
            }
            else
            {
                // a full ring means the writer is the bottleneck, with milliseconds of work queued: producers that
                // looked again every 50 us took the CPU it needs (16 of them on 2 cores: 300,000 wake-ups a second)
                LockSupport.parkNanos(Math.min(FULL_RING_PARK_MAX_NANOS, 50_000L << Math.min(5, (attempts - 100) / 8)));
            }
        }
    }

    private void wake()
    {
        if (sleeping)
        {
            LockSupport.unpark(thread);
        }
    }

    /** Wakes the writer if it sleeps (after a state change it must notice, like a failure). */
    public void wakeUp()
    {
        LockSupport.unpark(thread);
    }

    @Override
    public void run()
    {
        pin();
        int idle = 0;
        while (running)
        {
            int work = ring.read(handler, 4096);
            final long now = System.nanoTime();
            for (final WriterClient client : clients)
            {
                if (client != null)
                {
                    work += client.onDutyCycle(now);
                }
            }
            if (work > 0)
            {
                idle = 0;
            }
            else
            {
                idle = idleStep(idle, now);
            }
        }
        // the store is closing: every log was closed through a command, so the queue is drained; offers that
        // come later drain it themselves (completeIfStopped)
        synchronized (stoppedLock)
        {
            ring.read(handler, Integer.MAX_VALUE);
            finalDrainDone = true;
        }
    }

    /** A writer that cannot be pinned still works, only slower to wake: say so and go on. */
    private void pin()
    {
        if (cpus == null)
        {
            return;
        }
        try
        {
            ThreadAffinity.pinCurrentThread(cpus);
        }
        catch (final NativeIoException | RuntimeException e)
        {
            LOG.log(System.Logger.Level.WARNING, thread.getName() + " runs unpinned: " + e.getMessage());
        }
    }

    private int idleStep(final int idle, final long now)
    {
        if (idle < SPINS)
        {
            Thread.onSpinWait();
        }
        else if (idle < SPINS + YIELDS)
        {
            Thread.yield();
        }
        else
        {
            long parkNanos = MAX_PARK_NANOS;
            for (final WriterClient client : clients)
            {
                if (client != null)
                {
                    parkNanos = Math.min(parkNanos, client.nextDeadlineNanos(now) - now);
                }
            }
            sleeping = true;
            if (ring.size() == 0 && running && parkNanos > 0)
            {
                parks++;
                LockSupport.parkNanos(this, parkNanos);
            }
            sleeping = false;
        }
        return idle + 1;
    }

    private void onMessage(final int type, final org.agrona.MutableDirectBuffer buffer, final int index,
        final int length)
    {
        messages++;
        final int slotIndex = index >> 4;
        final Object attachment = slots[slotIndex];
        slots[slotIndex] = null;
        final int clientSlot = buffer.getInt(index);
        if (type == COMMAND)
        {
            runCommand((Runnable)attachment);
            return;
        }
        final WriterClient client = clients[clientSlot];
        if (client == null)
        {
            // the log closed after this append passed its open check: refuse it, keep the writer alive
            final AppendCallback callback = type == APPEND ? (AppendCallback)attachment :
                ((LargeAppend)attachment).callback;
            callbacks.complete(callback, -1, new LogClosedException("log is closed"));
            return;
        }
        final int recordCount = buffer.getInt(index + 4);
        final Durability durability = DURABILITIES[buffer.getInt(index + 8)];
        if (type == APPEND)
        {
            client.onAppend(buffer, index + HEADER_LENGTH, length - HEADER_LENGTH, recordCount, durability,
                (AppendCallback)attachment);
        }
        else
        {
            final LargeAppend large = (LargeAppend)attachment;
            client.onAppend(new UnsafeBuffer(large.payload), 0, large.payload.length, recordCount, durability,
                large.callback);
        }
    }

    /** A command is engine code and handles its own errors; one that does not must still not end the writer. */
    private void runCommand(final Runnable command)
    {
        try
        {
            command.run();
        }
        catch (final RuntimeException | Error e)
        {
            LOG.log(System.Logger.Level.ERROR, thread.getName() + ": a command failed: " + e, e);
        }
    }

    /**
     * Stops the thread once the queue is drained; call after every log was closed.
     *
     * @param timeout how long to wait for the thread to end.
     * @throws InterruptedException when interrupted while waiting.
     */
    public void stop(final Duration timeout) throws InterruptedException
    {
        running = false;
        LockSupport.unpark(thread);
        thread.join(timeout.toMillis());
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

    private record LargeAppend(byte[] payload, AppendCallback callback)
    {
    }

    /** @return the ring, for tests. */
    RingBuffer ring()
    {
        return ring;
    }
}
