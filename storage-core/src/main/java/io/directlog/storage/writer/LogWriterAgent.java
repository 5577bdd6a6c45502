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
import io.directlog.storage.StorageException;
import io.directlog.storage.buffer.Buffers;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;

/**
 * One writer thread and the logs pinned to it. Producers on any thread queue their records through the
 * {@link #proxy()} into a bounded many-to-one ring ({@link WriterQueue}); each duty cycle ({@link #doWork()})
 * drains it, copies each record into its log's cache page, then lets every log with work write what arrived
 * meanwhile with one O_DIRECT pwrite (group commit; which logs get a turn: {@link ClientTurns}), and the logs that want a DSYNC flush share one device flush
 * ({@link SharedFlush}). Agrona's {@link AgentRunner} runs the duty cycle and
 * {@link WriterIdleStrategy} waits between empty ones.
 * <p>
 * The thread may pin itself to given CPUs when it starts (see {@code StoreConfig.writerCpus}): a writer woken on
 * the CPU that took its write's completion interrupt is woken without an inter-processor interrupt.
 * <p>
 * Failures: what one log throws on this thread, an Error included, fails that log only ({@link #dutyCycleOf});
 * a thread that still ends without {@link #stop} fails every log it serves as its last act ({@link WriterThreadBody}).
 * <p>
 * Design note: the agent also owns its runner and thread, and forwards the producer-facing methods to its proxy,
 * because the log package reaches the writer through this type ({@code LogContext.writer()}); callers that only
 * offer should hold the {@link LogWriterProxy}.
 * <p>
 * Thread-safe for {@link #register}, {@link #stop} and the forwarded offer methods; {@link #doWork()},
 * {@link #onStart()}, {@link #onClose()} and {@link #deregister} run on the writer thread.
 */
public final class LogWriterAgent implements Agent
{
    /** Messages one duty cycle reads at most before the logs get their flush turn. */
    static final int MESSAGES_PER_DUTY_CYCLE = 4096;
    /** How long the final drain waits for a claim in flight to be committed before giving up on it. */
    static final long FINAL_DRAIN_WAIT_NANOS = 10_000_000_000L;
    private static final System.Logger LOG = System.getLogger(LogWriterAgent.class.getName());
    private static final Durability[] DURABILITIES = Durability.values();

    private final String name;
    private final WriterQueue queue;
    private final ManyToOneRingBuffer ring;
    private final WriterIdleStrategy idle;
    private final AgentRunner runner;
    private final Thread thread;
    private final LogWriterProxy proxy;
    /** Where the thread pins itself (next to the device's completion interrupts), or null. */
    private final CpuSet cpus;
    private final MessageHandler handler = this::onMessage;
    /** Counts what the callbacks of this writer's logs throw (the logs' guards count into it). */
    private final CallbackGuard callbacks;
    private volatile WriterClient[] clients = new WriterClient[0];
    /** Which logs get a turn in a duty cycle: the busy ones, all in a periodic sweep (writer-owned). */
    private final ClientTurns turns = new ClientTurns(this);
    /** The logs that want a DSYNC flush in this duty cycle, flushed together at its end (writer-owned). */
    private final SharedFlush sharedFlush = new SharedFlush();
    /** True while {@link #doWork()} gives the logs their turns: only then may one join the shared flush. */
    private boolean logsTurn;
    /** Writer's counter (or a late offerer's under the drain lock), read racily. */
    private long messages;
    /** Tests: thrown after the command that set it ({@link #endThreadForTest}); writer-owned, read per command. */
    private Error endThreadForTest;
    /** Runs the runner, and fails this writer's logs when the thread ends without the store's stop. */
    private final WriterThreadBody body;

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
        this.name = name;
        this.cpus = cpus;
        queue = new WriterQueue(queueBytes);
        ring = queue.ring;
        idle = new WriterIdleStrategy(queue, this);
        runner = new AgentRunner(idle, this::onDutyCycleError, null, this);
        body = new WriterThreadBody(name, runner, queue, this);
        thread = new Thread(body, name);
        thread.setDaemon(true);
        proxy = new LogWriterProxy(queue, this, thread);
        callbacks = new CallbackGuard("a log of " + name, null, thread);
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

