package io.directlog.storage;

import java.time.Duration;
import java.util.Arrays;
import java.util.function.Predicate;

/**
 * Bounded waits for another thread to come to a state a test needs before it goes on (parked in a wait, blocked
 * on a lock inside a given class): the thread is looked at until it is there, and the test fails with the thread's
 * state and stack when it is not there by the deadline.
 */
public final class ThreadWaits
{
    private ThreadWaits()
    {
    }

    /**
     * Waits until {@code thread} is parked or waiting (with or without a timeout).
     *
     * @param thread the thread looked at.
     * @param within how long it may take.
     * @param what   what the test expected, for the failure.
     */
    public static void awaitParked(final Thread thread, final Duration within, final String what)
    {
        await(thread, t -> t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING,
            within, what);
    }

    /**
     * Waits until {@code thread} is blocked on a monitor with a frame of {@code inside} on its stack.
     *
     * @param thread the thread looked at.
     * @param inside a class whose code the thread is to block in.
     * @param within how long it may take.
     * @param what   what the test expected, for the failure.
     */
    public static void awaitBlockedIn(final Thread thread, final Class<?> inside, final Duration within,
        final String what)
    {
        await(thread, t -> t.getState() == Thread.State.BLOCKED &&
            Arrays.stream(t.getStackTrace()).anyMatch(e -> e.getClassName().equals(inside.getName())), within, what);
    }

    /**
     * Waits until {@code reached} holds for {@code thread}; fails the test with {@code what}, the thread's state and
     * its stack after {@code within}.
     */
    public static void await(final Thread thread, final Predicate<Thread> reached, final Duration within,
        final String what)
    {
        final long deadline = System.nanoTime() + within.toNanos();
        while (!reached.test(thread))
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError(what + " (not within " + within.toSeconds() + " s): " + thread.getName() +
                    " " + thread.getState() + " " + Arrays.toString(thread.getStackTrace()));
            }
            Thread.yield(); // the looked-at thread may need this core to get there
        }
    }
}
