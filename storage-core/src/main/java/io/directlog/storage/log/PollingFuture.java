package io.directlog.storage.log;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link CompletableFuture} whose {@link #join()} and {@link #get()} poll for the result for a short, adaptive
 * budget (see {@link WaitBudget}) before they park, so a caller that appends and joins at once does not sleep and
 * cost the writer a futex wake per append.
 * <p>
 * Why: {@code CompletableFuture.join} (JDK 9 and later) parks as soon as the result is missing. The writer that
 * completes the future then unparks the caller: a syscall on the writer, the one thread every append of the log
 * passes through, and a scheduler wake-up of tens of microseconds on a loaded VM before the caller runs again; by
 * then the idle writer has parked too, and the caller's next append has to unpark it. One producer appending
 * 100 B MEMORY records through {@code append(byte[]).join()} measured 17,000 to 100,000 appends/s for that
 * reason, the callback path with the polling {@code AppendWaiter} about 600,000/s. Completing a future nobody
 * parked on unparks nobody ({@code CompletableFuture} only wakes the waiters it queued), so once the caller polls,
 * the hand-off costs no syscall on either side.
 * <p>
 * A caller that waits longer than its budget parks in {@code CompletableFuture}'s own wait (interruptible
 * {@code get}, {@code ForkJoinPool.managedBlock} and all), so a long wait does not burn a core. Dependent futures
 * ({@code thenApply} and the like) are polling futures too.
 * <p>
 * Thread-safe, as {@code CompletableFuture}.
 *
 * @param <T> the result type.
 */
class PollingFuture<T> extends CompletableFuture<T>
{
    @Override
    public <U> CompletableFuture<U> newIncompleteFuture()
    {
        return new PollingFuture<>();
    }

    @Override
    public T join()
    {
        if (!isDone())
        {
            WaitBudget.forCurrentThread().poll(this, Long.MAX_VALUE);
        }
        return super.join();
    }

    @Override
    public T get() throws InterruptedException, ExecutionException
    {
        if (!isDone())
        {
            WaitBudget.forCurrentThread().poll(this, Long.MAX_VALUE);
        }
        return super.get();
    }

    @Override
    public T get(final long timeout, final TimeUnit unit) throws InterruptedException, ExecutionException,
        TimeoutException
    {
        if (isDone())
        {
            return super.get(timeout, unit);
        }
        final long start = System.nanoTime();
        final long timeoutNanos = unit.toNanos(timeout);
        WaitBudget.forCurrentThread().poll(this, timeoutNanos);
        return super.get(Math.max(0, timeoutNanos - (System.nanoTime() - start)), TimeUnit.NANOSECONDS);
    }
}
