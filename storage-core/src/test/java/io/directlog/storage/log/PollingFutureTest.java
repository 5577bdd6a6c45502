package io.directlog.storage.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.storage.ThreadWaits;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PollingFutureTest
{
    private static final Duration PARK_WITHIN = Duration.ofSeconds(10);

    @Test
    void joinAndGetReturnTheResultCompletedByAnotherThread() throws Exception
    {
        final PollingFuture<Long> future = new PollingFuture<>();
        final Thread completer = new Thread(() -> future.complete(42L));
        completer.start();
        assertEquals(42L, future.join());
        assertEquals(42L, future.get());
        assertEquals(42L, future.get(1, TimeUnit.SECONDS));
        completer.join();
    }

    @Test
    void failuresAreReportedAsCompletableFutureReportsThem()
    {
        final PollingFuture<Long> future = new PollingFuture<>();
        final IllegalStateException failure = new IllegalStateException("boom");
        future.completeExceptionally(failure);
        assertSame(failure, assertThrows(CompletionException.class, future::join).getCause());
        assertSame(failure, assertThrows(ExecutionException.class, future::get).getCause());
        assertSame(failure, assertThrows(ExecutionException.class, () -> future.get(1, TimeUnit.SECONDS)).getCause());
    }

    @Test
    void timedGetTimesOutWhenNothingCompletes()
    {
        final PollingFuture<Long> future = new PollingFuture<>();
        assertThrows(TimeoutException.class, () -> future.get(5, TimeUnit.MILLISECONDS));
        assertThrows(TimeoutException.class, () -> future.get(0, TimeUnit.NANOSECONDS));
    }

    @Test
    void aLongJoinParksAndIsWokenByTheCompletion() throws Exception
    {
        final PollingFuture<Long> future = new PollingFuture<>();
        final AtomicReference<Object> result = new AtomicReference<>();
        final Thread joiner = new Thread(() -> result.set(future.join()));
        joiner.start();
        ThreadWaits.awaitParked(joiner, PARK_WITHIN, "the joiner still runs (a long wait must park, not poll)");
        future.complete(7L);
        joiner.join(10_000);
        assertEquals(7L, result.get());
    }

    @Test
    void aParkedGetIsInterruptible() throws Exception
    {
        final PollingFuture<Long> future = new PollingFuture<>();
        final AtomicReference<Throwable> thrown = new AtomicReference<>();
        final CountDownLatch done = new CountDownLatch(1);
        final Thread getter = new Thread(() ->
        {
            try
            {
                future.get();
            }
            catch (final Throwable t)
            {
                thrown.set(t);
            }
            done.countDown();
        });
        getter.start();
        ThreadWaits.awaitParked(getter, PARK_WITHIN, "the getter still runs (a long wait must park, not poll)");
        getter.interrupt();
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertInstanceOf(InterruptedException.class, thrown.get());
    }

    @Test
    void dependentFuturesPollToo()
    {
        final PollingFuture<Long> future = new PollingFuture<>();
        final CompletableFuture<Long> next = future.thenApply(v -> v + 1);
        assertInstanceOf(PollingFuture.class, next);
        future.complete(1L);
        assertEquals(2L, next.join());
    }

    @Test
    void theBudgetStaysWithinItsBoundsAndFollowsTheWaits()
    {
        final WaitBudget budget = new WaitBudget();
        assertEquals(WaitBudget.MIN_POLL_NANOS, budget.budgetNanos());
        final PollingFuture<Long> never = new PollingFuture<>();
        for (int i = 0; i < 64; i++)
        {
            budget.poll(never, 200_000); // each poll spends its whole (capped) budget: the average rises
        }
        if (budget.preemptions() == 0)
        {
            // a loaded machine may preempt a poll: then the budget is 0 for a while (parks at once), by design
            assertTrue(budget.budgetNanos() > WaitBudget.MIN_POLL_NANOS, "budget " + budget.budgetNanos());
        }
        assertTrue(budget.budgetNanos() <= WaitBudget.MAX_POLL_NANOS, "budget " + budget.budgetNanos());
        final PollingFuture<Long> done = new PollingFuture<>();
        done.complete(1L);
        // a done future is never preempted: skipped waits run out, and the average falls back
        for (int i = 0; i < WaitBudget.MAX_SKIPPED_WAITS + 256; i++)
        {
            assertTrue(budget.poll(done, Long.MAX_VALUE));
        }
        assertEquals(WaitBudget.MIN_POLL_NANOS, budget.budgetNanos(), "immediate results bring it back down");
    }

    @Test
    void aPollSeesACompletionFromAnotherThreadWithinItsBudget() throws Exception
    {
        final WaitBudget budget = new WaitBudget();
        final PollingFuture<Long> future = new PollingFuture<>();
        final CountDownLatch polling = new CountDownLatch(1);
        final Thread completer = new Thread(() ->
        {
            try
            {
                polling.await();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            future.complete(7L);
        });
        completer.start();
        polling.countDown();
        // the poll yields on each look, so the completer gets a core even on a single busy CPU; polls (each at most
        // 1 ms, or none while a preempted poller skips) until 10 s have passed, then the test fails rather than hangs
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        boolean done = false;
        while (!done && System.nanoTime() - deadline < 0)
        {
            done = budget.poll(future, Long.MAX_VALUE);
        }
        assertTrue(done, "the completion was never seen");
        assertEquals(7L, future.join());
        completer.join(10_000);
        assertFalse(completer.isAlive());
    }
}
