package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LogStoreTest
{
    @Test
    void appendedRecordsAreReadBackWithDenseOffsets() throws Exception
    {
        final Path dir = TestDirs.create("basic");
        try (LogStore store = LogStore.open(TestStores.store(dir).writerThreads(2).build()))
        {
            final Log log = store.log("orders-0");
            for (int i = 0; i < 100; i++)
            {
                assertEquals(i, log.append(("record-" + i).getBytes()).join());
            }
            assertEquals(100, log.endOffset());
            int i = 0;
            while (i < 100) // a batch ends at its segment's end: the first ones (the ladder's small rungs) hold fewer
            {
                try (RecordBatch batch = log.read(i, 1 << 20))
                {
                    final int before = i;
                    for (final Record r : batch)
                    {
                        assertEquals(i, r.offset());
                        assertArrayEquals(("record-" + i).getBytes(), r.payloadBytes());
                        i++;
                    }
                    assertTrue(i > before, "a read at " + before + " returned nothing");
                }
            }
            assertEquals(100, i);
        }
    }

    @Test
    void recordsSurviveReopenAndAppendsContinue() throws Exception
    {
        final Path dir = TestDirs.create("reopen");
        final List<CompletableFuture<Long>> futures = new ArrayList<>();
        try (LogStore store = LogStore.open(TestStores.store(dir).writerThreads(2).build()))
        {
            final Log log = store.log("a");
            for (int i = 0; i < 3000; i++)
            {
                futures.add(log.append(new byte[500 + i % 7], Durability.values()[i % 3]));
            }
            for (final CompletableFuture<Long> f : futures)
            {
                f.join();
            }
            assertTrue(log.stats().segmentRolls() > 0, "expected rolls");
        }
        try (LogStore store = LogStore.open(TestStores.store(dir).writerThreads(2).build()))
        {
            final Log log = store.log("a");
            assertEquals(3000, log.endOffset());
            long next = 0;
            while (next < 3000)
            {
                try (RecordBatch batch = log.read(next, 64 << 10))
                {
                    for (final Record r : batch)
                    {
                        assertEquals(next, r.offset());
                        assertEquals(500 + (int)(next % 7), r.payloadLength());
                        next++;
                    }
                }
            }
            assertEquals(3000, log.append(new byte[10]).join());
        }
    }

    @Test
    void oversizedRecordIsRefusedWithTheLimit() throws Exception
    {
        final Path dir = TestDirs.create("big");
        try (LogStore store = LogStore.open(TestStores.store(dir).writerThreads(2).build()))
        {
            final Log log = store.log("a");
            final int max = (1 << 20) - 4096 - 32;
            assertEquals(0, log.append(new byte[max]).join());
            final RecordTooLargeException e = assertThrows(RecordTooLargeException.class,
                () -> log.append(new byte[max + 1]));
            assertTrue(e.getMessage().contains(Integer.toString(max)), e.getMessage());
            assertEquals(1, log.append(new byte[0]).join());
        }
    }
}
