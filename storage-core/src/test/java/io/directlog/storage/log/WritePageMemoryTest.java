package io.directlog.storage.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.MemoryBudgetExceededException;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.TestDirs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18, memory: a log's write page follows its data. It is a growing page charged in chunks from the first
 * append, none is taken by a clean open, and a log that goes idle hands it to the read cache; the budget is
 * exhausted only by what write pages hold, and then only the append that needed memory fails.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class WritePageMemoryTest
{
    private static final int SEGMENT = 1 << 20;
    /** Never reached in these tests: the idle release is driven through {@link DefaultLog#releaseWritePageNow()}. */
    private static final Duration NEVER_IDLE = Duration.ofHours(1);

    private static StoreConfig.Builder store(final Path dir, final long budget, final Durability durability)
    {
        // every segment full size (no ladder), so that the charges these tests count are those of one segment
        final LogConfig log = LogConfig.builder().segmentSize(SEGMENT).initialSegmentSize(SEGMENT).preparedSegments(1)
            .durability(durability).flushInterval(Duration.ofMillis(5)).build();
        return StoreConfig.builder(dir).memoryBudget(budget).writerThreads(1).defaultLogConfig(log)
            .pageIdleRelease(NEVER_IDLE);
    }

    private static byte[] payload(final String log, final long offset, final int length)
    {
        final byte[] bytes = new byte[length];
        final byte[] id = (log + "/" + offset + "/").getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < length; i++)
        {
            bytes[i] = id[i % id.length];
        }
        return bytes;
    }

    private static void append(final Log log, final long offset, final int length) throws Exception
    {
        assertEquals(offset, log.append(payload(log.name(), offset, length)).get(30, TimeUnit.SECONDS),
            "offset of the append to " + log.name());
    }

    /** Reads every record from 0 in batches of {@code maxBytes}, checking each payload against its offset. */
    private static void assertRecords(final Log log, final long count, final int length, final int maxBytes)
    {
        long next = 0;
        while (next < count)
        {
            try (RecordBatch batch = log.read(next, maxBytes))
            {
                assertFalse(batch.isEmpty(), log.name() + ": no record at " + next + " of " + count);
                for (final Record r : batch)
                {
                    assertEquals(next, r.offset(), log.name());
                    assertArrayEquals(payload(log.name(), next, length), r.payloadBytes(), log.name() + " @" + next);
                    next++;
                }
            }
        }
        assertEquals(count, log.endOffset(), log.name());
    }

    private static long used(final LogStore store)
    {
        return store.cacheStats().usedBytes();
    }

    @Test
    void hundredsOfLogsLiveInABudgetFarSmallerThanTheirSegmentsAndReopenWithoutWritePages() throws Exception
    {
        final Path dir = TestDirs.create("growpage-many");
        final int logs = 200;
        final int records = 3;
        final long budget = 16L << 20; // 200 logs of 1 MiB segments: 12.5 times the budget
        try (LogStore store = LogStore.open(store(dir, budget, Durability.DIRECT).build()))
        {
            for (int i = 0; i < logs; i++)
            {
                final Log log = store.log("log-" + i);
                for (int r = 0; r < records; r++)
                {
                    append(log, r, 100);
                }
            }
            assertTrue(used(store) <= (long)logs * WritePage.FIRST_CHUNK,
                "a log of three records holds one first chunk: " + store.cacheStats());
        }
        try (LogStore store = LogStore.open(store(dir, budget, Durability.DIRECT).build()))
        {
            final List<Log> opened = new ArrayList<>();
            for (int i = 0; i < logs; i++)
            {
                opened.add(store.log("log-" + i));
            }
            assertEquals(0, used(store), "a clean open takes no write page: " + store.cacheStats());
            for (final Log log : opened)
            {
                assertRecords(log, records, 100, 1 << 16);
                append(log, records, 100);
                assertRecords(log, records + 1, 100, 1 << 16);
            }
            assertTrue(used(store) <= (long)logs * WritePage.FIRST_CHUNK, store.cacheStats().toString());
        }
        try (LogStore store = LogStore.open(store(dir, budget, Durability.DIRECT).build()))
        {
            for (int i = 0; i < logs; i += 37)
            {
                assertRecords(store.log("log-" + i), records + 1, 100, 1 << 16);
            }
        }
    }

    @Test
    void budgetHeldByWritePagesFailsOnlyTheAppendThatNeedsMoreAndTheLogGoesOn() throws Exception
    {
        final Path dir = TestDirs.create("growpage-budget");
        final long budget = SEGMENT; // room for 16 first chunks
        final int fit = (int)(budget / WritePage.FIRST_CHUNK);
        try (LogStore store = LogStore.open(store(dir, budget, Durability.DIRECT).build()))
        {
            final List<Log> logs = new ArrayList<>();
            for (int i = 0; i < fit; i++)
            {
                final Log log = store.log("log-" + i);
                append(log, 0, 100);
                logs.add(log);
            }
            assertEquals(budget, used(store), "every first chunk charged: " + store.cacheStats());

            final Log late = store.log("late");
            final ExecutionException refused = assertThrows(ExecutionException.class,
                () -> late.append(payload("late", 0, 100)).get(30, TimeUnit.SECONDS));
            final MemoryBudgetExceededException e = assertInstanceOf(MemoryBudgetExceededException.class,
                refused.getCause());
            assertTrue(e.getMessage().contains("'late'") && e.getMessage().contains("memory budget " + budget) &&
                e.getMessage().contains("segment size " + SEGMENT), e.getMessage());
            assertTrue(late.isWritable(), "the log that got no page goes on");
            assertEquals(0, late.endOffset());

            // a record past its first chunk needs more of the budget: that append fails, smaller ones go on
            final Log first = logs.get(0);
            final CompletableFuture<Long> big = first.append(new byte[WritePage.FIRST_CHUNK]);
            final ExecutionException grow = assertThrows(ExecutionException.class, () -> big.get(30, TimeUnit.SECONDS));
            assertInstanceOf(MemoryBudgetExceededException.class, grow.getCause());
            assertTrue(grow.getCause().getMessage().contains("'log-0' cannot grow its write page"),
                grow.getCause().getMessage());
            append(first, 1, 100);
            for (int i = 1; i < fit; i++)
            {
                append(logs.get(i), 1, 100);
            }

            // memory comes back when logs go idle: the late log now gets a page, and so does an idle log that
            // resumes, evicting the read pages the idle ones left
            assertTrue(((DefaultLog)logs.get(1)).releaseWritePageNow());
            assertTrue(((DefaultLog)logs.get(2)).releaseWritePageNow());
            append(late, 0, 100);
            append(logs.get(1), 2, 100);
            for (int i = 0; i < fit; i++)
            {
                assertRecords(logs.get(i), i == 1 ? 3 : 2, 100, 1 << 16);
            }
            assertRecords(late, 1, 100, 1 << 16);
        }
    }

    @Test
    void idleReleaseGivesTheChargeBackAndEveryRecordStaysReadableAcrossTheNewPage() throws Exception
    {
        for (final Durability durability : new Durability[] {Durability.DIRECT, Durability.MEMORY})
        {
            final Path dir = TestDirs.create("growpage-idle-" + durability);
            try (LogStore store = LogStore.open(store(dir, 64L << 20, durability).build()))
            {
                final DefaultLog log = (DefaultLog)store.log("idle");
                for (long o = 0; o < 10; o++)
                {
                    append(log, o, 300); // a DIRECT append each in its own block: 44 KiB of the first chunk
                }
                assertEquals(WritePage.FIRST_CHUNK, used(store), store.cacheStats().toString());
                assertTrue(awaitReleased(log), "nothing left to write, no reader: the page goes");
                final long released = used(store);
                assertTrue(released < WritePage.FIRST_CHUNK && released >= 4096,
                    "the read page keeps the charge of what it holds (10 records of 300 B): " + store.cacheStats());
                assertFalse(log.releaseWritePageNow(), "no page held any more");
                assertRecords(log, 10, 300, 1 << 20);

                for (long o = 10; o < 40; o++)
                {
                    append(log, o, 300); // a new page from the next block; records read before any flush too
                    try (RecordBatch batch = log.read(o, 1 << 16))
                    {
                        assertEquals(o, batch.iterator().next().offset(), durability + ": the record just appended");
                    }
                }
                assertEquals(1, store.cacheStats().residentPages(), "the old page went when the new one came: " +
                    store.cacheStats());
                for (final int maxBytes : new int[] {1 << 20, 4096, 700})
                {
                    assertRecords(log, 40, 300, maxBytes); // batches from disk below the new page, then from it
                }
            }
            try (LogStore store = LogStore.open(store(dir, 64L << 20, durability).build()))
            {
                assertRecords(store.log("idle"), 40, 300, 1 << 20);
            }
        }
    }

    /** The flush after the last append may still be due: the release waits for it (bounded). */
    private static boolean awaitReleased(final DefaultLog log)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline)
        {
            if (log.releaseWritePageNow())
            {
                return true;
            }
        }
        return false;
    }

    @Test
    void aPinnedWritePageIsNotReleased() throws Exception
    {
        final Path dir = TestDirs.create("growpage-pinned");
        try (LogStore store = LogStore.open(store(dir, 64L << 20, Durability.DIRECT).build()))
        {
            final DefaultLog log = (DefaultLog)store.log("pinned");
            append(log, 0, 100);
            try (RecordBatch batch = log.read(0, 4096))
            {
                assertEquals(1, batch.size());
                assertFalse(log.releaseWritePageNow(), "a reader holds the page");
            }
            assertTrue(awaitReleased(log));
        }
    }

    @Test
    void truncationAfterAnIdleReleaseCutsAndTheLogGoesOn() throws Exception
    {
        final Path dir = TestDirs.create("growpage-truncate");
        try (LogStore store = LogStore.open(store(dir, 64L << 20, Durability.DIRECT).build()))
        {
            final DefaultLog log = (DefaultLog)store.log("cut");
            for (long o = 0; o < 20; o++)
            {
                append(log, o, 200);
            }
            assertTrue(awaitReleased(log));
            log.truncateTo(12);
            for (long o = 12; o < 30; o++)
            {
                append(log, o, 200);
            }
            assertRecords(log, 30, 200, 1 << 20);
        }
        try (LogStore store = LogStore.open(store(dir, 64L << 20, Durability.DIRECT).build()))
        {
            assertRecords(store.log("cut"), 30, 200, 4096);
        }
    }

    @Test
    void theWriterReleasesAnIdlePageByItself() throws Exception
    {
        final Path dir = TestDirs.create("growpage-writer-idle");
        try (LogStore store = LogStore.open(store(dir, 64L << 20, Durability.DIRECT)
            .pageIdleRelease(Duration.ofMillis(1)).build()))
        {
            final Log log = store.log("auto");
            append(log, 0, 100);
            // bounded wait for the writer's duty cycle (it wakes at least every 10 ms) to see the log idle
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (used(store) >= WritePage.FIRST_CHUNK && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            assertEquals(8192, used(store), "released, charged for its two blocks (header, record): " +
                store.cacheStats());
            append(log, 1, 100);
            assertRecords(log, 2, 100, 1 << 16);
        }
    }

    @Test
    void pageIdleReleaseMustBePositiveAndRepresentable()
    {
        final StoreConfig.Builder b = StoreConfig.builder(Path.of("unused"));
        for (final Duration bad : new Duration[] {Duration.ZERO, Duration.ofMillis(-1), Duration.ofSeconds(Long.MAX_VALUE)})
        {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> b.pageIdleRelease(bad).build());
            assertTrue(e.getMessage().startsWith("pageIdleRelease=" + bad), e.getMessage());
        }
        assertThrows(NullPointerException.class, () -> b.pageIdleRelease(null));
        assertEquals(StoreConfig.PAGE_IDLE_RELEASE_DEFAULT, StoreConfig.builder(Path.of("x")).build().pageIdleRelease());
        assertEquals(Duration.ofSeconds(5), StoreConfig.PAGE_IDLE_RELEASE_DEFAULT);
    }
}