    /** @return how other threads queue appends and commands for this writer. */
    public LogWriterProxy proxy()
    {
        return proxy;
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
        return idle.parks();
    }

    /**
     * Adds a log to this writer. Call before any append of that log is offered.
     *
     * @param client the log.
     * @return its slot, carried by each of its messages.
     */
    public synchronized int register(final WriterClient client)
    {
        // the caller checks death() after this: either it sees the death or onDeath sees this client
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

    /** @return the logs registered now (null where one was deregistered). */
    WriterClient[] clients()
    {
        return clients;
    }

    @Override
    public String roleName()
    {
        return name;
    }

    /**
     * A writer that cannot be pinned still works, only slower to wake: say so and go on. Errors too (a JNA
     * {@code UnsatisfiedLinkError}, a {@code NoClassDefFoundError}): AgentRunner would end the thread on one before
     * its first duty cycle.
     */
    @Override
    public void onStart()
    {
        if (cpus == null)
        {
            return;
        }
        try
        {
            ThreadAffinity.pinCurrentThread(cpus);
        }
        catch (final NativeIoException | RuntimeException | LinkageError e)
        {
            LOG.log(System.Logger.Level.WARNING, name + " runs unpinned: " + e);
        }
    }

    @Override
    public int doWork()
    {
        if (queue.stopping)
        {
            // expected: AgentRunner ends the loop without reporting an error, then calls onClose
            throw new AgentTerminationException(true);
        }
        int work = ring.read(handler, MESSAGES_PER_DUTY_CYCLE);
        final long now = System.nanoTime();
        logsTurn = true;
        try
        {
            work += turns.give(clients, now); // the busy logs, or all of them in a sweep
        }
        finally
        {
            logsTurn = false;
        }
        // after every log's turn: the DSYNC flushes the logs asked for, one device flush for all of them
        work += sharedFlush.run();
        // a callback may have interrupted this thread: AgentRunner ends its loop on an interrupt it sees, and an
        // interruptible channel (the buffered I/O fallback) closes itself on one. The writer uses no interrupts.
        Thread.interrupted();
        return work;
    }

    /**
     * One log's turn. What it throws, an Error included, fails that log only (fail-stop): its state is unknown
     * after a throw, the other logs' is not, and they go on (one log's failure must not stop the others).
     */
    int dutyCycleOf(final WriterClient client, final long now)
    {
        try
        {
            return client.onDutyCycle(now);
        }
        catch (final AgentTerminationException e)
        {
            throw e;
        }
        catch (final Throwable t)
        {
            failClient(client, "duty cycle", t, null);
            return 1;
        }
    }

    /** The log logs its failure with the cause (off this thread: see LogLifecycle.logFailure). */
    private void failClient(final WriterClient client, final String what, final Throwable thrown,
        final AppendCallback unfinished)
    {
        try
        {
            client.onFailure(what + " on " + name + " (" + thrown + ")", thrown, unfinished);
        }
        catch (final Throwable again)
        {
            LOG.log(System.Logger.Level.ERROR, name + ": failing that log threw too: " + again, again);
        }
    }

    /**
     * Called by a log in its {@link WriterClient#onDutyCycle}, instead of its own DSYNC flush: the writer flushes
     * it with the other logs that join in this cycle (see {@link SharedFlush}). Writer thread only.
     *
     * @param domain what one fdatasync flushes for the log's files ({@code BlockIo.flushDomain}), not null.
     * @param member the log.
     * @return true when joined; false outside the logs' turns of a duty cycle (a flush from a roll, a close, a
     * test driving the log itself): then the log flushes alone, now.
     */
    public boolean joinSharedFlush(final Object domain, final SharedFlushMember member)
    {
        if (!logsTurn || Thread.currentThread() != thread)
        {
            return false;
        }
        sharedFlush.join(domain, member);
        return true;
    }

    /** @return device flushes that covered two or more logs (writer's counter, read racily). */
    public long sharedFlushes()
    {
        return sharedFlush.flushes();
    }

    /** @return logs those flushes covered (writer's counter, read racily). */
    public long sharedFlushLogs()
    {
        return sharedFlush.logsCovered();
    }

    /**
     * The final drain: every log was closed through a command, so what is left are appends that raced the close.
     * Each claim made before the stop flag was seen is waited for and handled here (it completes with
     * LogClosedException: its log is deregistered); claims made later are handled by their offerers. Then the
     * shared flush lets go of its write batch.
     */
    @Override
    public void onClose()
    {
        try
        {
            finalDrain();
        }
        finally
        {
            sharedFlush.close(); // its AIO context: the system has a limited number of them (aio-max-nr)
        }
    }

    /**
     * Reads what is left in the ring once {@link WriterQueue#stopping} is set (by the stop, or by a thread's end,
     * see {@link WriterThreadBody}):
     * the tail is read after the flag, and a claim below it may not have seen the flag, so it is waited for (a
     * producer between its claim and its commit). Idempotent.
     */
    void finalDrain()
    {
        synchronized (queue.drainLock)
        {
            final long deadline = System.nanoTime() + FINAL_DRAIN_WAIT_NANOS;
            while (true)
            {
                readCommitted();
                if (ring.consumerPosition() >= ring.producerPosition())
                {
                    break;
                }
                if (System.nanoTime() - deadline >= 0)
                {
                    LOG.log(System.Logger.Level.ERROR, name + ": a queued message was claimed but not committed " +
                        "within " + FINAL_DRAIN_WAIT_NANOS / 1_000_000 + " ms of the stop; it is left unread");
                    break;
                }
                Thread.yield();
            }
            queue.finalDrainDone = true;
        }
    }

    /**
     * @return why this writer's thread ended without the store's stop (a {@link StorageException} naming the
     * thread and the cause), or null while it runs or after a stop as asked.
     */
    public StorageException death()
    {
        return body.death();
    }

    /**
     * Called by an offerer that saw the stop flag after committing (or aborting) its claim: once the writer's final
     * drain is over it reads the ring itself; before that, it leaves its message to the final drain, which waits for
     * it. Every offerer after the drain reads after its own commit, so the last one to commit reads what every
     * earlier one left behind its claim in flight.
     */
    void drainAfterStop()
    {
        synchronized (queue.drainLock)
        {
            if (queue.finalDrainDone)
            {
                readCommitted();
            }
        }
    }

    /**
     * Reads every committed message up to the first one still in flight. One {@link RingBuffer#read} stops at the
     * ring's end: a late offerer whose message wrapped to the start would otherwise leave it unread, and as it was
     * the last to commit nobody else would read it.
     */
    private void readCommitted()
    {
        long head;
        do
        {
            head = ring.consumerPosition();
            ring.read(handler, Integer.MAX_VALUE);
        }
        while (ring.consumerPosition() != head);
    }

    /**
     * @param nowNanos the time.
     * @return nanoseconds until the earliest background flush of a busy log is due, or the next sweep of all logs
     * (see {@link ClientTurns}).
     */
    long nanosToNextDeadline(final long nowNanos)
    {
        return turns.nanosToNextDeadline(clients, nowNanos);
    }

    private void onMessage(final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        messages++;
        final int attachmentSlot = index >> WriterQueue.ATTACHMENT_SHIFT;
        final Object attachment = queue.attachments[attachmentSlot];
        queue.attachments[attachmentSlot] = null;
        final int clientSlot = buffer.getInt(index + WriterQueue.CLIENT_SLOT_OFFSET);
        if (type == WriterQueue.COMMAND)
        {
            runCommand((Runnable)attachment);
            turns.onMessage(clientSlot);
            final Error end = endThreadForTest;
            if (end != null)
            {
                endThreadForTest = null;
                throw end; // outside any log's turn: the thread ends, as after an Error in the agent's own code
            }
            return;
        }
        final WriterClient client = clients[clientSlot];
        if (client == null)
        {
            // the log closed after this append passed its open check: refuse it, keep the writer alive
            final AppendCallback callback = type == WriterQueue.APPEND ? (AppendCallback)attachment :
                ((WriterQueue.LargeAppend)attachment).callback();
            callbacks.complete(callback, -1, new LogClosedException("log is closed"));
            return;
        }
        final int recordCount = buffer.getInt(index + WriterQueue.RECORD_COUNT_OFFSET);
        final Durability durability = DURABILITIES[buffer.getInt(index + WriterQueue.DURABILITY_OFFSET)];
        final AppendCallback callback = type == WriterQueue.APPEND ? (AppendCallback)attachment :
            ((WriterQueue.LargeAppend)attachment).callback();
        try
        {
            if (type == WriterQueue.APPEND)
            {
                client.onAppend(buffer, index + WriterQueue.HEADER_LENGTH, length - WriterQueue.HEADER_LENGTH,
                    recordCount, durability, callback);
            }
            else
            {
                final byte[] payload = ((WriterQueue.LargeAppend)attachment).payload();
                client.onAppend(Buffers.wrap(payload), 0, payload.length, recordCount, durability, callback);
            }
        }
        catch (final Throwable t)
        {
            // the ring has consumed the message already: the log fails, this append with it, the writer goes on
            failClient(client, "append", t, callback);
        }
        turns.onMessage(clientSlot);
    }

    /** A command is engine code and handles its own errors; one that does not must still not end the writer. */
    private void runCommand(final Runnable command)
    {
        try
        {
            command.run();
        }
        catch (final Throwable e)
        {
            // Throwable: a checked exception thrown sneakily (an InterruptedException) would end AgentRunner's loop
            LOG.log(System.Logger.Level.ERROR, name + ": a command failed: " + e, e);
        }
    }

    /**
     * What the duty cycle threw outside any log's turn (a log's own throw fails that log, see
     * {@link #dutyCycleOf}). AgentRunner goes on with the next cycle after an exception; after an {@link Error} it
     * ends the thread, and {@link WriterThreadBody} fails this writer's logs.
     */
    private void onDutyCycleError(final Throwable t)
    {
        LOG.log(System.Logger.Level.ERROR, name + ": a duty cycle failed: " + t, t);
    }

    /**
     * Stops the thread once the queue is drained; call after every log was closed. The runner's own close is not
     * used: it interrupts a writer that is slow to end, and an interrupt closes a FileChannel the buffered I/O
     * fallback is writing through.
     *
     * @param timeout how long to wait for the thread to end.
     * @throws InterruptedException when interrupted while waiting.
     */
    public void stop(final Duration timeout) throws InterruptedException
    {
        queue.stopping = true;
        LockSupport.unpark(thread);
        thread.join(timeout.toMillis());
    }

    /** @return the largest payload that travels inside the ring. */
    public int maxInlinePayload()
    {
        return proxy.maxInlinePayload();
    }

    /** @return bytes waiting in the queue. */
    public int queuedBytes()
    {
        return proxy.queuedBytes();
    }

    /**
     * Forwards to {@link LogWriterProxy#offerAppend}.
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
        return proxy.offerAppend(slot, source, index, length, recordCount, durability, callback, timeout);
    }

    /**
     * Forwards to {@link LogWriterProxy#offerCommand}.
     *
     * @param slot    the log's slot (or 0).
     * @param command what to run.
     * @param timeout how long to wait for room.
     * @return true when queued.
     */
    public boolean offerCommand(final int slot, final Runnable command, final Duration timeout)
    {
        return proxy.offerCommand(slot, command, timeout);
    }

    /** Forwards to {@link LogWriterProxy#wakeUp}. */
    public void wakeUp()
    {
        proxy.wakeUp();
    }

    /**
     * Forwards to {@link LogWriterProxy#timeoutException}.
     *
     * @param timeout the append timeout, for the exception's message.
     * @param log     the log's name.
     * @return the exception of a queue that stayed full.
     */
    public AppendTimeoutException timeoutException(final Duration timeout, final String log)
    {
        return proxy.timeoutException(timeout, log);
    }

    /**
     * Tests only, from a command on this writer: after that command the writer throws {@code error} outside any
     * log's turn, and its thread ends the way an Error in the agent's own code would end it (the messages behind
     * the command are left in the queue, as then).
     *
     * @param error what the thread ends with.
     */
    void endThreadForTest(final Error error)
    {
        endThreadForTest = error;
    }

    /** @return the ring, for tests. */
    RingBuffer ring()
    {
        return ring;
    }
}
