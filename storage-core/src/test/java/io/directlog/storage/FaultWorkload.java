package io.directlog.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * A producer for fault tests: one thread appends self-describing records (id, length, seeded bytes) through the
 * allocation-free callback API with a bounded number in flight, and records for each append when it was
 * submitted, when it completed and how. {@link #verifyRecovered} then checks a reopened log against it: every
 * acknowledged record present and byte-exact at its offset, a dense prefix of valid records in submission order
 * (no gap, duplicate or invented record).
 * <p>
 * Thread-safe: the producer thread writes the records, completions come from writer threads.
 */
final class FaultWorkload
{
    /** One submitted append; fields written once by the completing thread. */
    static final class Append
    {
        final long id;
        final long submitNanos;
        final Durability durability;
        volatile long completeNanos;
        volatile long offset = -1;
        volatile Throwable error;
        volatile boolean done;

        Append(final long id, final long submitNanos, final Durability durability)
        {
            this.id = id;
            this.submitNanos = submitNanos;
            this.durability = durability;
        }
    }

    private final Log log;
    private final long seed;
    private final Durability[] durabilities;
    private final int maxSize;
    private final Semaphore window;
    private final List<Append> appends = new ArrayList<>();
    private final ConcurrentHashMap<Long, Long> ackedIdByOffset = new ConcurrentHashMap<>();
    private final Set<Long> memoryAcked = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean stop = new AtomicBoolean();
    private volatile Thread thread;

    FaultWorkload(final Log log, final long seed, final int inFlight, final int maxSize,
        final Durability... durabilities)
    {
        this.log = log;
        this.seed = seed;
        this.window = new Semaphore(inFlight);
        this.maxSize = maxSize;
        this.durabilities = durabilities;
    }

    static byte[] payload(final long seed, final long id, final int size)
    {
        final byte[] b = new byte[Math.max(12, size)];
        final UnsafeBuffer u = new UnsafeBuffer(b);
        u.putLong(0, id);
        u.putInt(8, b.length);
        final SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + id);
        for (int i = 12; i < b.length; i++)
        {
            b[i] = (byte)r.nextInt();
        }
        return b;
    }

    /** @return the id a valid payload carries, or -1 when the bytes are not one this workload made. */
    static long idOf(final long seed, final byte[] bytes)
    {
        if (bytes.length < 12)
        {
            return -1;
        }
        final UnsafeBuffer u = new UnsafeBuffer(bytes);
        final long id = u.getLong(0);
        if (u.getInt(8) != bytes.length || id < 0)
        {
            return -1;
        }
        return java.util.Arrays.equals(bytes, payload(seed, id, bytes.length)) ? id : -1;
    }

    /** Starts the producer thread: {@code count} appends, or until {@link #stop()}. */
    FaultWorkload start(final int count)
    {
        thread = new Thread(() -> run(count), "fault-producer");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    /** Runs {@code count} appends on the calling thread. */
    void run(final int count)
    {
        final SplittableRandom r = new SplittableRandom(seed);
        for (long id = 0; id < count && !stop.get(); id++)
        {
            final byte[] p = payload(seed, id, 12 + r.nextInt(maxSize));
            final Durability d = durabilities[r.nextInt(durabilities.length)];
            try
            {
                if (!window.tryAcquire(10, TimeUnit.SECONDS))
                {
                    throw new IllegalStateException("no completion for 10 s: an append is lost in the engine");
                }
            }
            catch (final InterruptedException e)
            {
                return;
            }
            final Append a = new Append(id, System.nanoTime(), d);
            synchronized (appends)
            {
                appends.add(a);
            }
            log.append(new UnsafeBuffer(p), 0, p.length, d, (offset, error) -> {
                a.completeNanos = System.nanoTime();
                a.offset = offset;
                a.error = error;
                a.done = true;
                if (error == null)
                {
                    if (d == Durability.MEMORY)
                    {
                        memoryAcked.add(offset);
                    }
                    ackedIdByOffset.put(offset, a.id);
                }
                window.release();
            });
        }
    }

    void stop()
    {
        stop.set(true);
    }

    /** Waits for the producer thread and for every completion. */
    void await(final long timeoutMillis) throws InterruptedException
    {
        final long deadline = System.currentTimeMillis() + timeoutMillis;
        final Thread t = thread;
        if (t != null)
        {
            t.join(Math.max(1, deadline - System.currentTimeMillis()));
            if (t.isAlive())
            {
                throw new AssertionError("producer did not finish in " + timeoutMillis + " ms");
            }
        }
        for (final Append a : snapshot())
        {
            while (!a.done)
            {
                if (System.currentTimeMillis() > deadline)
                {
                    throw new AssertionError("append " + a.id + " never completed");
                }
                Thread.onSpinWait();
            }
        }
    }

    List<Append> snapshot()
    {
        synchronized (appends)
        {
            return new ArrayList<>(appends);
        }
    }

    long acked()
    {
        return ackedIdByOffset.size();
    }

    /**
     * @param requireMemory whether MEMORY acknowledgements count: they must survive a clean close, not a
     *                      fail-stop (the unwritten tail of a MEMORY burst is lost with the failed log).
     * @return acknowledged records a reopen must return.
     */
    long ackedRequired(final boolean requireMemory)
    {
        if (requireMemory)
        {
            return ackedIdByOffset.size();
        }
        long durableEnd = -1;
        for (final long offset : ackedIdByOffset.keySet())
        {
            if (!memoryAcked.contains(offset))
            {
                durableEnd = Math.max(durableEnd, offset);
            }
        }
        long n = 0;
        for (final long offset : ackedIdByOffset.keySet())
        {
            // a durable acknowledgement covers every earlier record, MEMORY ones included
            n += offset <= durableEnd || !memoryAcked.contains(offset) ? 1 : 0;
        }
        return n;
    }

    /** @return acknowledgements that completed after {@code nanos}. */
    long ackedAfter(final long nanos)
    {
        long n = 0;
        for (final Append a : snapshot())
        {
            if (a.done && a.error == null && a.completeNanos - nanos > 0)
            {
                n++;
            }
        }
        return n;
    }

    /** @return how long after {@code nanos} the last acknowledgement came, or 0. */
    long lastAckAfterNanos(final long nanos)
    {
        long worst = 0;
        for (final Append a : snapshot())
        {
            if (a.done && a.error == null && a.completeNanos - nanos > 0)
            {
                worst = Math.max(worst, a.completeNanos - nanos);
            }
        }
        return worst;
    }

    /** The time from {@code nanos} until every append pending then had completed. */
    long failStopNanos(final long nanos)
    {
        long worst = 0;
        for (final Append a : snapshot())
        {
            if (a.submitNanos - nanos < 0 && a.completeNanos - nanos > 0)
            {
                worst = Math.max(worst, a.completeNanos - nanos);
            }
        }
        return worst;
    }

    /** @return the errors appends completed with that are not of the given types. */
    List<Throwable> errorsOtherThan(final Class<?>... allowed)
    {
        final List<Throwable> other = new ArrayList<>();
        for (final Append a : snapshot())
        {
            final Throwable e = a.error;
            if (e == null)
            {
                continue;
            }
            boolean ok = false;
            for (final Class<?> c : allowed)
            {
                ok |= c.isInstance(e);
            }
            if (!ok)
            {
                other.add(e);
            }
        }
        return other;
    }

    /** Reads every acknowledged record from the log and compares its bytes. @return records checked. */
    long verifyAckedReadable(final Log target)
    {
        long checked = 0;
        final long visible = target.visibleEndOffset();
        for (final var e : ackedIdByOffset.entrySet())
        {
            if (e.getKey() >= visible && memoryAcked.contains(e.getKey()))
            {
                continue; // a MEMORY ack in a DIRECT or DSYNC log is visible once written, and a failed log writes no more
            }
            try (RecordBatch batch = target.read(e.getKey(), 1))
            {
                check(!batch.isEmpty(), "acknowledged offset " + e.getKey() + " is not readable (visible end " +
                    target.visibleEndOffset() + ")");
                final Record r = batch.iterator().next();
                check(r.offset() == e.getKey(), "offset " + e.getKey() + " read back as " + r.offset());
                check(idOf(seed, r.payloadBytes()) == e.getValue(), "offset " + e.getKey() + " holds other bytes");
                checked++;
            }
        }
        return checked;
    }

    /**
     * Checks a reopened log: a dense prefix of valid records in submission order that holds every
     * acknowledged record byte-exact. @return acknowledged records checked.
     */
    long verifyRecovered(final Log reopened)
    {
        return verifyRecovered(reopened, true);
    }

    /** As {@link #verifyRecovered(Log)}; unless {@code requireMemory}, trailing MEMORY acks may be missing. */
    long verifyRecovered(final Log reopened, final boolean requireMemory)
    {
        final long end = reopened.endOffset();
        long next = reopened.startOffset();
        long lastId = -1;
        long ackedSeen = 0;
        while (next < end)
        {
            try (RecordBatch batch = reopened.read(next, 1 << 20))
            {
                check(!batch.isEmpty(), "offset " + next + " below the end " + end + " is not readable");
                for (final Record r : batch)
                {
                    check(r.offset() == next, "gap or duplicate: expected offset " + next + ", found " + r.offset());
                    final long id = idOf(seed, r.payloadBytes());
                    check(id >= 0, "offset " + next + " holds a record this workload never appended");
                    check(id > lastId, "offset " + next + " holds id " + id + " after id " + lastId);
                    final Long acked = ackedIdByOffset.get(next);
                    if (acked != null)
                    {
                        check(acked == id, "acknowledged offset " + next + " holds id " + id + ", not " + acked);
                        ackedSeen++;
                    }
                    lastId = id;
                    next = r.nextOffset();
                }
            }
        }
        final long required = ackedRequired(requireMemory);
        check(ackedSeen >= required, (required - ackedSeen) + " acknowledged records lost: the log ends at " + end +
            ", acknowledged offsets reach " + ackedIdByOffset.keySet().stream().mapToLong(o -> o).max().orElse(-1));
        return ackedSeen;
    }

    private static void check(final boolean ok, final String message)
    {
        if (!ok)
        {
            throw new AssertionError(message);
        }
    }
}
