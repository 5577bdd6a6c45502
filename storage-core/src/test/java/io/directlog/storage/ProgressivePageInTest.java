package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Progressive page-ins (read-ahead publishes a segment's page before its bytes are read, readers use the chunks
 * loaded so far): a sequential reader of a cold log with segments several page-in chunks long gets every record in
 * order, intact, while page-ins race it, and so does a reader at random offsets beside it (which lands in
 * segments still loading, past what is loaded); each segment is paged in at most once.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ProgressivePageInTest
{
    /** Four 1 MiB page-in chunks a segment: readers meet pages part loaded. */
    private static final int SEGMENT = 4 << 20;
    /** Rolled segments: the first three are smaller (a new log's segments grow to the segment size). */
    private static final int SEGMENTS = 8;
    /** Records up to 40 KB: some straddle a chunk's end. */
    private static final int PAYLOAD = 40_000;
    private static final long SEED = 7;

    @Test
    void aSequentialReaderGetsEveryRecordInOrderWhilePageInsRaceIt() throws Exception
    {
        final Path dir = TestDirs.create("progressive-sequential");
        fill(dir);
        for (int round = 0; round < 3; round++)
        {
            try (LogStore store = LogStore.open(config(dir)))
            {
                final Log log = store.log("l");
                final long pageInsBefore = store.cacheStats().pageIns();
                final int readBytes = round == 0 ? 1 << 20 : round == 1 ? 64 << 10 : 3 << 20;
                assertEquals(log.visibleEndOffset(), readInOrder(log, readBytes), "round " + round);
                assertTrue(store.cacheStats().pageIns() - pageInsBefore <= SEGMENTS,
                    "round " + round + ": a rolled segment paged in twice: " + store.cacheStats());
            }
        }
    }

    @Test
    void randomReadsBesideASequentialReaderGetIntactRecords() throws Exception
    {
        final Path dir = TestDirs.create("progressive-random");
        fill(dir);
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        try
        {
            for (int round = 0; round < 3; round++)
            {
                try (LogStore store = LogStore.open(config(dir)))
                {
                    final Log log = store.log("l");
                    final long end = log.visibleEndOffset();
                    final Future<Long> sequential = threads.submit(() -> readInOrder(log, 1 << 20));
                    final Future<Integer> random = threads.submit(() -> readAtRandom(log, end, 200));
                    assertEquals(end, sequential.get(120, TimeUnit.SECONDS), "round " + round);
                    assertEquals(200, random.get(120, TimeUnit.SECONDS), "round " + round);
                }
            }
        }
        finally
        {
            threads.shutdownNow();
        }
    }

    private static StoreConfig config(final Path dir)
    {
        return TestStores.store(dir, TestStores.log(Durability.MEMORY).segmentSize(SEGMENT).build())
            .memoryBudget(8L * SEGMENT).readAheadBytes(2L * SEGMENT).build();
    }

    /** SEGMENTS rolled segments and a few records, then a close: nothing resident at the next open. */
    private static void fill(final Path dir) throws Exception
    {
        try (LogStore store = LogStore.open(config(dir)))
        {
            final Log log = store.log("l");
            while (log.stats().segmentRolls() < SEGMENTS)
            {
                final byte[] payload = TestStores.payloadUpTo(SEED, log.endOffset(), PAYLOAD);
                log.append(payload, Durability.MEMORY).get(10, TimeUnit.SECONDS);
            }
        }
    }

    /** @return the offset after the last record read: every record from the start, checked, in order. */
    private static long readInOrder(final Log log, final int readBytes)
    {
        long next = log.startOffset();
        final long end = log.visibleEndOffset();
        while (next < end)
        {
            try (RecordBatch batch = log.read(next, readBytes))
            {
                assertTrue(!batch.isEmpty(), "an empty batch at " + next + " below the end " + end);
                for (final Record r : batch)
                {
                    assertEquals(next, r.offset());
                    check(r);
                    next = r.offset() + r.recordCount();
                }
            }
        }
        return next;
    }

    private static int readAtRandom(final Log log, final long end, final int reads)
    {
        int done = 0;
        for (int i = 0; i < reads; i++)
        {
            final long offset = ThreadLocalRandom.current().nextLong(end);
            try (RecordBatch batch = log.read(offset, 2 * PAYLOAD))
            {
                long expected = offset;
                for (final Record r : batch)
                {
                    assertEquals(expected, r.offset());
                    check(r);
                    expected = r.offset() + r.recordCount();
                }
                assertTrue(expected > offset, "nothing read at " + offset);
            }
            done++;
        }
        return done;
    }

    private static void check(final Record r)
    {
        final byte[] expected = TestStores.payloadUpTo(SEED, r.offset(), PAYLOAD);
        assertEquals(expected.length, r.payload().capacity(), "length of offset " + r.offset());
        assertEquals(TestStores.crc(expected), TestStores.crc(r.payload(), expected.length),
            "payload of offset " + r.offset());
    }
}
