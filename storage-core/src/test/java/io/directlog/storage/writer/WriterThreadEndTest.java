package io.directlog.storage.writer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.directlog.storage.AppendCallback;
import io.directlog.storage.Durability;
import io.directlog.storage.StorageException;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What happens when a writer's thread ends without the store's stop, and when one log's code throws an Error on the
 * writer (issue 19: a writer thread that had ended left every append of its logs waiting forever).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WriterThreadEndTest
{
    private static final Duration WAIT = Duration.ofSeconds(10);
    private LogWriterAgent writer;

    @AfterEach
    void stop() throws InterruptedException
    {
        if (writer != null)
        {
            writer.stop(WAIT);
        }
    }

    @Test
    void aWriterWhoseThreadEndsFailsItsLogsTheQueuedAppendsAndEveryLaterOne() throws Exception
    {
        writer = new LogWriterAgent("ending-writer", 64 << 10);
        writer.start();
        final HoldingClient log = new HoldingClient(writer);
        final int slot = log.slot = writer.register(log);
        final CompletableFuture<Throwable> held = append(slot); // copied, waits for a flush that never comes
        awaitQueueRead(slot);
        assertFalse(held.isDone());
        // hold the writer in a command while the fatal command and three appends queue behind it
        final CountDownLatch release = new CountDownLatch(1);
        assertTrue(writer.offerCommand(slot, () -> await(release), WAIT));
        assertTrue(WriterTestHooks.endThreadAfterQueued(writer, new AssertionError("injected end"), WAIT));
        final List<CompletableFuture<Throwable>> queued = List.of(append(slot), append(slot), append(slot));
        release.countDown();
        writer.thread().join(WAIT.toMillis());
        assertFalse(writer.thread().isAlive(), "the thread was to end");

        final StorageException death = writer.death();
        assertNotNull(death);
        assertTrue(death.getMessage().contains("ending-writer") && death.getMessage().contains("injected end"),
            death.getMessage());
        assertSame(death, log.failure.get(), "the log failed with the writer's end as its cause");
        assertSame(death, held.get(WAIT.toSeconds(), TimeUnit.SECONDS), "the append the log held");
        for (final CompletableFuture<Throwable> f : queued)
        {
            assertSame(death, f.get(WAIT.toSeconds(), TimeUnit.SECONDS), "an append queued behind the end");
        }
        // after the end: an offer is read by its offerer, at once; a command runs on the offerer's thread
        final CompletableFuture<Throwable> late = append(slot);
        assertTrue(late.isDone(), "an append after the end completes before the offer returns");
        assertSame(death, late.get());
        final AtomicReference<Thread> ranOn = new AtomicReference<>();
        assertTrue(writer.offerCommand(slot, () -> ranOn.set(Thread.currentThread()), WAIT));
        assertSame(Thread.currentThread(), ranOn.get(), "a command after the end runs at once, here");
    }

    @Test
    void anErrorFromOneLogsDutyCycleFailsThatLogOnlyAndTheWriterGoesOn() throws Exception
    {
        writer = new LogWriterAgent("one-log-fails", 64 << 10);
        writer.start();
        final HoldingClient failing = new HoldingClient(writer);
        failing.slot = writer.register(failing);
        final HoldingClient healthy = new HoldingClient(writer);
        healthy.slot = writer.register(healthy);
        healthy.completeAtOnce = true;
        final CompletableFuture<Throwable> pending = append(failing.slot);
        awaitQueueRead(failing.slot);
        failing.dutyCycleError = new OutOfMemoryError("injected in one log's duty cycle");
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (failing.failure.get() == null)
        {
            assertTrue(System.nanoTime() < deadline, "the failing log was never failed");
            Thread.onSpinWait();
        }
        assertSame(failing.dutyCycleError, failing.failure.get(), "the log failed with what its duty cycle threw");
        assertNotNull(pending.get(WAIT.toSeconds(), TimeUnit.SECONDS), "its pending append failed");
        assertTrue(writer.thread().isAlive());
        assertNull(writer.death());
        assertNull(append(healthy.slot).get(WAIT.toSeconds(), TimeUnit.SECONDS), "the other log goes on");
        assertNull(healthy.failure.get());
    }

    @Test
    void aCallbackThatInterruptsTheWriterLeavesNoInterruptBehind() throws Exception
    {
        writer = new LogWriterAgent("interrupted-writer", 64 << 10);
        writer.start();
        final HoldingClient log = new HoldingClient(writer);
        log.slot = writer.register(log);
        log.completeAtOnce = true;
        final AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
        final CountDownLatch checked = new CountDownLatch(1);
        final AppendCallback interrupting = (o, e) -> Thread.currentThread().interrupt();
        assertTrue(writer.offerAppend(log.slot, new UnsafeBuffer(new byte[4]), 0, 4, 1, Durability.MEMORY,
            interrupting, WAIT));
        // the next message in the same duty cycle sees the thread's interrupt status
        assertTrue(writer.offerCommand(log.slot, () ->
        {
            interruptedAfter.set(Thread.currentThread().isInterrupted());
            checked.countDown();
        }, WAIT));
        assertTrue(checked.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertFalse(interruptedAfter.get(), "the callback's interrupt was left set on the writer thread");
        assertEquals(0, writer.callbacks().errors());
        awaitQueueRead(log.slot);
        assertTrue(writer.thread().isAlive());
    }

    private CompletableFuture<Throwable> append(final int slot)
    {
        final CompletableFuture<Throwable> done = new CompletableFuture<>();
        assertTrue(writer.offerAppend(slot, new UnsafeBuffer(new byte[8]), 0, 8, 1, Durability.DIRECT,
            (o, e) -> done.complete(e), WAIT));
        return done;
    }

    private void awaitQueueRead(final int slot) throws Exception
    {
        final CompletableFuture<Void> ran = new CompletableFuture<>();
        assertTrue(writer.offerCommand(slot, () -> ran.complete(null), WAIT));
        ran.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    private static void await(final CountDownLatch latch)
    {
        try
        {
            assertTrue(latch.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        }
        catch (final InterruptedException e)
        {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A log that holds its appends until it fails (as a DIRECT append waits for its flush), or completes them at
     * once; it fails as {@code DefaultLog} does: every held and later append completes with the failure.
     */
    private static final class HoldingClient extends TestWriterClient
    {
        final List<AppendCallback> held = new CopyOnWriteArrayList<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        volatile boolean completeAtOnce;
        volatile Error dutyCycleError;
        int slot;

        HoldingClient(final LogWriterAgent writer)
        {
            super(writer);
        }

        @Override
        public void onAppend(final DirectBuffer source, final int index, final int length, final int recordCount,
            final Durability durability, final AppendCallback callback)
        {
            final Throwable failed = failure.get();
            if (failed != null || completeAtOnce)
            {
                writer.callbacks().complete(callback, failed != null ? -1 : 0, failed);
                return;
            }
            held.add(callback);
        }

        @Override
        public int onDutyCycle(final long nowNanos)
        {
            final Error e = dutyCycleError;
            if (e != null && failure.get() == null)
            {
                throw e;
            }
            return 0;
        }

        @Override
        public void onFailure(final String what, final Throwable cause, final AppendCallback unfinished)
        {
            failure.compareAndSet(null, cause);
            for (final AppendCallback c : held)
            {
                fail(c, cause);
            }
            held.clear();
            fail(unfinished, cause);
        }
    }
}
