package io.directlog.benchmarks.log;

import io.directlog.storage.AppendCallback;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A reusable completion for one producer's closed loop over the allocation-free append: arm, append, await.
 * <p>
 * The waiter polls (yielding its core to any thread that wants it) for a while, then parks; the callback unparks it. Nothing is
 * allocated per append. A completion that does not come within {@link #TIMEOUT_NANOS} fails the benchmark rather
 * than hang it.
 * <p>
 * Design note: how long to spin is the client's choice, and it decides a lone producer's latency: an append
 * crosses to the writer thread and back, and a parked producer pays a futex wake and a scheduler wake-up (about
 * 10 us on this VM) on top of the device write. So a producer that has a core to itself (fewer producer threads
 * than cores) spins up to {@link #SPIN_NANOS_ALONE} before parking, as a latency-minded client of any
 * thread-handoff log does; with as many producers as cores or more, spinning would take the core the writer needs,
 * so it parks at once, as {@code CompletableFuture.join()} nearly does. {@value #SPIN_NANOS_PROP_NAME} overrides
 * both (0: always park at once).
 * <p>
 * Thread-safe for one owner thread (which arms and awaits) and one writer thread (which calls back).
 */
public final class Completion implements AppendCallback
{
    /** How long {@link #await()} waits before failing: 30 s. */
    public static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** System property: how long {@link #await()} spins before parking, in nanoseconds. */
    public static final String SPIN_NANOS_PROP_NAME = "directlog.bench.spinNanos";
    /** How long a producer with a core to itself spins before parking: 50 us (see the class comment). */
    public static final long SPIN_NANOS_ALONE = 50_000;

    private final Thread owner;
    private final long spinNanos;
    private long offset;
    private Throwable error;
    private volatile boolean done;

    /** Creates a completion owned by the calling thread, for a benchmark with one producer. */
    public Completion()
    {
        this(1);
    }

    /**
     * Creates a completion owned by the calling thread.
     *
     * @param producers how many producer threads the benchmark runs (its {@code @Threads}).
     */
    public Completion(final int producers)
    {
        owner = Thread.currentThread();
        final long alone = producers < Runtime.getRuntime().availableProcessors() ? SPIN_NANOS_ALONE : 0;
        spinNanos = Long.getLong(SPIN_NANOS_PROP_NAME, alone);
    }

    /** Prepares for the next append. Owner thread only. */
    public void arm()
    {
        done = false;
    }

    @Override
    public void onComplete(final long offset, final Throwable error)
    {
        this.offset = offset;
        this.error = error;
        done = true; // release: offset and error visible before done
        LockSupport.unpark(owner);
    }

    /**
     * Waits for the callback. Owner thread only.
     *
     * @return the offset the append got.
     * @throws IllegalStateException when the append failed (with its error as cause) or timed out.
     */
    public long await()
    {
        final long start = System.nanoTime();
        while (!done) // acquire: pairs with the release in onComplete
        {
            final long waited = System.nanoTime() - start;
            if (waited < spinNanos)
            {
                Thread.yield(); // not onSpinWait: a writer woken on this core must get it at once, not after the spin
            }
            else if (waited < TIMEOUT_NANOS)
            {
                LockSupport.parkNanos(this, TIMEOUT_NANOS - waited);
            }
            else
            {
                throw new IllegalStateException("append not acknowledged within " +
                    TimeUnit.NANOSECONDS.toSeconds(TIMEOUT_NANOS) + " s");
            }
        }
        if (error != null)
        {
            throw new IllegalStateException("append failed: " + error, error);
        }
        return offset;
    }
}
