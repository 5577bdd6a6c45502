package io.directlog.storage.writer;

import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.IdleStrategy;

/**
 * How the writer waits when a duty cycle found nothing to do: spin briefly, yield, then park until a producer
 * unparks it or the next background flush of one of its logs is due (at most {@link #MAX_PARK_NANOS}).
 * <p>
 * The spin is short and the yields many because the producer that waits for this writer's acknowledgement may run
 * on the writer's own CPU (the writer is pinned next to the device's interrupts; the scheduler puts the producer
 * wherever a core is free). A writer that spins without yielding holds that core for the whole spin, so such a
 * producer sees its acknowledgement, and hands over its next append, only once the writer starts to yield: with
 * 200 spinning cycles, tens of microseconds per append, the likely cause of the slow one of the two modes issue
 * 18 saw (MEMORY 20,000-50,000 appends/s against 400,000-600,000). With the JVM confined to one CPU, 10 spins
 * and 100 yields did 1.6-6.1x the MEMORY appends/s of 200 and 20 in four old-against-new pairs (api18, loaded
 * machine, relative only). A yield gives a waiting producer the core at once, and costs a writer alone on its
 * core one syscall per idle cycle, while it has nothing to do.
 * <p>
 * Producers unpark the writer only when it said it sleeps ({@link WriterQueue#sleeping}): the flag is set (volatile) before
 * the ring's tail is read, and a producer claims (a CAS on that tail) before it reads the flag, so either the
 * writer sees the claim and does not park, or the producer sees the flag and unparks it.
 * <p>
 * Design note: Agrona's {@code BackoffIdleStrategy} parks for a growing time nobody can cut short from outside
 * except by unparking blindly on every append; this one parks only with an empty ring, says so, and wakes for the
 * flush deadline.
 * <p>
 * Not thread-safe: runs on the writer thread.
 */
final class WriterIdleStrategy implements IdleStrategy
{
    /** Empty duty cycles spent spinning before yielding: about a microsecond (see the class comment). */
    static final int SPINS = 10;
    /** Empty duty cycles spent yielding before parking: tens of microseconds when the writer is alone. */
    static final int YIELDS = 100;
    /** The longest park: a bound on how late a missed wake-up or a new deadline is noticed. */
    static final long MAX_PARK_NANOS = 10_000_000L;

    private final WriterQueue queue;
    private final LogWriterAgent writer;
    private int idleCycles;
    private long parks;

    WriterIdleStrategy(final WriterQueue queue, final LogWriterAgent writer)
    {
        this.queue = queue;
        this.writer = writer;
    }

    @Override
    public void idle(final int workCount)
    {
        if (workCount > 0)
        {
            idleCycles = 0;
        }
        else
        {
            idle();
        }
    }

    @Override
    public void idle()
    {
        if (idleCycles < SPINS)
        {
            Thread.onSpinWait();
        }
        else if (idleCycles < SPINS + YIELDS)
        {
            Thread.yield();
        }
        else
        {
            park();
        }
        idleCycles++;
        // a callback may interrupt its own (the writer's) thread; AgentRunner would end the writer on an interrupt
        // seen after an idle cycle, and every log it serves would hang. The writer does not use interrupts.
        Thread.interrupted();
    }

    private void park()
    {
        final long now = System.nanoTime();
        final long parkNanos = Math.min(MAX_PARK_NANOS, writer.nanosToNextDeadline(now));
        queue.sleeping = true; // volatile: before the ring's tail is read (see the class comment)
        if (queue.ring.size() == 0 && !queue.stopping && parkNanos > 0)
        {
            parks++;
            LockSupport.parkNanos(this, parkNanos);
        }
        queue.sleeping = false;
    }

    @Override
    public void reset()
    {
        idleCycles = 0;
    }

    @Override
    public String alias()
    {
        return "writer";
    }

    /** @return times the writer parked (writer's counter, read racily). */
    long parks()
    {
        return parks;
    }
}
