package io.directlog.benchmarks.log;

import io.directlog.storage.AppendCallback;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A reusable completion for one producer's closed loop over the allocation-free append: arm, append, await.
 * <p>
 * The waiter may spin with {@link Thread#onSpinWait()} for {@value #SPIN_NANOS_PROP_NAME} nanoseconds, then
 * parks; the callback unparks it. Nothing is allocated per append. A completion that does not come within
 * {@link #TIMEOUT_NANOS} fails the benchmark rather than hang it.
 * <p>
 * Design note: the default is to park at once, as {@code CompletableFuture.join()} does, so the two API variants
 * wait the same way. On a two-core machine a spinning producer takes the core the log's writer thread needs; on
 * a machine with spare cores, {@code -Ddirectlog.bench.spinNanos=20000} measures what a spinning client gets.
 * <p>
 * Thread-safe for one owner thread (which arms and awaits) and one writer thread (which calls back).
 */
public final class Completion implements AppendCallback
{
    /** How long {@link #await()} waits before failing: 30 s. */
    public static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** System property: how long {@link #await()} spins before parking, in nanoseconds. */
    public static final String SPIN_NANOS_PROP_NAME = "directlog.bench.spinNanos";
    /** How long {@link #await()} spins before parking by default: 0, park at once (see the class comment). */
    public static final long SPIN_NANOS_DEFAULT = 0;
    private static final long SPIN_NANOS = Long.getLong(SPIN_NANOS_PROP_NAME, SPIN_NANOS_DEFAULT);

    private final Thread owner;
    private long offset;
    private Throwable error;
    private volatile boolean done;

    /** Creates a completion owned by the calling thread. */
    public Completion()
    {
        owner = Thread.currentThread();
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
            if (waited < SPIN_NANOS)
            {
                Thread.onSpinWait();
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
