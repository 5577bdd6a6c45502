package io.directlog.storage;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import org.agrona.DirectBuffer;

/**
 * Appends a record and waits, on the calling thread, until it is acknowledged; allocates nothing. The blocking
 * counterpart of the callback append, for a producer that hands over one record at a time and needs its offset
 * (what RocksDB's {@code put} with {@code sync=true} or Kafka's {@code send().get()} give):
 * <pre>{@code
 * AppendWaiter waiter = new AppendWaiter();                     // one per producer thread, reused
 * long offset = waiter.append(log, buffer, 0, length, Durability.DSYNC);
 * }</pre>
 * How the producer waits decides the throughput of many such producers more than the device does. A parked
 * producer costs the writer a futex wake to acknowledge it: a syscall, and an inter-processor interrupt when it
 * sleeps on another core, about 5 us of the writer's CPU per acknowledged append on a 2-vCPU VM. And the writer is
 * the one thread every append of the log passes through. So the waiter first polls, yielding its core on each poll
 * (a writer woken on this core gets it at once), and parks only once its spin budget is spent. The writer unparks
 * it only when it actually parked. The budget adapts to the waiter's own recent waits: four times their moving
 * average, within {@code [minSpin, maxSpin]} (default 50 us to 1 ms). A wait as long as the device's usual write
 * polls; a stall parks soon after the budget.
 * <p>
 * Design note: RocksDB's write thread waits the same way (its adaptive yield polls up to 100 us by default, then
 * blocks). On the 2-vCPU machine of {@code docs/benchmarks.md}, in one JMH run, 16 closed-loop DSYNC producers
 * reached 72 k appends/s parking at once and 91 k/s with this waiter; 64 producers reached 120 k/s and 310 k/s.
 * The price is CPU: a polling producer stays runnable. With more producers than cores, each poll is a
 * {@code sched_yield}, which gives the core to any thread that wants it. A caller that must not spend CPU waiting
 * uses {@code new AppendWaiter(Duration.ZERO, Duration.ZERO)}, which parks at once. A caller that must not block
 * at all uses the callback append.
 * <p>
 * The wait is not interruptible: an append cannot be taken back once queued, and the engine always completes it
 * (acknowledged, failed or refused). An interrupt that comes meanwhile is kept in the thread's status.
 * <p>
 * Not thread-safe: one owner thread calls {@code append}; the log's writer calls {@link #onComplete} back.
 */
public final class AppendWaiter implements AppendCallback
{
    /** The least a waiter polls before it parks, by default: 50 us. */
    public static final Duration MIN_SPIN_DEFAULT = Duration.ofNanos(50_000);
    /** The most a waiter polls before it parks, by default: 1 ms. */
    public static final Duration MAX_SPIN_DEFAULT = Duration.ofMillis(1);

    /** The spin budget is this many times the moving average of recent waits. */
    private static final int BUDGET_PER_AVERAGE_WAIT = 4;
    /** The moving average moves 1 / 2^AVERAGE_SHIFT of the way to each new wait. */
    private static final int AVERAGE_SHIFT = 3;

    private final long minSpinNanos;
    private final long maxSpinNanos;
    private long averageWaitNanos;
    private long parks;
    // Plain: written by the owner before the append is queued, read by the writer after it is (queueing publishes).
    private Thread owner;
    // Plain: written by the writer before the volatile 'done', read by the owner after it.
    private long offset;
    private Throwable error;
    private volatile boolean done;
    // Dekker pair with 'done': the owner stores parked then loads done; the writer stores done then loads parked.
    // Both volatile, so one of them sees the other's store and a parked owner is always unparked.
    private volatile boolean parked;

    /** A waiter that polls from 50 us up to 1 ms before it parks, as its recent waits suggest. */
    public AppendWaiter()
    {
        this(MIN_SPIN_DEFAULT, MAX_SPIN_DEFAULT);
    }

