package io.directlog.storage.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogFailedException;
import io.directlog.storage.LogStore;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.TestDirs;
import io.directlog.storage.TestStores;
import io.directlog.storage.io.BufferedBlockIo;
import io.directlog.storage.io.InterceptingBlockIo;
import io.directlog.storage.io.NativeBlockIo;
import io.directlog.storage.log.DefaultLog;
import io.directlog.storage.writer.LogWriterAgent;
import io.directlog.storage.writer.WriterTestHooks;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 19: a writer thread that ended left its logs' appends waiting forever ({@code ApiFaultTest} hung 9 minutes
 * in a join), and an Error thrown by one log's code on the writer ended the thread for every log it served. Now a
 * thread that ends fails its logs at once, and one log's Error fails that log only.
 * <p>
 * The append timeout is two minutes here: every wait below is far shorter, so a failure that came only from the
 * timeout (or never) fails the test.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WriterDeathTest
{
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int SEEDED = 10;

    private static StoreConfig.Builder config(final Path dir)
    {
        return TestStores.store(dir, TestStores.log(Durability.DIRECT).build()).appendTimeout(Duration.ofMinutes(2));
    }

    @Test
    void aWriterThreadThatEndsFailsItsLogsAtOnceAndTheStoreGoesOn() throws Exception
    {
        final Path dir = TestDirs.create("writer-death");
        final StoreConfig config = config(dir).writerThreads(2).build();
        try (LogStore store = LogStore.open(config))
        {
            final StoreEngine engine = (StoreEngine)store;
            final Log a = seeded(store, "a");
            final Log b = seeded(store, "b");
            final DefaultLog da = engine.openLogs().get("a");
            final DefaultLog db = engine.openLogs().get("b");
            assertNotSame(da.writerThread(), db.writerThread(), "round robin: one log per writer");
            final LogWriterAgent writer = agentOf(engine, da.writerThread());

            // hold the writer in a command while its end and appends of each kind queue behind it
            final CountDownLatch release = new CountDownLatch(1);
            assertTrue(writer.offerCommand(0, () -> awaitQuietly(release), WAIT));
            assertTrue(WriterTestHooks.endThreadAfterQueued(writer, new AssertionError("injected writer end"), WAIT));
            final List<CompletableFuture<Long>> queued = new ArrayList<>();
            for (final Durability d : Durability.values())
            {
                queued.add(a.append(("queued-" + d).getBytes(), d));
            }
            final CompletableFuture<Long> viaCallback = new CompletableFuture<>();
            a.append(new UnsafeBuffer(new byte[3]), 0, 3, Durability.DIRECT, (o, e) ->
            {
                if (e == null)
                {
                    viaCallback.complete(o);
                }
                else
                {
                    viaCallback.completeExceptionally(e);
                }
            });
            queued.add(viaCallback);
            release.countDown();

            for (final CompletableFuture<Long> f : queued)
            {
                assertWriterEnd(failureOf(f), da.writerThread().getName());
            }
            assertFalse(a.isWritable());
            assertNotNull(writer.death());
            writer.thread().join(WAIT.toMillis());
            assertFalse(writer.thread().isAlive());
            final CompletableFuture<Long> later = a.append("later".getBytes());
            assertTrue(later.isDone(), "an append after the writer's end fails before append returns");
            assertWriterEnd(failureOf(later), da.writerThread().getName());
            assertEquals(SEEDED, a.visibleEndOffset(), "what was acknowledged stays readable");

            // the other writer's log goes on, and a new log goes to a live writer
            assertEquals(SEEDED, b.append("b-after".getBytes()).get(WAIT.toSeconds(), TimeUnit.SECONDS));
            assertTrue(b.isWritable());
            final Log c = store.log("c");
            assertEquals(0, c.append("c".getBytes()).get(WAIT.toSeconds(), TimeUnit.SECONDS));
            assertSame(db.writerThread(), engine.openLogs().get("c").writerThread());
            closeWithin(a);
        }
        // the next open recovers the log whose writer ended: every acknowledged record is back, and it takes appends
        try (LogStore store = LogStore.open(config))
        {
            final Log a = store.log("a");
            assertSeeded(a, "a");
            assertEquals(SEEDED, a.append("again".getBytes()).get(WAIT.toSeconds(), TimeUnit.SECONDS));
            assertEquals(SEEDED + 1, store.log("b").endOffset());
        }
    }

    @Test
    void anErrorFromOneLogsWriteFailsThatLogOnlyAndItsWriterGoesOn() throws Exception
    {
        final Path dir = TestDirs.create("writer-log-error");
        final ErrorOnWrite io = new ErrorOnWrite();
        final StoreConfig config = config(dir).writerThreads(1).blockIo(io).build();
        try (LogStore store = LogStore.open(config))
        {
            final StoreEngine engine = (StoreEngine)store;
            final Log a = seeded(store, "a");
            final Log b = seeded(store, "b");
            io.armedUnder = dir.resolve("a");
            final Throwable failed = failureOf(a.append("fails".getBytes()));
            assertInstanceOf(LogFailedException.class, failed);
            assertTrue(failed.getMessage().contains("injected write error"), failed.getMessage());
            assertFalse(a.isWritable());
            assertInstanceOf(LogFailedException.class, failureOf(a.append("later".getBytes())));

            assertEquals(SEEDED, b.append("b-after".getBytes()).get(WAIT.toSeconds(), TimeUnit.SECONDS));
            assertTrue(b.isWritable());
            final LogWriterAgent writer = engine.writers()[0];
            assertTrue(writer.thread().isAlive());
            assertNull(writer.death());
            closeWithin(a);
            io.armedUnder = null;
        }
        try (LogStore store = LogStore.open(config))
        {
            assertSeeded(store.log("a"), "a");
        }
    }

    @Test
    void aCallbackThatInterruptsTheWriterThreadFailsNoLog() throws Exception
    {
        // buffered I/O writes through a FileChannel, which closes itself when its thread is interrupted
        final Path dir = TestDirs.create("writer-interrupt");
        final StoreConfig config = config(dir).writerThreads(1).blockIo(new BufferedBlockIo(4096)).build();
        try (LogStore store = LogStore.open(config))
        {
            final LogWriterAgent writer = ((StoreEngine)store).writers()[0];
            final Log a = seeded(store, "a");
            final Log b = seeded(store, "b");
            // one duty cycle: a's MEMORY append completes first (its callback interrupts), then b writes
            final CountDownLatch release = new CountDownLatch(1);
            assertTrue(writer.offerCommand(0, () -> awaitQuietly(release), WAIT));
            final CompletableFuture<Long> interrupting = new CompletableFuture<>();
            a.append(new UnsafeBuffer(new byte[4]), 0, 4, Durability.MEMORY, (o, e) ->
            {
                Thread.currentThread().interrupt();
                interrupting.complete(o);
            });
            final CompletableFuture<Long> written = b.append("b-next".getBytes(), Durability.DIRECT);
            release.countDown();
            assertEquals(SEEDED, interrupting.get(WAIT.toSeconds(), TimeUnit.SECONDS));
            assertEquals(SEEDED, written.get(WAIT.toSeconds(), TimeUnit.SECONDS), "b's write after a's callback");
            assertTrue(a.isWritable() && b.isWritable());
            assertEquals(SEEDED + 1, a.append("a-after".getBytes()).get(WAIT.toSeconds(), TimeUnit.SECONDS));
            assertEquals(SEEDED + 1, b.append("b-after".getBytes()).get(WAIT.toSeconds(), TimeUnit.SECONDS));
            assertTrue(writer.thread().isAlive());
            assertNull(writer.death());
        }
    }

    private static Log seeded(final LogStore store, final String name)
    {
        final Log log = store.log(name);
        for (int i = 0; i < SEEDED; i++)
        {
            log.append((name + "-" + i).getBytes()).join();
        }
        return log;
    }

    private static void assertSeeded(final Log log, final String name)
    {
        assertEquals(SEEDED, log.endOffset());
        long next = 0;
        while (next < SEEDED)
        {
            try (RecordBatch batch = log.read(next, 1 << 20))
            {
                for (final Record r : batch)
                {
                    assertArrayEquals((name + "-" + r.offset()).getBytes(), r.payloadBytes());
                    next = r.nextOffset();
                }
            }
        }
    }

    private static void assertWriterEnd(final Throwable failure, final String thread)
    {
        assertInstanceOf(LogFailedException.class, failure);
        assertTrue(failure.getMessage().contains(thread) && failure.getMessage().contains("injected writer end"),
            failure.getMessage());
    }

    /** @return what {@code f} failed with, waiting a bounded time (never the append timeout). */
    private static Throwable failureOf(final CompletableFuture<Long> f) throws Exception
    {
        final ExecutionException e = assertThrows(ExecutionException.class,
            () -> f.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        return e.getCause();
    }

    private static void closeWithin(final Log log) throws InterruptedException
    {
        final Thread closer = new Thread(log::close, "closer");
        closer.start();
        closer.join(WAIT.toMillis());
        assertFalse(closer.isAlive(), "close of a failed log did not return within " + WAIT);
    }

    private static LogWriterAgent agentOf(final StoreEngine engine, final Thread thread)
    {
        for (final LogWriterAgent w : engine.writers())
        {
            if (w.thread() == thread)
            {
                return w;
            }
        }
        throw new AssertionError("no writer runs on " + thread);
    }

    private static void awaitQuietly(final CountDownLatch latch)
    {
        try
        {
            latch.await(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** Native block I/O whose writes by a writer thread to segment files under {@link #armedUnder} throw an Error. */
    private static final class ErrorOnWrite extends InterceptingBlockIo
    {
        volatile Path armedUnder;

        ErrorOnWrite()
        {
            super(new NativeBlockIo(4096));
        }

        @Override
        protected void beforeWrite(final Path file)
        {
            final Path under = armedUnder;
            if (under != null && file.startsWith(under) && file.getFileName().toString().endsWith(".log") &&
                Thread.currentThread().getName().startsWith("directlog-writer"))
            {
                throw new AssertionError("injected write error");
            }
        }
    }
}
