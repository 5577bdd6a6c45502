package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(TestSeed.class)
class TailConsumerTest
{
    private static final int RECORDS = 200_000;
    private static final int MAX_PAYLOAD = 120;

    @Test
    void consumerFollowingTheWriterSeesEveryRecordOnceInOrderFromCache() throws Exception
    {
        run(TestSeed.seed());
    }

    private static void run(final long seed) throws Exception
    {
        final StoreConfig config = TestStores.store(TestDirs.create("tail"), TestStores.log(Durability.MEMORY).build())
            .memoryBudget(16L << 20).build();
        // a thread each: the common pool may have a single worker on a small machine, which would run the consumer
        // and leave the producer queued behind it
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        try (LogStore store = LogStore.open(config))
        {
            final Log log = store.log("tail");
            final CompletableFuture<Long> consumed = CompletableFuture.supplyAsync(() -> consume(log, seed), threads);
            final CompletableFuture<Void> produced = CompletableFuture.runAsync(() -> produce(log, seed), threads);
            produced.get(90, TimeUnit.SECONDS);
            final long records;
            try
            {
                records = consumed.get(60, TimeUnit.SECONDS);
            }
            catch (final ExecutionException e)
            {
                throw new AssertionError("consumer failed", e.getCause());
            }
            catch (final TimeoutException e)
            {
                throw new AssertionError("consumer did not reach " + RECORDS + " (end " + log.endOffset() + ")", e);
            }
            assertEquals(RECORDS, records);
            final LogStats stats = log.stats();
            final double ratio = (double)stats.cacheHits() / (stats.cacheHits() + stats.cacheMisses());
            System.out.printf("TailConsumerTest: %,d records consumed, hits %,d misses %,d, hit ratio %.5f, " +
                "segment rolls %d, %s%n", records, stats.cacheHits(), stats.cacheMisses(), ratio, stats.segmentRolls(),
                store.cacheStats());
            assertTrue(stats.segmentRolls() > 5, "the producer should roll segments: " + stats);
            assertTrue(ratio > 0.99, "hit ratio " + ratio + ": " + stats);
        }
        finally
        {
            threads.shutdownNow();
        }
    }

    private static void produce(final Log log, final long seed)
    {
        final ArrayDeque<CompletableFuture<Long>> inFlight = new ArrayDeque<>();
        long expected = 0;
        for (long offset = 0; offset < RECORDS; offset++)
        {
            inFlight.add(log.append(TestStores.payloadUpTo(seed, offset, MAX_PAYLOAD)));
            while (inFlight.size() > 1000)
            {
                assertEquals(expected++, (long)inFlight.poll().join());
            }
        }
        while (!inFlight.isEmpty())
        {
            assertEquals(expected++, (long)inFlight.poll().join());
        }
    }

    private static long consume(final Log log, final long seed)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(100);
        long expected = 0;
        try (LogReader reader = log.reader(0))
        {
            int round = 0;
            while (expected < RECORDS)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new AssertionError("consumer deadline at " + expected);
                }
                final RecordBatch batch;
                if ((round++ & 1) == 0)
                {
                    batch = reader.poll(16 << 10, Duration.ofSeconds(1));
                }
                else
                {
                    batch = reader.poll(16 << 10);
                    if (batch.isEmpty())
                    {
                        batch.close();
                        log.awaitAppend(reader.position(), Duration.ofSeconds(1));
                        continue;
                    }
                }
                try (batch)
                {
                    for (final Record r : batch)
                    {
                        assertEquals(expected, r.offset(), "records must be dense and in order");
                        assertEquals(1, r.recordCount());
                        final byte[] want = TestStores.payloadUpTo(seed, expected, MAX_PAYLOAD);
                        assertEquals(want.length, r.payloadLength(), "length at " + expected);
                        assertEquals(TestStores.crc(want), TestStores.crc(r.payload(), r.payloadLength()),
                            "payload at " + expected);
                        expected++;
                    }
                    assertEquals(expected, batch.isEmpty() ? reader.position() : batch.nextOffset());
                    assertEquals(expected, reader.position());
                }
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        return expected;
    }
}
