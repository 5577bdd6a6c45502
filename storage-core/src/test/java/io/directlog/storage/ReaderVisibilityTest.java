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
}
