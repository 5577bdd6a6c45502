package io.directlog.broker.network;

import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs one connection's blocking work (log appends, disk reads) on the broker's shared I/O pool, one task at a
 * time and in submission order. The order matters: an idempotent producer pipelines batches of one partition on
 * one connection, and they must reach the partition in the order they were sent (Kafka handles one request of a
 * connection at a time); the response order is kept separately by {@link KafkaConnection}.
 * <p>
 * At most one task of a lane is queued in or running on the pool at any time, so the pool's queue never holds more
 * tasks than there are connections.
 * <p>
 * Thread-safe.
 */
public final class OrderedExecutor implements Executor
{
    private static final System.Logger LOG = System.getLogger(OrderedExecutor.class.getName());

    private final Executor pool;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    /** True while a drain of this lane is queued in or running on the pool. */
    private final AtomicBoolean scheduled = new AtomicBoolean();

    /**
     * @param pool the shared pool the tasks run on.
     */
    public OrderedExecutor(final Executor pool)
    {
        this.pool = Objects.requireNonNull(pool, "pool");
    }

    /**
     * Queues a task after every task already queued on this lane.
     *
     * @param task the task.
     * @throws RejectedExecutionException when the pool is shut down (the broker is closing); the task is dropped.
     */
    @Override
    public void execute(final Runnable task)
    {
        tasks.add(Objects.requireNonNull(task, "task"));
        schedule();
    }

    private void schedule()
    {
        if (!tasks.isEmpty() && scheduled.compareAndSet(false, true))
        {
            try
            {
                pool.execute(this::drain);
            }
            catch (final RejectedExecutionException e)
            {
                tasks.clear();
                scheduled.set(false);
                throw e;
            }
        }
    }

    private void drain()
    {
        // one task per turn on the pool: a lane with a long queue does not keep a pool thread from other lanes
        final Runnable task = tasks.poll();
        try
        {
            if (task != null)
            {
                task.run();
            }
        }
        catch (final RuntimeException e)
        {
            LOG.log(System.Logger.Level.WARNING, "a connection's task failed", e);
        }
        finally
        {
            scheduled.set(false);
            try
            {
                schedule();
            }
            catch (final RejectedExecutionException e)
            {
                LOG.log(System.Logger.Level.DEBUG, "broker closing: a connection's queued tasks are dropped");
            }
        }
    }
}
