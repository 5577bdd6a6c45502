package io.directlog.cli.bench;

import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

import org.agrona.DirectBuffer;

import io.directlog.storage.AppendCallback;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;

/**
 * One producer's closed-loop append: append, park until the callback, return the latency from the append call to
 * the callback. A park/unpark handshake rather than a latch or a future: nothing is allocated per append, and the
 * completion time is taken in the callback, so the producer's wake-up delay is not counted as append latency.
 * <p>
 * Not thread-safe: one per producer thread. The callback runs on the log's writer thread (or on the producer's own
 * thread when the append is refused before it is queued).
 */
final class AppendHandshake implements AppendCallback
{
    /** An append whose callback has not come after this long fails the row instead of hanging the bench. */
    static final long CALLBACK_TIMEOUT_NANOS = 30_000_000_000L;

    /** How long a producer with a core to itself spins for its callback before parking. */
    static final long SPIN_NANOS_ALONE = 50_000;

    private final long spinNanos;
    private volatile Thread producer;
    private volatile boolean done;
    // Plain: written by the writer thread before the volatile 'done', read by the producer after it.
    private long completedAtNanos;
    private Throwable error;

    /** A handshake for a lone producer. */
    AppendHandshake()
    {
        this(1);
    }

    /**
     * A lone producer's append crosses to the writer thread and back; parked, it pays a futex wake and a scheduler
     * wake-up (about 10 us on a VM) on top of the device write. So a producer that has a core to itself spins up to
     * {@link #SPIN_NANOS_ALONE} before parking, as a latency-minded client does; with as many producers as cores
     * or more it parks at once, since spinning would take the core the writer needs.
     *
     * @param producers how many producer threads the row runs.
     */
    AppendHandshake(final int producers)
    {
        spinNanos = producers < Runtime.getRuntime().availableProcessors() ? SPIN_NANOS_ALONE : 0;
    }

    @Override
    public void onComplete(final long offset, final Throwable error)
    {
        completedAtNanos = System.nanoTime();
        this.error = error;
        done = true; // release: completedAtNanos and error visible to the producer once it sees done
        LockSupport.unpark(producer);
    }

    /**
     * Appends one record and waits for its callback.
     *
     * @param log        where to append.
     * @param buffer     the payload.
     * @param length     payload bytes from index 0.
     * @param durability when the append is acknowledged.
     * @return nanoseconds from the append call to the callback.
     * @throws Exception the append's error, or a timeout when the callback never came.
     */
    long append(final Log log, final DirectBuffer buffer, final int length, final Durability durability)
        throws Exception
    {
        producer = Thread.currentThread();
        done = false;
        final long start = System.nanoTime();
        log.append(buffer, 0, length, durability, this);
        while (!done && System.nanoTime() - start < spinNanos)
        {
            Thread.yield(); // not onSpinWait: a writer woken on this core must get it at once, not after the spin
        }
        while (!done)
        {
            LockSupport.parkNanos(this, 100_000_000L);
            if (!done && System.nanoTime() - start > CALLBACK_TIMEOUT_NANOS)
            {
                throw new TimeoutException("no append callback within " + CALLBACK_TIMEOUT_NANOS / 1_000_000_000 +
                    " s");
            }
        }
        Phases.rethrow(error);
        return completedAtNanos - start;
    }
}
