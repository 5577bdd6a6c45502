package io.directlog.storage.log;

import java.util.concurrent.Future;

/**
 * How long one thread polls for an append's result before it parks: four times the moving average of its own
 * recent waits, within 50 us and 1 ms, the rule of {@code AppendWaiter}. A thread whose appends are acknowledged in
 * microseconds (MEMORY, or a fast device) polls them all; a stall parks soon after the budget.
 * <p>
 * Polling yields on each look, as {@code AppendWaiter} does, from the first: the writer may need this core (with
 * more waiting threads than cores, or when the scheduler put this thread on the writer's pinned CPU), and
 * {@code Thread.yield} hands it over at once.
 * <p>
 * Design note: this poll used to spin 64 looks before its first yield, and to park at once for up to 256 waits
 * after a look that came back more than 1 ms after the previous one (taken as a sign of oversubscribed cores).
 * Both were answers to the writer spinning 200 idle cycles without yielding: a producer on the writer's CPU then
 * waited out that spin for each acknowledgement, and parking looked faster than polling. The writer now yields
 * after a few cycles ({@code WriterIdleStrategy}), and in one run on the loaded 2-vCPU machine the old rules made
 * the future path 25-40 us slower at p50 (DIRECT, 1 producer) and 1.6x slower (MEMORY) than {@code AppendWaiter},
 * which had neither.
 * <p>
 * One per thread ({@link #forCurrentThread()}); not thread-safe.
 */
final class WaitBudget
{
    static final long MIN_POLL_NANOS = 50_000;
    static final long MAX_POLL_NANOS = 1_000_000;
    private static final int BUDGET_PER_AVERAGE_WAIT = 4;
    /** The moving average moves 1 / 2^AVERAGE_SHIFT of the way to each new wait. */
    private static final int AVERAGE_SHIFT = 3;
    private static final ThreadLocal<WaitBudget> BUDGETS = ThreadLocal.withInitial(WaitBudget::new);

    private long averageWaitNanos = MIN_POLL_NANOS / BUDGET_PER_AVERAGE_WAIT;

    static WaitBudget forCurrentThread()
    {
        return BUDGETS.get();
    }

    /** @return how long the next wait polls before parking, in nanoseconds. */
    long budgetNanos()
    {
        return Math.max(MIN_POLL_NANOS, Math.min(MAX_POLL_NANOS, averageWaitNanos * BUDGET_PER_AVERAGE_WAIT));
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
        final long start = System.nanoTime();
        final long budget = Math.min(maxNanos, budgetNanos());
        boolean done;
        while (!(done = future.isDone()))
        {
            if (System.nanoTime() - start >= budget)
            {
                break;
            }
            Thread.yield(); // not onSpinWait: the writer may need this core now (see the class comment)
        }
        // a wait that outlasted the budget counts as what was polled (the park that follows is not measured here):
        // steady long waits raise the budget to at most MAX_POLL_NANOS, as AppendWaiter's do
        final long waited = System.nanoTime() - start;
        averageWaitNanos += (Math.min(waited, MAX_POLL_NANOS) - averageWaitNanos) >> AVERAGE_SHIFT;
        return done;
    }
}
