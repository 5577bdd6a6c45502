package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Acceptance of the read path under memory pressure: a budget of a few pages, one writer appending all the time,
 * eight readers reading at random offsets and at the tail, every payload checked.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@ExtendWith(TestSeed.class)
class ReadStressTest
{
    private static final int MAX_PAYLOAD = 2000;
    private static final int READERS = 8;
    /** Reads to do (calls of log.read); fewer if the time limit below comes first (the count is printed). */
    private static final long TARGET_READS = Long.getLong("directlog.readStress.reads", 1_000_000);
    private static final long TIME_LIMIT_NANOS =
        TimeUnit.SECONDS.toNanos(Long.getLong("directlog.readStress.seconds", 40));
    /** The writer is held to this rate so that the log grows steadily but the disk does not fill. */
    private static final long WRITE_BYTES_PER_SECOND = 8L << 20;

    @Test
    void readersUnderMemoryPressureSeeExactlyWhatWasWritten() throws Exception
    {
        run(TestSeed.seed());
    }

    private static void run(final long seed) throws Exception
    {
        final StoreConfig config = TestStores.store(TestDirs.create("read-stress"), TestStores.log(Durability.MEMORY)
            .build()).memoryBudget(6L << 20).build();
        try (LogStore store = LogStore.open(config))
        {
            final Log log = store.log("stress");
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final LongAdder reads = new LongAdder();
            final LongAdder emptyReads = new LongAdder();
            final LongAdder tailReads = new LongAdder();
            final LongAdder records = new LongAdder();
            final LongAdder appended = new LongAdder();

            // prefill a few segments so random reads have somewhere to go from the start
            long next = 0;
            final List<CompletableFuture<Long>> prefill = new ArrayList<>();
            long bytes = 0;
            while (bytes < (8L << 20))
            {
                final byte[] p = TestStores.payloadUpTo(seed, next++, MAX_PAYLOAD);
                bytes += p.length + 32;
                prefill.add(log.append(p));
            }
            for (int i = 0; i < prefill.size(); i++)
            {
                assertEquals(i, prefill.get(i).join());
            }
            final long prefilled = next;

            final CountDownLatch start = new CountDownLatch(1);
            final Thread writer = new Thread(() ->
            {
                try
                {
                    start.await();
                    long offset = prefilled;
                    long written = 0;
                    final long t0 = System.nanoTime();
                    final ArrayDeque<CompletableFuture<Long>> inFlight = new ArrayDeque<>();
                    final ArrayDeque<Long> expected = new ArrayDeque<>();
                    while (!stop.get() && failure.get() == null)
                    {
                        final byte[] p = TestStores.payloadUpTo(seed, offset, MAX_PAYLOAD);
                        inFlight.add(log.append(p));
                        expected.add(offset);
                        offset++;
                        written += p.length + 32;
                        while (inFlight.size() > 256)
                        {
                            assertEquals((long)expected.poll(), (long)inFlight.poll().join());
                            appended.increment();
                        }
                        final long due = t0 + written * 1_000_000_000L / WRITE_BYTES_PER_SECOND;
                        final long ahead = due - System.nanoTime();
                        if (ahead > 0)
                        {
                            LockSupport.parkNanos(ahead); // rate limit, not a wait for another thread
                        }
                    }
                    while (!inFlight.isEmpty())
                    {
                        assertEquals((long)expected.poll(), (long)inFlight.poll().join());
                        appended.increment();
                    }
                }
                catch (final Throwable t)
                {
                    failure.compareAndSet(null, t);
                }
            }, "stress-writer");

            final long deadline = System.nanoTime() + TIME_LIMIT_NANOS;
            final List<Thread> readers = new ArrayList<>();
            for (int i = 0; i < READERS; i++)
            {
                final SplittableRandom random = new SplittableRandom(seed + 1 + i);
                final Thread reader = new Thread(() ->
                {
                    try
                    {
                        start.await();
                        while (failure.get() == null && reads.sum() < TARGET_READS && System.nanoTime() < deadline)
                        {
                            for (int k = 0; k < 64; k++)
                            {
                                long cursor = readOnce(log, random, seed, reads, emptyReads, tailReads, records, -1);
                                if (random.nextInt(50) == 0)
                                {
                                    // a run of reads each starting where the last ended: sequential, so the
                                    // store reads the next segments ahead while the writer rolls and others evict
                                    for (int run = 0; run < 16 && cursor < log.visibleEndOffset(); run++)
                                    {
                                        cursor = readOnce(log, random, seed, reads, emptyReads, tailReads, records,
                                            cursor);
                                    }
                                }
                            }
                        }
                    }
                    catch (final Throwable t)
                    {
                        failure.compareAndSet(null, t);
                    }
                }, "stress-reader-" + i);
                readers.add(reader);
            }
            writer.start();
            readers.forEach(Thread::start);
            final long t0 = System.nanoTime();
            start.countDown();
            for (final Thread r : readers)
            {
                r.join(TimeUnit.SECONDS.toMillis(120));
                assertTrue(!r.isAlive(), r.getName() + " is stuck");
            }
            final long elapsedMs = (System.nanoTime() - t0) / 1_000_000;
            stop.set(true);
            writer.join(TimeUnit.SECONDS.toMillis(60));
            assertTrue(!writer.isAlive(), "writer is stuck");
            if (failure.get() != null)
            {
                final AssertionError e = new AssertionError("failure after " + reads.sum() + " reads", failure.get());
                throw e;
            }
            final CacheStats cache = store.cacheStats();
            final LogStats stats = log.stats();
            System.out.printf("ReadStressTest: %,d reads (log.read calls; %,d of them at the tail, %,d empty), " +
                    "%,d records checked, in %,d ms; writer appended %,d records (%,d segments rolled), end offset %,d%n",
                reads.sum(), tailReads.sum(), emptyReads.sum(), records.sum(), elapsedMs, appended.sum() + prefilled,
                stats.segmentRolls(), log.endOffset());
            System.out.println("ReadStressTest: " + cache + " hitRatio=" + cache.hitRatio());
            if (reads.sum() < TARGET_READS)
            {
                System.out.printf("ReadStressTest: time limit reached before %,d reads: did %,d%n", TARGET_READS,
                    reads.sum());
            }
            assertTrue(reads.sum() >= Math.min(TARGET_READS, 100_000),
                "log.read calls done: " + reads.sum() + " (target " + TARGET_READS + ")");
            assertTrue(cache.evictions() > 0, "no eviction: " + cache);
            assertTrue(cache.pageIns() > 0, "no page-in: " + cache);
            // a read-ahead page-in the last sequential reader started may still hold its own pin: it must let go
            StoreFiles.awaitCondition(() -> store.cacheStats().pinnedPages() == 0,
                "no page pinned once the read-ahead in flight is done: " + store.cacheStats());
        }
    }

