package io.directlog.storage.writer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.directlog.storage.AppendCallback;
import io.directlog.storage.Durability;
import io.directlog.storage.LogClosedException;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The writer agent and its proxy as a part: queue order, large appends, back-pressure, what a failing callback,
 * command or duty cycle does to the writer (nothing), and appends racing the writer's stop.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LogWriterAgentTest
{
    private static final Duration WAIT = Duration.ofSeconds(10);
    private final List<LogWriterAgent> started = new ArrayList<>();

    @AfterEach
    void stopWriters() throws InterruptedException
    {
        for (final LogWriterAgent writer : started)
        {
            writer.stop(WAIT);
        }
    }

    private LogWriterAgent start(final int queueBytes)
    {
        final LogWriterAgent writer = new LogWriterAgent("test-writer", queueBytes);
        writer.start();
        started.add(writer);
        return writer;
    }

    @Test
    void appendsAndCommandsReachTheWriterInQueueOrder() throws Exception
    {
        final LogWriterAgent writer = start(64 << 10);
        final RecordingClient client = new RecordingClient(writer);
        final int slot = writer.register(client);
        final List<String> order = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 100; i++)
        {
            assertTrue(writer.proxy().offerAppend(slot, bytes(i, 10), 0, 10, 1, Durability.MEMORY, (o, e) -> { },
                WAIT));
            if (i % 10 == 0)
            {
                final int n = i;
                assertTrue(writer.proxy().offerCommand(slot, () -> order.add("command after " + n), WAIT));
            }
        }
        awaitCommand(writer, slot);
        assertEquals(100, client.appends.size());
        for (int i = 0; i < 100; i++)
        {
            assertEquals(i, client.appends.get(i).getByte(0), "append " + i + " in queue order");
        }
        assertEquals("command after 0", order.get(0));
        assertEquals(10, order.size());
        assertTrue(client.threads.stream().allMatch(t -> t == writer.thread()), "appends run on the writer thread");
    }

    @Test
    void anAppendLargerThanTheRingTravelsOnTheHeapIntact() throws Exception
    {
        final LogWriterAgent writer = start(4096);
        final RecordingClient client = new RecordingClient(writer);
        final int slot = writer.register(client);
        final int length = writer.maxInlinePayload() * 3 + 7;
        final UnsafeBuffer source = new UnsafeBuffer(new byte[length + 5]);
        for (int i = 0; i < source.capacity(); i++)
        {
            source.putByte(i, (byte)(i * 31));
        }
        assertTrue(writer.proxy().offerAppend(slot, source, 5, length, 3, Durability.DIRECT, (o, e) -> { }, WAIT));
        awaitCommand(writer, slot);
        assertEquals(1, client.appends.size());
        final DirectBuffer got = client.appends.get(0);
        assertEquals(length, got.capacity());
        for (int i = 0; i < length; i++)
        {
            assertEquals(source.getByte(5 + i), got.getByte(i), "byte " + i);
        }
        assertEquals(3, client.recordCounts.get(0));
        assertEquals(Durability.DIRECT, client.durabilities.get(0));
    }

    @Test
    void anAppendWithBadBoundsIsRefusedAndTheQueueGoesOn() throws Exception
    {
        final LogWriterAgent writer = start(64 << 10);
        final RecordingClient client = new RecordingClient(writer);
        final int slot = writer.register(client);
        final UnsafeBuffer small = new UnsafeBuffer(new byte[8]);
        try
        {
            writer.proxy().offerAppend(slot, small, 4, 100, 1, Durability.MEMORY, (o, e) -> { }, WAIT);
        }
        catch (final IndexOutOfBoundsException expected)
        {
            // the claim was aborted: the writer must read past it
        }
        assertTrue(writer.proxy().offerAppend(slot, bytes(1, 4), 0, 4, 1, Durability.MEMORY, (o, e) -> { }, WAIT));
        awaitCommand(writer, slot);
        assertEquals(1, client.appends.size());
    }

    @Test
    void aFullQueueRefusesTheOfferAtItsTimeout()
    {
        final LogWriterAgent writer = new LogWriterAgent("never-started", 4096); // nobody drains
        int accepted = 0;
        while (writer.proxy().offerAppend(0, bytes(0, 100), 0, 100, 1, Durability.MEMORY, (o, e) -> { },
            Duration.ZERO))
        {
            accepted++;
            assertTrue(accepted < 4096, "a 4 KiB ring cannot take this many 100-byte appends");
        }
        final long start = System.nanoTime();
        assertFalse(writer.proxy().offerCommand(0, () -> { }, Duration.ofMillis(20)));
        assertTrue(System.nanoTime() - start >= 20_000_000L, "waited for room until the timeout");
        assertTrue(writer.queuedBytes() > 0);
    }

    @Test
    void aProducerFacingAFullRingParksLongerUpToItsCap()
    {
        assertEquals(LogWriterProxy.FULL_RING_PARK_MIN_NANOS, LogWriterProxy.fullRingParkNanos(0));
        assertEquals(2 * LogWriterProxy.FULL_RING_PARK_MIN_NANOS,
            LogWriterProxy.fullRingParkNanos(LogWriterProxy.FULL_RING_PARKS_PER_STEP));
        assertEquals(LogWriterProxy.FULL_RING_PARK_MAX_NANOS, LogWriterProxy.fullRingParkNanos(1_000_000));
    }

    @Test
    void anIdleWriterParksAndAnAppendWakesIt() throws Exception
    {
        final LogWriterAgent writer = start(64 << 10);
        final RecordingClient client = new RecordingClient(writer);
        final int slot = writer.register(client);
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (writer.parks() == 0)
        {
            assertTrue(System.nanoTime() < deadline, "the idle writer never parked");
            Thread.onSpinWait();
        }
        final CountDownLatch done = new CountDownLatch(1);
        client.onEachAppend = done::countDown;
        assertTrue(writer.proxy().offerAppend(slot, bytes(0, 4), 0, 4, 1, Durability.MEMORY, (o, e) -> { }, WAIT));
        // well under the 10 ms park bound: the append unparked it (a loaded machine may still be slower)
        assertTrue(done.await(WAIT.toMillis(), TimeUnit.MILLISECONDS));
    }

    @Test
    void aCallbackThatThrowsOrInterruptsLeavesTheWriterRunning() throws Exception
    {
        final LogWriterAgent writer = start(64 << 10);
        final RecordingClient client = new RecordingClient(writer);
        final int slot = writer.register(client);
        awaitRun(writer, slot, () -> writer.deregister(slot));
        final AtomicInteger calls = new AtomicInteger();
        final AppendCallback throwing = (o, e) ->
        {
            calls.incrementAndGet();
            throw new StackOverflowError("from a callback");
        };
        final AppendCallback interrupting = (o, e) ->
        {
            calls.incrementAndGet();
            Thread.currentThread().interrupt();
        };
        assertTrue(writer.proxy().offerAppend(slot, bytes(0, 4), 0, 4, 1, Durability.MEMORY, throwing, WAIT));
        assertTrue(writer.proxy().offerAppend(slot, bytes(0, 4), 0, 4, 1, Durability.MEMORY, interrupting, WAIT));
        awaitCommand(writer, slot);
        assertEquals(2, calls.get());
        assertEquals(1, writer.callbacks().errors());
        // after an idle cycle (where AgentRunner would have ended on the interrupt) the writer still serves
        final long parks = writer.parks();
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (writer.parks() == parks)
        {
            assertTrue(System.nanoTime() < deadline, "the writer never idled again");
            Thread.onSpinWait();
        }
        awaitCommand(writer, slot);
        assertTrue(writer.thread().isAlive());
    }

    @Test
    void aCommandOrDutyCycleThatThrowsLeavesTheWriterRunning() throws Exception
    {
        final LogWriterAgent writer = start(64 << 10);
        final RecordingClient client = new RecordingClient(writer);
        final int slot = writer.register(client);
        assertTrue(writer.proxy().offerCommand(slot, () ->
        {
            throw new IllegalStateException("from a command");
        }, WAIT));
        awaitCommand(writer, slot);
        client.dutyCycleThrows.set(true);
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (client.dutyCycleThrew.get() < 3)
        {
            assertTrue(System.nanoTime() < deadline, "the duty cycle did not run again after throwing");
            Thread.onSpinWait();
        }
        client.dutyCycleThrows.set(false);
        awaitCommand(writer, slot);
        assertTrue(writer.thread().isAlive());
        // a log whose duty cycle threw is failed (fail-stop), with what it threw
        assertInstanceOf(IllegalStateException.class, client.failures.get(0));
    }

    @Test
    void anOfferAfterTheWriterStoppedIsCompletedByTheOfferer() throws Exception
    {
        final LogWriterAgent writer = new LogWriterAgent("stopping-writer", 64 << 10);
        writer.start();
        final RecordingClient client = new RecordingClient(writer);
        final int slot = writer.register(client);
        awaitRun(writer, slot, () -> writer.deregister(slot));
        writer.stop(WAIT);
        assertFalse(writer.thread().isAlive());

        final AtomicReference<Throwable> error = new AtomicReference<>();
        final AtomicReference<Thread> ranOn = new AtomicReference<>();
        assertTrue(writer.proxy().offerAppend(slot, bytes(0, 4), 0, 4, 1, Durability.MEMORY, (o, e) ->
        {
            error.set(e);
            ranOn.set(Thread.currentThread());
        }, WAIT));
        assertInstanceOf(LogClosedException.class, error.get(), "completed before the offer returned");
        assertSame(Thread.currentThread(), ranOn.get());
        final AtomicBoolean ran = new AtomicBoolean();
        assertTrue(writer.proxy().offerCommand(slot, () -> ran.set(true), WAIT));
        assertTrue(ran.get(), "a late command runs on the offerer's thread");
        assertEquals(0, writer.queuedBytes());
    }

    /**
     * A late offer whose message does not fit before the ring's end is claimed as padding there plus the message at
     * the start; one read by its offerer stopped at the end, so the message stayed unread and its callback uncalled.
     */
    @Test
    void aLateOfferThatWrapsTheRingIsCompletedByTheOfferer() throws Exception
    {
        final int capacity = 4096;
        final LogWriterAgent writer = new LogWriterAgent("wrapping-writer", capacity);
        writer.start();
        final RecordingClient client = new RecordingClient(writer);
        final int slot = writer.register(client);
        final int commandBytes = 24; // ring header and ours, aligned: the deregistering command below
        final int lateLength = 200; // 224 bytes in the ring
        while (capacity - (int)((writer.ring().producerPosition() + commandBytes) & (capacity - 1)) >= 224)
        {
            assertTrue(writer.proxy().offerAppend(slot, bytes(1, 8), 0, 8, 1, Durability.MEMORY, (o, e) -> { },
                WAIT));
        }
        awaitRun(writer, slot, () -> writer.deregister(slot));
        writer.stop(WAIT);
        assertFalse(writer.thread().isAlive());
        final long tailIndex = writer.ring().producerPosition() & (capacity - 1);
        assertTrue(capacity - tailIndex < 224 && tailIndex > 0, "the late offer wraps; tail at " + tailIndex);

        final AtomicReference<Throwable> error = new AtomicReference<>();
        assertTrue(writer.proxy().offerAppend(slot, bytes(2, lateLength), 0, lateLength, 1, Durability.MEMORY,
            (o, e) -> error.set(e), WAIT));
        assertInstanceOf(LogClosedException.class, error.get(), "completed before the offer returned");
        assertEquals(0, writer.queuedBytes());
    }

    /**
     * After the stop, an offer whose copy fails aborts its claim; an offer committed behind that claim meanwhile
     * stopped its own drain at it, so the aborting offerer must read past it, or the later append is never completed.
     */
    @Test
    void aLateOfferCommittedBehindAnAbortedClaimIsCompleted() throws Exception
    {
        final LogWriterAgent writer = new LogWriterAgent("aborting-writer", 64 << 10);
        writer.start();
        final int slot = writer.register(new RecordingClient(writer));
        awaitRun(writer, slot, () -> writer.deregister(slot));
        writer.stop(WAIT);
        assertFalse(writer.thread().isAlive());

        final CountDownLatch claimed = new CountDownLatch(1);
        final CountDownLatch behindCommitted = new CountDownLatch(1);
        final UnsafeBuffer failingSource = new UnsafeBuffer(new byte[8])
        {
            @Override
            public void boundsCheck(final int index, final int length)
            {
                // called by the copy into the ring, after the claim
                claimed.countDown();
                try
                {
                    behindCommitted.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
                throw new IndexOutOfBoundsException("test: the copy fails after the claim");
            }
        };
        final AtomicReference<Throwable> aborted = new AtomicReference<>();
        final Thread aborter = new Thread(() ->
        {
            try
            {
                writer.proxy().offerAppend(slot, failingSource, 0, 8, 1, Durability.MEMORY, (o, e) -> { }, WAIT);
            }
            catch (final IndexOutOfBoundsException e)
            {
                aborted.set(e);
            }
        }, "aborting-producer");
        aborter.start();
        assertTrue(claimed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the aborter claimed");

        final AtomicReference<Throwable> error = new AtomicReference<>();
        assertTrue(writer.proxy().offerAppend(slot, bytes(1, 8), 0, 8, 1, Durability.MEMORY,
            (o, e) -> error.set(e), WAIT));
        assertEquals(null, error.get(), "its own drain stopped at the claim in flight before it");
        behindCommitted.countDown();
        aborter.join(WAIT.toMillis());
        assertFalse(aborter.isAlive());
        assertInstanceOf(IndexOutOfBoundsException.class, aborted.get(), "the aborter's offer failed");
        assertInstanceOf(LogClosedException.class, error.get(), "the aborter read past its aborted claim");
        assertEquals(0, writer.queuedBytes());
    }

    /**
     * Producers append while a closer deregisters their log and stops the writer, and go on appending after it
     * stopped. Every accepted append must be completed exactly once: by the log, with LogClosedException by the
     * writer's final drain, or by a late offerer. An append claimed before the stop but committed after the final
     * drain, or a late offer nobody reads, leaves its callback uncalled and fails the test.
     */
    @Test
    void everyAppendRacingTheStopIsCompletedExactlyOnce() throws Exception
    {
        final long seed = System.nanoTime();
        final SplittableRandom random = new SplittableRandom(seed);
        final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int rounds = 0;
        while (rounds < 200 && System.nanoTime() < end)
        {
            rounds++;
            raceOneStop(random.nextInt(2_000), seed, rounds);
        }
        assertTrue(rounds >= 10, "too few rounds to mean anything: " + rounds);
    }

    private static void raceOneStop(final int appendsBeforeStop, final long seed, final int round) throws Exception
    {
        final LogWriterAgent writer = new LogWriterAgent("race-writer", 8 << 10);
        writer.start();
        final RecordingClient client = new RecordingClient(writer);
        final int slot = writer.register(client);
        final AtomicLong accepted = new AtomicLong();
        final AtomicLong completed = new AtomicLong();
        final AtomicLong total = new AtomicLong();
        final CountDownLatch stopped = new CountDownLatch(1);
        final AppendCallback callback = (o, e) -> completed.incrementAndGet();
        final Thread[] producers = new Thread[3];
        for (int p = 0; p < producers.length; p++)
        {
            final int length = p == 0 ? 8 : p == 1 ? 200 : 5_000; // inline and large
            producers[p] = new Thread(() ->
            {
                final UnsafeBuffer payload = bytes(1, length);
                int lateOffers = 0;
                for (int i = 0; i < 20_000 && lateOffers < 50; i++)
                {
                    if (writer.proxy().offerAppend(slot, payload, 0, length, 1, Durability.MEMORY, callback,
                        Duration.ofMillis(100)))
                    {
                        accepted.incrementAndGet();
                    }
                    total.incrementAndGet();
                    if (stopped.getCount() == 0)
                    {
                        lateOffers++;
                    }
                }
            }, "race-producer-" + p);
            producers[p].start();
        }
        while (total.get() < appendsBeforeStop && producers[0].isAlive())
        {
            Thread.onSpinWait();
        }
        writer.proxy().offerCommand(slot, () -> writer.deregister(slot), WAIT);
        writer.stop(WAIT);
        assertFalse(writer.thread().isAlive(), "the writer ended");
        stopped.countDown();
        for (final Thread producer : producers)
        {
            producer.join(WAIT.toMillis());
            assertFalse(producer.isAlive(), "a producer hung");
        }
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (completed.get() < accepted.get() && System.nanoTime() < deadline)
        {
            Thread.yield();
        }
        assertEquals(accepted.get(), completed.get(), "round " + round + " (seed " + seed + "): accepted appends " +
            "and completed callbacks differ; " + total.get() + " offers");
    }

    /** Runs {@code task} on the writer and waits for it: everything queued before has been handled. */
    private static void awaitRun(final LogWriterAgent writer, final int slot, final Runnable task) throws Exception
    {
        final CountDownLatch done = new CountDownLatch(1);
        assertTrue(writer.proxy().offerCommand(slot, () ->
        {
            task.run();
            done.countDown();
        }, WAIT));
        assertTrue(done.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the writer did not run the command");
    }

    private static void awaitCommand(final LogWriterAgent writer, final int slot) throws Exception
    {
        awaitRun(writer, slot, () -> { });
    }

    private static UnsafeBuffer bytes(final int value, final int length)
    {
        final byte[] bytes = new byte[length];
        java.util.Arrays.fill(bytes, (byte)value);
        return new UnsafeBuffer(bytes);
    }

    /** A log that keeps a copy of what it was given and completes each append at once. */
    private static final class RecordingClient extends TestWriterClient
    {
        final List<DirectBuffer> appends = new CopyOnWriteArrayList<>();
        final List<Integer> recordCounts = new CopyOnWriteArrayList<>();
        final List<Durability> durabilities = new CopyOnWriteArrayList<>();
        final List<Thread> threads = new CopyOnWriteArrayList<>();
        final AtomicBoolean dutyCycleThrows = new AtomicBoolean();
        final AtomicInteger dutyCycleThrew = new AtomicInteger();
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        volatile Runnable onEachAppend = () -> { };

        RecordingClient(final LogWriterAgent writer)
        {
            super(writer);
        }

        @Override
        public void onAppend(final DirectBuffer source, final int index, final int length, final int recordCount,
            final Durability durability, final AppendCallback callback)
        {
            final byte[] copy = new byte[length];
            source.getBytes(index, copy);
            appends.add(new UnsafeBuffer(copy));
            recordCounts.add(recordCount);
            durabilities.add(durability);
            threads.add(Thread.currentThread());
            writer.callbacks().complete(callback, appends.size() - 1, null);
            onEachAppend.run();
        }

        @Override
        public int onDutyCycle(final long nowNanos)
        {
            if (dutyCycleThrows.get())
            {
                dutyCycleThrew.incrementAndGet();
                throw new IllegalStateException("from a duty cycle");
            }
            return 0;
        }

        @Override
        public void onFailure(final String what, final Throwable cause, final AppendCallback unfinished)
        {
            failures.add(cause);
            fail(unfinished, cause);
        }
    }

    @Test
    void theRingIsEmptyAfterAStopWithNothingQueued() throws Exception
    {
        final LogWriterAgent writer = new LogWriterAgent("empty-writer", 4096);
        writer.start();
        writer.stop(WAIT);
        assertFalse(writer.thread().isAlive());
        assertEquals(0, writer.ring().size());
    }
}
