package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Read-ahead: a sequential reader of a cold log finds the next rolled segment paged in before it gets there, and a
 * read-ahead racing close or log deletion leaks no page.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReadAheadTest
{
    private static final int SEGMENT = 1 << 20;
    private static final int SEGMENTS = 8;
    private static final int PAYLOAD = 1000;
    private static final long SEED = 42;

    @Test
    void sequentialReadPagesTheNextSegmentInAhead() throws Exception
    {
        final Path dir = fill("read-ahead");
        try (LogStore store = LogStore.open(config(dir, SEGMENT)))
        {
            final Log log = store.log("l");
            final long pageInsBefore = store.cacheStats().pageIns();
            long next = readOnce(log, log.startOffset());
            next = readOnce(log, next); // starts where the last ended: sequential, so the next segment is queued
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (store.cacheStats().pageIns() < pageInsBefore + 2 && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            assertEquals(pageInsBefore + 2, store.cacheStats().pageIns(),
                "the reader's segment and the one after it: " + store.cacheStats());

            assertEquals(log.visibleEndOffset() - next, readToEnd(log, next));
            // every rolled segment was paged in once (by the reader or ahead of it), none twice
            assertEquals(pageInsBefore + SEGMENTS, store.cacheStats().pageIns(), store.cacheStats().toString());
        }
    }

    /**
     * Issue 21's catch-up through the broker, scaled down: one reader takes an eighth of a segment of each of 16
     * cold logs in turn (a Fetch of 16 partitions), and the segments read-ahead would keep ahead of every log (16 x
     * 4) are four times the budget. Read-ahead holds at most its bytes for the whole store until a reader reaches
     * them, so the disk gives each byte about once: 1.37-1.40x here, since a page-in of the segment a reader is in
     * starts at the chunk the reader's own disk reads reached, which it reads again (a segment here is two chunks;
     * the bound leaves room for index reads). With only its queue bounded it paged in ahead of every log, evicted
     * what other logs' readers had not reached yet and read it again: 2.05-2.11x here.
     */
    @Test
    void readerOfManyLogsInTurnReadsEachByteOffTheDiskAboutOnce() throws Exception
    {
        final int logs = 16;
        final int segment = 2 * SEGMENT;
        final int segments = SEGMENTS / 2;
        final Path dir = TestDirs.create("read-ahead-many");
        final StoreConfig config = TestStores.store(dir, TestStores.log(Durability.MEMORY).segmentSize(segment)
            .build()).memoryBudget(16L * segment).readAheadBytes(4L * segment).build();
        try (LogStore store = LogStore.open(config))
        {
            for (int i = 0; i < logs; i++)
            {
                final Log log = store.log("m" + i);
                while (log.stats().segmentRolls() < segments)
                {
                    log.append(TestStores.payloadUpTo(SEED, log.endOffset(), PAYLOAD), Durability.MEMORY);
                }
                log.append(new byte[1], Durability.MEMORY).get(10, TimeUnit.SECONDS);
            }
        }
        try (LogStore store = LogStore.open(config))
        {
            final Log[] all = new Log[logs];
            final long[] next = new long[logs];
            for (int i = 0; i < logs; i++)
            {
                all[i] = store.log("m" + i);
                next[i] = all[i].startOffset();
            }
            final long stored = (long)logs * segments * segment; // the rolled segments; the active ones hold a record
            final long diskBefore = store.cacheStats().bytesReadFromDisk();
            boolean more = true;
            while (more)
            {
                more = false;
                for (int i = 0; i < logs; i++)
                {
                    if (next[i] < all[i].visibleEndOffset())
                    {
                        try (RecordBatch batch = all[i].read(next[i], segment / 8))
                        {
                            next[i] = batch.nextOffset();
                        }
                        more = true;
                    }
                }
            }
            final long disk = store.cacheStats().bytesReadFromDisk() - diskBefore;
            assertTrue(disk <= stored * 7 / 4, "read " + disk + " bytes off the disk for " + stored + " stored: " +
                store.cacheStats());
        }
    }

    @Test
    void noReadAheadWhenTurnedOff() throws Exception
    {
        final Path dir = fill("no-read-ahead");
        try (LogStore store = LogStore.open(config(dir, 0)))
        {
            final Log log = store.log("l");
            final long pageInsBefore = store.cacheStats().pageIns();
            readOnce(log, readOnce(log, log.startOffset()));
            assertEquals(pageInsBefore + 1, store.cacheStats().pageIns(), store.cacheStats().toString());
            readToEnd(log, log.startOffset());
        }
    }

    @Test
    void readAheadRacingCloseOrDeleteLeaksNoPage() throws Exception
    {
        final Path dir = fill("read-ahead-race");
        for (int round = 0; round < 20; round++)
        {
            final LogStore store = LogStore.open(config(dir, 4L * SEGMENT));
            final Log log = store.log("l");
            long next = log.startOffset();
            for (int i = 0; i < 1 + round % 4; i++)
            {
                next = readOnce(log, next);
            }
            if (round % 2 == 0)
            {
                store.close(); // read-ahead of up to four segments may be queued or reading
                assertEquals(0, store.cacheStats().usedBytes(), "round " + round + ": " + store.cacheStats());
            }
            else
            {
                try (Log other = store.log("other"))
                {
                    other.append(new byte[10]).get(10, TimeUnit.SECONDS);
                }
                assertTrue(store.deleteLog("l"));
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                // only the write page of "other" may stay once a read-ahead in flight has discarded its page
                while (store.cacheStats().residentPages() > 1 && System.nanoTime() < deadline)
                {
                    Thread.onSpinWait();
                }
                assertTrue(store.cacheStats().residentPages() <= 1, "round " + round + ": " + store.cacheStats());
                store.close();
                assertEquals(0, store.cacheStats().usedBytes(), "round " + round + ": " + store.cacheStats());
                fillInto(dir);
            }
        }
    }

    private static StoreConfig config(final Path dir, final long readAhead)
    {
        return TestStores.store(dir, TestStores.log(Durability.MEMORY).build()).memoryBudget(16L * SEGMENT)
            .readAheadBytes(readAhead).build();
    }

    private static Path fill(final String name) throws Exception
    {
        final Path dir = TestDirs.create(name);
        fillInto(dir);
        return dir;
    }

    /** Writes SEGMENTS full segments plus a few records into log "l", then closes the store: nothing resident. */
    private static void fillInto(final Path dir) throws Exception
    {
        try (LogStore store = LogStore.open(config(dir, 0)))
        {
            final Log log = store.log("l");
            long offset = -1;
            while (log.stats().segmentRolls() < SEGMENTS)
            {
                final byte[] payload = TestStores.payloadUpTo(SEED, log.endOffset(), PAYLOAD);
                offset = log.append(payload, Durability.MEMORY).get(10, TimeUnit.SECONDS);
            }
            assertTrue(offset > 0);
        }
    }

    private static long readOnce(final Log log, final long offset)
    {
        try (RecordBatch batch = log.read(offset, 4096))
        {
            for (final Record r : batch)
            {
                check(r);
            }
            return batch.nextOffset();
        }
    }

    private static void check(final Record r)
    {
        final byte[] expected = TestStores.payloadUpTo(SEED, r.offset(), PAYLOAD);
        assertEquals(expected.length, r.payload().capacity(), "length of offset " + r.offset());
        assertEquals(TestStores.crc(expected), TestStores.crc(r.payload(), expected.length),
            "payload of offset " + r.offset());
    }

    private static long readToEnd(final Log log, final long from)
    {
        long records = 0;
        long next = from;
        final long end = log.visibleEndOffset();
        while (next < end)
        {
            try (RecordBatch batch = log.read(next, 64 << 10))
            {
                for (final Record r : batch)
                {
                    assertEquals(next, r.offset());
                    check(r);
                    next = r.offset() + r.recordCount();
                    records += r.recordCount();
                }
            }
        }
        return records;
    }
}
