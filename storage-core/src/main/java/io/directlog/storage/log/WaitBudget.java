package io.directlog.storage.log;

import java.util.concurrent.Future;

/**
 * How long one thread polls for an append's result before it parks: four times the moving average of its own
 * recent waits, within 50 us and 1 ms, the rule of {@code AppendWaiter}. A thread whose appends are acknowledged in
 * microseconds (MEMORY, or a fast device) polls them all; a stall parks soon after the budget.
 * <p>
 * Polling yields on each look, as {@code AppendWaiter} does, from the first: the writer may need this core (with
 * more waiting threads than cores, or when the scheduler put this thread on the writer's pinned CPU), and
 * {@code Thread.yield} hands it over at once. It spun 64 looks before its first yield (about a microsecond alone on
 * a core): beside the writer on one CPU, that held the core the writer needed to acknowledge.
 * <p>
 * Except when the cores are oversubscribed. Polling pays only while the poller and the writer both hold a core;
 * when more threads want the CPUs than there are, a thread that keeps running is scheduled behind the others, and
 * a thread woken from a park is scheduled ahead of them (the Linux scheduler favours sleepers), so the plain
 * park-and-unpark hand-off is the faster one. Measured on the 2-vCPU machine with a load average near 30: one
 * producer of 100 B MEMORY appends through {@code join()} did 40,000 to 60,000 appends/s parking at once and 1,000
 * to 3,000/s polling for up to 1 ms. The poller sees the oversubscription itself: a look that comes back more than
 * {@link #PREEMPTED_NANOS} after the previous one means the thread was taken off its core. It then parks at once
 * and skips polling for its next waits, twice as many after each such wait (up to {@link #MAX_SKIPPED_WAITS}), and
 * polls again after a wait whose poll ran undisturbed.
 * <p>
 * One per thread ({@link #forCurrentThread()}); not thread-safe.
 */
final class WaitBudget
{
    static final long MIN_POLL_NANOS = 50_000;
    static final long MAX_POLL_NANOS = 1_000_000;
    /**
     * A gap between two looks longer than this means another CPU-bound thread took the core for a time slice: a look
     * takes nanoseconds, and the short-lived threads of a quiet machine (the preparer between its writes, the
     * syncer's tick) hand the core back within tens of microseconds. At 10 us, those made the poller park for up to
     * 256 waits on a quiet machine: DIRECT appends through join() then took 64 us at p50 against 37 us through the
     * callback path in the same run; at 1 ms both took 44 to 53 us. The price: under heavy oversubscription, where
     * each yield hands the core over for less than this, the poller keeps polling up to its budget.
     */
    static final long PREEMPTED_NANOS = 1_000_000;
    /** The most waits skipped (parked at once) after the poller found itself preempted. */
    static final int MAX_SKIPPED_WAITS = 256;
    private static final int BUDGET_PER_AVERAGE_WAIT = 4;
    /** The moving average moves 1 / 2^AVERAGE_SHIFT of the way to each new wait. */
    private static final int AVERAGE_SHIFT = 3;
    private static final ThreadLocal<WaitBudget> BUDGETS = ThreadLocal.withInitial(WaitBudget::new);

    private long averageWaitNanos = MIN_POLL_NANOS / BUDGET_PER_AVERAGE_WAIT;
    /** Waits that park at once: set after a preempted poll. */
    private int skippedWaits;
    /** How many waits the next preempted poll skips. */
    private int skipAfterPreemption = 1;
    private long preemptions;

    static WaitBudget forCurrentThread()
    {
        return BUDGETS.get();
    }

    /** @return how long the next wait polls before parking, in nanoseconds (0 while it skips polling). */
    long budgetNanos()
    {
        if (skippedWaits > 0)
        {
            return 0;
        }
        return Math.max(MIN_POLL_NANOS, Math.min(MAX_POLL_NANOS, averageWaitNanos * BUDGET_PER_AVERAGE_WAIT));
    }

    /** @return how many polls of this thread found it preempted. */
    long preemptions()
    {
        return preemptions;
    }

    /**
     * Polls until {@code future} is done or the budget (at most {@code maxNanos}) is spent, and learns from how
     * long that took.
     *
     * @param future   what to wait for.
     * @param maxNanos the caller's own bound (its timeout), or Long.MAX_VALUE.
     * @return true when the future is done.
     */
    boolean poll(final Future<?> future, final long maxNanos)
    {
        if (skippedWaits > 0)
        {
            skippedWaits--;
            return future.isDone();
        }
        final long start = System.nanoTime();
        final long budget = Math.min(maxNanos, budgetNanos());
        long last = start;
        boolean done;
        while (!(done = future.isDone()))
        {
            final long now = System.nanoTime();
            if (now - last > PREEMPTED_NANOS)
            {
                onPreempted();
                return future.isDone();
            }
            if (now - start >= budget)
            {
                break;
            }
            last = now;
            Thread.yield(); // not onSpinWait: the writer may need this core now (see the class comment)
        }
        skipAfterPreemption = 1;
        // a wait that outlasted the budget counts as what was polled (the park that follows is not measured here):
        // steady long waits raise the budget to at most MAX_POLL_NANOS, as AppendWaiter's do
        final long waited = System.nanoTime() - start;
        averageWaitNanos += (Math.min(waited, MAX_POLL_NANOS) - averageWaitNanos) >> AVERAGE_SHIFT;
        return done;
    }

    private void onPreempted()
    {
        preemptions++;
        skippedWaits = skipAfterPreemption;
        skipAfterPreemption = Math.min(MAX_SKIPPED_WAITS, skipAfterPreemption * 2);
    }
}