    /** One read at {@code at}, or at a random or tail offset when {@code at} is negative; returns the next offset. */
    private static long readOnce(final Log log, final SplittableRandom random, final long seed, final LongAdder reads,
        final LongAdder emptyReads, final LongAdder tailReads, final LongAdder records, final long at)
    {
        final long visible = log.visibleEndOffset();
        final long startOffset = log.startOffset();
        final long offset;
        final boolean tail = at < 0 && random.nextInt(10) < 4;
        if (at >= 0)
        {
            offset = at;
        }
        else if (tail)
        {
            // at the tail: the last few visible records, or the visible end itself (an empty batch)
            offset = Math.max(startOffset, visible - random.nextInt(20));
            tailReads.increment();
        }
        else
        {
            offset = startOffset + random.nextLong(visible - startOffset);
        }
        final int maxBytes = 1 + random.nextInt(random.nextBoolean() ? 4096 : 64 << 10);
        try (RecordBatch batch = log.read(offset, maxBytes))
        {
            reads.increment();
            if (batch.isEmpty())
            {
                if (offset < visible)
                {
                    fail("empty batch at " + offset + " below the visible end " + visible);
                }
                assertEquals(offset, batch.nextOffset());
                emptyReads.increment();
                return offset;
            }
            long expected = offset;
            int n = 0;
            for (final Record r : batch)
            {
                if (r.offset() != expected)
                {
                    fail("read(" + offset + ", " + maxBytes + ") record " + n + " has offset " + r.offset() +
                        ", expected " + expected);
                }
                if (r.recordCount() != 1)
                {
                    fail("record count " + r.recordCount() + " at " + r.offset());
                }
                final byte[] want = TestStores.payloadUpTo(seed, expected, MAX_PAYLOAD);
                if (want.length != r.payloadLength() ||
                    TestStores.crc(want) != TestStores.crc(r.payload(), r.payloadLength()))
                {
                    fail("payload of offset " + expected + " differs: length " + r.payloadLength() + " expected " +
                        want.length + " (read(" + offset + ", " + maxBytes + "))");
                }
                expected++;
                n++;
            }
            if (n != batch.size() || batch.nextOffset() != expected)
            {
                fail("batch size " + batch.size() + " / nextOffset " + batch.nextOffset() + " but iterated " + n +
                    " records ending at " + expected);
            }
            if (n > 1 && batch.sizeInBytes() > maxBytes)
            {
                fail("batch of " + n + " records is " + batch.sizeInBytes() + " bytes, over maxBytes " + maxBytes);
            }
            records.add(n);
            return batch.nextOffset();
        }
    }
}
