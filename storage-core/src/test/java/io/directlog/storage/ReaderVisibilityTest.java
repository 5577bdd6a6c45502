package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A DSYNC log shows readers only what is durable under DSYNC; records appended there with MEMORY or DIRECT are
 * acknowledged first and become durable later. A reader that waits for them must not wait for the background sync
 * ({@code syncInterval}, made a minute here so that waiting for it fails the test): its wait makes them durable
 * soon. The bounds are generous (10 s on a loaded machine); without the fix the waits time out.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReaderVisibilityTest
{
    private static final Duration SYNC_INTERVAL = Duration.ofSeconds(60);
    private static final Duration WAIT = Duration.ofSeconds(10);

    private static LogConfig dsyncLogWithRareSyncs()
    {
        return TestStores.log(Durability.DSYNC).syncInterval(SYNC_INTERVAL).flushInterval(Duration.ofMillis(20))
            .build();
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void memoryAppendInDsyncLogBecomesVisibleToAWaitingReaderLongBeforeTheSyncInterval() throws Exception
    {
        try (LogStore store = LogStore.open(TestStores.store(TestDirs.create("visibility-memory"),
            dsyncLogWithRareSyncs()).build()))
        {
            final Log log = store.log("a");
            assertEquals(0L, log.append(bytes("memory"), Durability.MEMORY).get(10, TimeUnit.SECONDS));
            assertEquals(0, log.visibleEndOffset(), "acknowledged from memory, not yet durable under DSYNC");
            assertTrue(log.awaitAppend(0, WAIT), "a waiting reader must see the MEMORY append within " + WAIT +
                " (syncInterval " + SYNC_INTERVAL + "): visibleEndOffset=" + log.visibleEndOffset());
            try (RecordBatch batch = log.read(0, 1024))
            {
                assertEquals(1, batch.size());
            }
        }
    }

    @Test
    void directAppendWrittenBeforeTheReaderWaitsBecomesVisibleSoon() throws Exception
    {
        try (LogStore store = LogStore.open(TestStores.store(TestDirs.create("visibility-direct"),
            dsyncLogWithRareSyncs()).build()))
        {
            final Log log = store.log("a");
            for (int i = 0; i < 3; i++)
            {
                assertEquals(i, log.append(bytes("direct-" + i), Durability.DIRECT).get(10, TimeUnit.SECONDS));
            }
            // written by O_DIRECT before anybody waited: nothing but a sync makes it durable under DSYNC
            assertEquals(0, log.visibleEndOffset(), "written, not yet durable under DSYNC");
            assertTrue(log.awaitAppend(2, WAIT), "a waiting reader must see DIRECT appends within " + WAIT +
                " (syncInterval " + SYNC_INTERVAL + "): visibleEndOffset=" + log.visibleEndOffset());
            assertEquals(3, log.visibleEndOffset());
        }
    }

    @Test
    void readerPollingWithATimeoutSeesMemoryAppendsMadeWhileItWaits() throws Exception
    {
        try (LogStore store = LogStore.open(TestStores.store(TestDirs.create("visibility-reader"),
            dsyncLogWithRareSyncs()).build());
            LogReader reader = store.log("a").reader(0))
        {
            final Log log = store.log("a");
            try (RecordBatch empty = reader.poll(1024))
            {
                assertTrue(empty.isEmpty());
            }
            long seen = 0;
            for (int i = 0; i < 5; i++)
            {
                log.append(bytes("memory-" + i), Durability.MEMORY).get(10, TimeUnit.SECONDS);
                final long deadline = System.nanoTime() + WAIT.toNanos();
                while (seen <= i && System.nanoTime() < deadline)
                {
                    try (RecordBatch batch = reader.poll(1024, WAIT))
                    {
                        seen += batch.size();
                    }
                }
                assertEquals(i + 1, seen, "record " + i + " not seen within " + WAIT + " (syncInterval " +
                    SYNC_INTERVAL + ")");
            }
        }
    }

    @Test
    void dsyncLogWithoutWaitingReadersStillShowsOnlyWhatIsDurable() throws Exception
    {
        try (LogStore store = LogStore.open(TestStores.store(TestDirs.create("visibility-rule"),
            dsyncLogWithRareSyncs()).build()))
        {
            final Log log = store.log("a");
            log.append(bytes("direct"), Durability.DIRECT).get(10, TimeUnit.SECONDS);
            assertEquals(0, log.visibleEndOffset(), "DIRECT-written, nobody waits: not visible before a sync");
            try (RecordBatch batch = log.read(0, 1024))
            {
                assertTrue(batch.isEmpty(), "read must not return the undurable record");
            }
            log.append(bytes("dsync"), Durability.DSYNC).get(10, TimeUnit.SECONDS);
            assertEquals(2, log.visibleEndOffset(), "a DSYNC write makes every earlier record durable and visible");
        }
    }

    /**
     * A tailing reader of a DSYNC log waits about one device write for MEMORY appends, not a flush interval: with
     * {@code flushInterval} an hour and {@code flushBytes} far above what the test appends, only the waiting
     * reader's demand gets the records written. The reader waits first; the appends go on (bounded) until it
     * returns, since the writer sees the demand at the duty cycle of an append made after it.
     */
    @Test
    void aWaitingReaderGetsMemoryAppendsWrittenWithoutWaitingForTheFlushInterval() throws Exception
    {
        // one 16 MiB segment from the start: no roll (which writes) within what the test appends
        final LogConfig config = TestStores.log(Durability.DSYNC).segmentSize(16 << 20).initialSegmentSize(16 << 20)
            .syncInterval(SYNC_INTERVAL).flushInterval(Duration.ofHours(1)).flushBytes(8 << 20).build();
        try (LogStore store = LogStore.open(TestStores.store(TestDirs.create("visibility-tail"), config).build()))
        {
            final Log log = store.log("a");
            final java.util.concurrent.CompletableFuture<Boolean> seen = java.util.concurrent.CompletableFuture
                .supplyAsync(() ->
                {
                    try
                    {
                        return log.awaitAppend(0, Duration.ofSeconds(60));
                    }
                    catch (final InterruptedException e)
                    {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                });
            int appended = 0;
            while (!seen.isDone() && appended < 20_000)
            {
                log.append(bytes("memory-" + appended), Durability.MEMORY).get(10, TimeUnit.SECONDS);
                appended++;
                try
                {
                    seen.get(1, TimeUnit.MILLISECONDS);
                }
                catch (final java.util.concurrent.TimeoutException notYet)
                {
                    // the reader may not wait yet: append again
                }
            }
            assertTrue(seen.get(60, TimeUnit.SECONDS), "the waiting reader did not see offset 0 after " + appended +
                " MEMORY appends (flushInterval 1 h, flushBytes 8 MiB, no roll): visibleEndOffset=" + log.visibleEndOffset());
            assertTrue(log.visibleEndOffset() > 0);
        }
    }
}
