package io.directlog.cli.bench;

import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The clock of one row: worker threads run while the coordinating thread moves the phase WARMUP, MEASURE, STOP.
 * Workers read the phase between operations and record only what they complete in MEASURE; the first failure of
 * any worker stops everyone and is rethrown by the coordinator.
 * <p>
 * Thread-safe: the phase is written by the coordinator (and set to STOP by a failing worker), read by workers.
 */
final class Phases
{
    /** How long the coordinator waits for a worker to finish its last operation after STOP. */
    static final long STOP_TIMEOUT_NANOS = 30_000_000_000L;

    private static final int WARMUP = 0;
    private static final int MEASURE = 1;
    private static final int STOP = 2;

    private volatile int phase = WARMUP;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    boolean warmingUp()
    {
        return phase == WARMUP;
    }

    boolean measuring()
    {
        return phase == MEASURE;
    }

    boolean stopped()
    {
        return phase == STOP;
    }

    /**
     * Called by a worker that cannot go on: stops the row and keeps the first cause.
     *
     * @param cause why.
     */
    void fail(final Throwable cause)
    {
        failure.compareAndSet(null, cause);
        phase = STOP;
    }

    /**
     * Starts the workers, warms up, measures, stops and joins them. Sleeping here is fine: this is the coordinator,
     * never a measuring thread.
     *
     * @param context timing of the run.
     * @param workers not yet started; made daemons so one stuck in a call cannot keep the JVM alive.
     * @return the measurement window's length in nanoseconds.
     * @throws Exception the first worker failure, or a timeout when a worker did not stop.
     */
    long run(final BenchContext context, final List<Thread> workers) throws Exception
    {
        for (final Thread t : workers)
        {
            t.setDaemon(true);
            t.start();
        }
        awaitOrFailure(context.warmupNanos());
        final long start = System.nanoTime();
        if (failure.get() == null)
        {
            // Only ever moved forward: a worker that failed has set STOP, and MEASURE must not undo it.
            phase = MEASURE;
            awaitOrFailure(context.measureNanos());
        }
        phase = STOP;
        final long elapsed = System.nanoTime() - start;

        final long deadline = System.nanoTime() + STOP_TIMEOUT_NANOS;
        for (final Thread t : workers)
        {
            t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            if (t.isAlive())
            {
                fail(new TimeoutException(t.getName() + " did not complete its operation within " +
                    STOP_TIMEOUT_NANOS / 1_000_000_000 + " s of the end"));
            }
        }
        rethrow(failure.get());
        return elapsed;
    }

    private void awaitOrFailure(final long nanos)
    {
        final long deadline = System.nanoTime() + nanos;
        long remaining;
        while ((remaining = deadline - System.nanoTime()) > 0 && failure.get() == null)
        {
            LockSupport.parkNanos(Math.min(remaining, 10_000_000L));
        }
    }

    /**
     * @param t a failure, or null.
     * @throws Exception t itself when it is an exception (an Error is rethrown as is).
     */
    static void rethrow(final Throwable t) throws Exception
    {
        if (t instanceof Exception ex)
        {
            throw ex;
        }
        if (t instanceof Error err)
        {
            throw err;
        }
        if (t != null)
        {
            throw new IllegalStateException(t);
        }
    }
}
