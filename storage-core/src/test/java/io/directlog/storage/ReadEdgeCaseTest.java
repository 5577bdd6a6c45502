package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReadEdgeCaseTest
{
    private static final long SEED = 42;

    private static void appendN(final Log log, final long from, final int n)
    {
        final List<CompletableFuture<Long>> futures = new ArrayList<>();
        for (long o = from; o < from + n; o++)
        {
            futures.add(log.append(TestStores.payloadUpTo(SEED, o, 2000)));
        }
        long o = from;
        for (final CompletableFuture<Long> f : futures)
        {
            assertEquals(o++, f.join());
        }
    }

    @Test
    void argumentAndRangeChecks() throws Exception
    {
        final LogStore store = LogStore.open(TestStores.store(TestDirs.create("edge-args"),
            TestStores.log(Durability.DSYNC).build()).memoryBudget(16L << 20).build());
        try
        {
            final Log log = store.log("a");
            appendN(log, 0, 10);
            assertEquals(10, log.visibleEndOffset());
            assertThrows(IllegalArgumentException.class, () -> log.read(-1, 100));
            assertThrows(IllegalArgumentException.class, () -> log.read(0, 0));
            assertThrows(IllegalArgumentException.class, () -> log.read(0, -5));
            final OffsetOutOfRangeException e = assertThrows(OffsetOutOfRangeException.class, () -> log.read(11, 100));
            assertEquals(11, e.offset());
            assertEquals(0, e.startOffset());
            assertEquals(10, e.endOffset());
            assertTrue(e.getMessage().contains("[0, 10]"), e.getMessage());
            assertThrows(OffsetOutOfRangeException.class, () -> log.read(Long.MAX_VALUE, 100));
            try (RecordBatch batch = log.read(10, 100))
            {
                assertTrue(batch.isEmpty());
                assertEquals(0, batch.size());
                assertEquals(10, batch.nextOffset());
                assertEquals(0, batch.sizeInBytes());
                assertTrue(!batch.iterator().hasNext());
            }
            // maxBytes smaller than one record still returns that record, and only it
            for (long o = 0; o < 10; o++)
            {
                try (RecordBatch batch = log.read(o, 1))
                {
                    assertEquals(1, batch.size(), "offset " + o);
                    assertEquals(o + 1, batch.nextOffset());
                    final Record r = batch.iterator().next();
                    assertEquals(o, r.offset());
                    assertArrayEquals(TestStores.payloadUpTo(SEED, o, 2000), r.payloadBytes());
                }
            }
            // maxBytes bounds the batch: never more than maxBytes unless it is one record
            try (RecordBatch all = log.read(0, 1 << 20))
            {
                assertEquals(10, all.size());
                assertEquals(10, all.nextOffset());
            }
            try (RecordBatch some = log.read(0, 4000))
            {
                assertTrue(some.size() >= 1 && (some.size() == 1 || some.sizeInBytes() <= 4000),
                    some.size() + " records, " + some.sizeInBytes() + " bytes");
            }
            store.close();
            assertThrows(LogClosedException.class, () -> log.read(0, 100));
            assertThrows(LogClosedException.class, () -> log.read(10, 100));
        }
        finally
        {
            store.close();
        }
    }

    @Test
    void readAfterLogCloseThrows() throws Exception
    {
        try (LogStore store = LogStore.open(TestStores.store(TestDirs.create("edge-close"),
            TestStores.log(Durability.MEMORY).build()).memoryBudget(16L << 20).build()))
        {
            final Log log = store.log("a");
            appendN(log, 0, 3);
            log.close();
            assertThrows(LogClosedException.class, () -> log.read(0, 100));
            assertThrows(LogClosedException.class, () -> log.offsetForTimestamp(0));
        }
    }

    @Test
    void pinnedBatchSurvivesRollsAndEviction() throws Exception
    {
        // budget of 4 pages of 1 MiB: rolls force evictions of read-only pages
        try (LogStore store = LogStore.open(TestStores.store(TestDirs.create("edge-pin"),
            TestStores.log(Durability.MEMORY).build()).memoryBudget(4L << 20).build()))
        {
            final Log log = store.log("a");
            appendN(log, 0, 500);
            final RecordBatch pinned = log.read(0, 1 << 20);
            final RecordBatch second = log.read(100, 64 << 10);
            assertTrue(pinned.size() > 0);
            final long evictionsBefore = store.cacheStats().evictions();
            // write ~12 MiB: 12 rolls through a 4-page budget
            long next = 500;
            final long rollsBefore = log.stats().segmentRolls();
            while (log.stats().segmentRolls() < rollsBefore + 12)
            {
                appendN(log, next, 1000);
                next += 1000;
            }
            // other reads page segments in and out meanwhile
            for (long o = 0; o < next; o += 97)
            {
                try (RecordBatch b = log.read(o, 2000))
                {
                    check(b, o);
                }
            }
            final CacheStats stats = store.cacheStats();
            System.out.println("pinnedBatchSurvivesRollsAndEviction: " + stats);
            assertTrue(stats.evictions() > evictionsBefore || stats.misses() > 0, stats.toString());
            check(pinned, 0);
            check(second, 100);
            pinned.close();
            pinned.close(); // idempotent
            second.close();
            assertThrows(IllegalStateException.class, pinned::iterator);
            assertEquals(0, store.cacheStats().pinnedPages(), store.cacheStats().toString());
        }
    }

    private static void check(final RecordBatch batch, final long offset)
    {
        long expected = -1;
        int n = 0;
        for (final Record r : batch)
        {
            if (n == 0)
            {
                assertTrue(r.offset() <= offset && offset < r.nextOffset(), r.offset() + " vs " + offset);
            }
            else
            {
                assertEquals(expected, r.offset());
            }
            assertEquals(TestStores.crc(TestStores.payloadUpTo(SEED, r.offset(), 2000)),
                TestStores.crc(r.payload(), r.payloadLength()), "payload of offset " + r.offset());
            expected = r.nextOffset();
            n++;
        }
        assertEquals(batch.size(), n);
        assertEquals(expected, batch.nextOffset());
    }
}
