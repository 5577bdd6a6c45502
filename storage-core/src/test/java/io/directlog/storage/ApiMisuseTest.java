package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What an adopter gets when the API is misused on purpose (issue 19, "Defects found"). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ApiMisuseTest
{
    private static StoreConfig.Builder config(final Path dir)
    {
        return StoreConfig.builder(dir).memoryBudget(16L << 20).writerThreads(1)
            .appendTimeout(Duration.ofSeconds(2))
            .defaultLogConfig(LogConfig.builder().segmentSize(1 << 20).build());
    }

    private static final UnsafeBuffer ONE_BYTE = new UnsafeBuffer(new byte[1]);

    // ---------------------------------------------------------------- 1. a throwing callback

    @Test
    void callbackThatThrowsDoesNotStopTheWriter() throws Exception
    {
        final MeterRegistry registry = new SimpleMeterRegistry();
        try (LogStore store = LogStore.open(config(TestDirs.create("cb-throws")).meterRegistry(registry).build()))
        {
            final Log log = store.log("a");
            log.append(ONE_BYTE, 0, 1, Durability.DSYNC, (offset, error) ->
            {
                throw new IllegalStateException("user code fails");
            });
            assertEquals(1L, log.append(new byte[1]).get(10, TimeUnit.SECONDS));
            assertEquals(1, log.stats().callbackErrors());
            assertEquals(1.0, registry.get("directlog.callback.errors").functionCounter().count());
        }
    }

    @Test
    void futureStageThatThrowsOnTheWriterDoesNotStopTheWriter() throws Exception
    {
        try (LogStore store = LogStore.open(config(TestDirs.create("stage-throws")).build()))
        {
            final Log log = store.log("a");
            final CompletableFuture<Long> first = log.append(new byte[1]);
            first.thenAccept(offset ->
            {
                throw new IllegalStateException("user stage fails");
            });
            first.whenComplete((offset, error) ->
            {
                throw new IllegalStateException("user stage fails");
            });
            assertEquals(1L, log.append(new byte[1]).get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void callbackThatThrowsOnARefusedAppendDoesNotStopTheWriter() throws Exception
    {
        try (LogStore store = LogStore.open(config(TestDirs.create("cb-refused")).build()))
        {
            final Log a = store.log("a");
            final Log b = store.log("b"); // same writer thread
            a.close();
            a.append(ONE_BYTE, 0, 1, Durability.DSYNC, (offset, error) ->
            {
                throw new IllegalStateException("user code fails on refusal");
            });
            assertEquals(0L, b.append(new byte[1]).get(10, TimeUnit.SECONDS));
        }
    }

    // ---------------------------------------------------------------- 2. close inside a callback

    @Test
    void closeInsideTheLogsOwnCallbackReturns() throws Exception
    {
        try (LogStore store = LogStore.open(config(TestDirs.create("close-in-cb")).build()))
        {
            final Log log = store.log("a");
            final CompletableFuture<Void> closed = new CompletableFuture<>();
            log.append(ONE_BYTE, 0, 1, Durability.DSYNC, (offset, error) ->
            {
                log.close();
                closed.complete(null);
            });
            closed.get(10, TimeUnit.SECONDS);
            assertFalse(log.isWritable());
            final CompletionException refused = assertThrows(CompletionException.class,
                () -> log.append(new byte[1]).join());
            assertTrue(refused.getCause() instanceof LogClosedException, String.valueOf(refused.getCause()));
            log.close(); // idempotent from another thread too, and waits for the close the callback started
        }
    }

    @Test
    void closeInsideACallbackWhileAnotherThreadClosesTheLogReturns() throws Exception
    {
        try (LogStore store = LogStore.open(config(TestDirs.create("close-in-cb-race")).build()))
        {
            for (int round = 0; round < 20; round++)
            {
                final Log log = store.log("a" + round);
                final CompletableFuture<Void> returned = new CompletableFuture<>();
                log.append(ONE_BYTE, 0, 1, Durability.DSYNC, (offset, error) ->
                {
                    log.close(); // on the writer, while (or before) the close below runs there
                    returned.complete(null);
                });
                log.close();
                returned.get(10, TimeUnit.SECONDS);
            }
        }
    }

    // ---------------------------------------------------------------- 3. log(name) after close

    @Test
    void logAfterCloseReturnsAWorkingReopenedLog() throws Exception
    {
        try (LogStore store = LogStore.open(config(TestDirs.create("reopen-log")).build()))
        {
            final Log first = store.log("a");
            assertEquals(0L, first.append(new byte[1]).get(10, TimeUnit.SECONDS));
            first.close();
            final Log again = store.log("a");
            assertNotSame(first, again);
            assertTrue(again.isWritable());
            assertEquals(1L, again.append(new byte[1]).get(10, TimeUnit.SECONDS));
            try (RecordBatch batch = again.read(0, 1 << 16))
            {
                assertEquals(2, batch.size());
            }
        }
    }

    // ---------------------------------------------------------------- 6. memory budget too small

    @Test
    void budgetTooSmallForOneWritePageIsRefusedAtOpen() throws Exception
    {
        final StoreConfig small = StoreConfig.builder(TestDirs.create("small-budget")).memoryBudget(1 << 20)
            .writerThreads(1).defaultLogConfig(LogConfig.builder().segmentSize(64 << 20).build()).build();
        try (LogStore store = LogStore.open(small))
        {
            final MemoryBudgetExceededException e = assertThrows(MemoryBudgetExceededException.class,
                () -> store.log("a"));
            assertTrue(e.getMessage().contains("memory budget"), e.getMessage());
            assertFalse(store.logNames().contains("a"), "a refused log leaves no files: " + store.logNames());
        }
    }

    // ---------------------------------------------------------------- 7. messages and the exception tree

    @Test
    void storePathThatIsARegularFileIsNamedAsSuch() throws Exception
    {
        final Path file = TestDirs.create("regular-file").resolve("afile");
        Files.writeString(file, "x");
        final StorageException e = assertThrows(StorageException.class,
            () -> LogStore.open(config(file).build()).close());
        assertTrue(e.getMessage().contains("not a directory"), e.getMessage());
    }

    @Test
    void storePathUnderARegularFileIsNamedAsSuch() throws Exception
    {
        final Path file = TestDirs.create("under-regular-file").resolve("afile");
        Files.writeString(file, "x");
        final StorageException e = assertThrows(StorageException.class,
            () -> LogStore.open(config(file.resolve("store")).build()).close());
        assertTrue(e.getMessage().contains("not a directory"), e.getMessage());
    }

    @Test
    void readOnlyStoreDirectoryIsNamedAsSuch() throws Exception
    {
        Assumptions.assumeFalse("root".equals(System.getProperty("user.name")),
            "root ignores directory permissions");
        final Path dir = TestDirs.create("read-only");
        assertTrue(dir.toFile().setWritable(false, false));
        try
        {
            final StorageException e = assertThrows(StorageException.class,
                () -> LogStore.open(config(dir).build()).close());
            assertTrue(e.getMessage().contains("permission denied"), e.getMessage());
        }
        finally
        {
            dir.toFile().setWritable(true, false);
        }
    }

    @Test
    void nullLogNameIsNamedAsSuch() throws Exception
    {
        try (LogStore store = LogStore.open(config(TestDirs.create("null-name")).build()))
        {
            final NullPointerException e = assertThrows(NullPointerException.class, () -> store.log(null));
            assertTrue(String.valueOf(e.getMessage()).contains("log name"), e.getMessage());
            final NullPointerException e2 = assertThrows(NullPointerException.class,
                () -> store.log(null, LogConfig.defaults()));
            assertTrue(String.valueOf(e2.getMessage()).contains("log name"), e2.getMessage());
        }
    }

    @Test
    void awaitAppendOfANegativeOffsetIsRefused() throws Exception
    {
        try (LogStore store = LogStore.open(config(TestDirs.create("await-negative")).build()))
        {
            final Log log = store.log("a");
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> log.awaitAppend(-5, Duration.ofMillis(10)));
            assertTrue(e.getMessage().contains("-5"), e.getMessage());
        }
    }

    @Test
    void logClosedExceptionIsAStorageException() throws Exception
    {
        try (LogStore store = LogStore.open(config(TestDirs.create("closed-root")).build()))
        {
            final Log log = store.log("a");
            log.close();
            assertThrows(StorageException.class, () -> log.read(0, 100));
            assertTrue(StorageException.class.isAssignableFrom(LogClosedException.class));
        }
    }
}