    /**
     * @param minSpin the least it polls before parking; zero with a zero {@code maxSpin} parks at once.
     * @param maxSpin the most it polls before parking; at least {@code minSpin}.
     * @throws IllegalArgumentException when a bound is negative or {@code minSpin > maxSpin}.
     */
    public AppendWaiter(final Duration minSpin, final Duration maxSpin)
    {
        if (minSpin.isNegative() || maxSpin.isNegative() || minSpin.compareTo(maxSpin) > 0)
        {
            throw new IllegalArgumentException("AppendWaiter needs 0 <= minSpin <= maxSpin, got minSpin=" + minSpin +
                " maxSpin=" + maxSpin);
        }
        minSpinNanos = minSpin.toNanos();
        maxSpinNanos = maxSpin.toNanos();
        averageWaitNanos = minSpinNanos / BUDGET_PER_AVERAGE_WAIT;
    }

    /**
     * Appends one record and waits for its acknowledgement.
     *
     * @param log        where to append.
     * @param buffer     the payload; copied before the append is queued.
     * @param index      its first byte.
     * @param length     its length.
     * @param durability when the append is acknowledged.
     * @return the record's offset.
     * @throws StorageException         as the callback append reports it: {@link LogFailedException},
     *                                  {@link AppendTimeoutException}, {@link RecordTooLargeException}, ...
     * @throws LogClosedException       when the log is closed.
     * @throws IllegalArgumentException for bad arguments, as {@link Log#append(DirectBuffer, int, int, Durability,
     *                                  AppendCallback)} throws them.
     */
    public long append(final Log log, final DirectBuffer buffer, final int index, final int length,
        final Durability durability)
    {
        return append(log, buffer, index, length, 1, durability);
    }

    /**
     * Appends a producer's batch of {@code recordCount} records and waits for its acknowledgement.
     *
     * @param log         where to append.
     * @param buffer      the payload; copied before the append is queued.
     * @param index       its first byte.
     * @param length      its length.
     * @param recordCount how many records the bytes hold; at least 1.
     * @param durability  when the append is acknowledged.
     * @return the batch's base offset.
     * @throws StorageException         as {@link #append(Log, DirectBuffer, int, int, Durability)}.
     * @throws LogClosedException       when the log is closed.
     * @throws IllegalArgumentException for bad arguments.
     */
    public long append(final Log log, final DirectBuffer buffer, final int index, final int length,
        final int recordCount, final Durability durability)
    {
        owner = Thread.currentThread();
        done = false;
        final long start = System.nanoTime();
        log.append(buffer, index, length, recordCount, durability, this);
        await(start);
        final long waited = System.nanoTime() - start;
        averageWaitNanos += (waited - averageWaitNanos) >> AVERAGE_SHIFT;
        final Throwable failure = error;
        if (failure != null)
        {
            error = null;
            throw failure instanceof RuntimeException runtime ? runtime :
                new StorageException("append failed: " + failure, failure);
        }
        return offset;
    }

    /** @return how many times this waiter parked (after its spin budget was spent). */
    public long parks()
    {
        return parks;
    }

    /** @return how long the waiter polls before parking in its next wait, in nanoseconds. */
    public long spinBudgetNanos()
    {
        return Math.max(minSpinNanos, Math.min(maxSpinNanos, averageWaitNanos * BUDGET_PER_AVERAGE_WAIT));
    }

    /** Called once by the log's writer (or by the owner itself when the append is refused before queueing). */
    @Override
    public void onComplete(final long offset, final Throwable error)
    {
        this.offset = offset;
        this.error = error;
        done = true; // release: offset and error visible to the owner once it sees done
        if (parked)
        {
            LockSupport.unpark(owner);
        }
    }

    private void await(final long start)
    {
        final long budget = spinBudgetNanos();
        while (!done)
        {
            if (System.nanoTime() - start >= budget)
            {
                park();
                return;
            }
            Thread.yield(); // not onSpinWait: with more producers than cores the writer may need this core now
        }
    }

    private void park()
    {
        boolean interrupted = false;
        parks++;
        parked = true;
        while (!done)
        {
            LockSupport.park(this);
            if (Thread.interrupted())
            {
                interrupted = true; // park returns at once while the flag is set: clear it, restore it below
            }
        }
        parked = false;
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }
}
