package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.extension.ExtendWith;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(TestSeed.class)
class TimestampIndexTest
{
    private static final int MAX_PAYLOAD = 4000;

    /** One append as read back sequentially. */
    private record Entry(long offset, int count, long timestamp, long crc)
    {
    }

    /**
     * MEMORY packs records; DIRECT writes each burst alone, so most blocks end in a gap (which takes no index
     * entry) and a burst of one record fills a block by itself.
     */
    @ParameterizedTest
    @EnumSource(value = Durability.class, names = { "MEMORY", "DIRECT" })
    void timestampsAndOffsetsAgreeWithAScan(final Durability durability) throws Exception
    {
        run(TestSeed.seed(), durability);
    }

    private static void run(final long seed, final Durability durability) throws Exception
    {
        final Random random = new Random(seed);
        final Path dir = TestDirs.create("timestamps");
        final List<Entry> written = new ArrayList<>();
        final long end;
        try (LogStore store = LogStore.open(TestStores.store(dir, TestStores.log(durability).build())
            .memoryBudget(8L << 20).build()))
        {
            final Log log = store.log("t");
            long next = 0;
            while (written.size() < 5000)
            {
                final int burst = 1 + random.nextInt(60);
                final List<CompletableFuture<Long>> futures = new ArrayList<>();
                final List<Entry> pending = new ArrayList<>();
                for (int i = 0; i < burst; i++)
                {
                    final int count = random.nextInt(5) == 0 ? 2 + random.nextInt(7) : 1;
                    final byte[] payload = TestStores.payloadUpTo(seed, next, MAX_PAYLOAD);
                    futures.add(count == 1 ? log.append(payload, durability) :
                        log.append(payload, count, durability));
                    pending.add(new Entry(next, count, -1, TestStores.crc(payload)));
                    next += count;
                }
                for (int i = 0; i < futures.size(); i++)
                {
                    assertEquals(pending.get(i).offset(), futures.get(i).join());
                }
                written.addAll(pending);
                // let the clock move so that bursts get different timestamps (polls the clock, not a thread)
                final long now = System.currentTimeMillis();
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                while (System.currentTimeMillis() < now + random.nextInt(3) && System.nanoTime() < deadline)
                {
                    Thread.onSpinWait();
                }
            }
            end = next;
            assertEquals(end, log.visibleEndOffset());
            assertTrue(log.stats().segmentRolls() >= 5, "rolls: " + log.stats().segmentRolls());
            final List<Entry> scanned = scan(log, end);
            checkAgainstWritten(written, scanned);
            checkQueries(log, scanned, end, new Random(seed + 1), "warm");
        }
        // reopen: every segment but the tail is cold, its index is rebuilt by a scan
        try (LogStore store = LogStore.open(TestStores.store(dir, TestStores.log(durability).build())
            .memoryBudget(4L << 20).build()))
        {
            final Log log = store.log("t");
            assertEquals(end, log.endOffset());
            assertEquals(end, log.visibleEndOffset());
            // timestamp queries first, on cold segments, before any read pages them in
            final List<Entry> cold = coldQueriesThenScan(log, end, seed);
            checkAgainstWritten(written, cold);
            checkQueries(log, cold, end, new Random(seed + 3), "cold-after-scan");
        }
    }

    /** Timestamp queries on cold segments first (their indexes built by scans), then checked against a scan. */
    private static List<Entry> coldQueriesThenScan(final Log log, final long end, final long seed)
    {
        final Random r = new Random(seed + 2);
        final int n = 300;
        final long[] queries = new long[n];
        final long[] answers = new long[n];
        // the range of timestamps is not known yet: probe the first and last record
        final long first;
        final long last;
        try (RecordBatch b = log.read(0, 1))
        {
            first = b.iterator().next().timestamp();
        }
        try (RecordBatch b = log.read(end - 1, 1))
        {
            last = b.iterator().next().timestamp();
        }
        for (int i = 0; i < n; i++)
        {
            queries[i] = first - 2 + (long)(r.nextDouble() * (last - first + 5));
            answers[i] = log.offsetForTimestamp(queries[i]);
        }
        final List<Entry> scanned = scan(log, end);
        for (int i = 0; i < n; i++)
        {
            assertEquals(expectedForTimestamp(scanned, queries[i], end), answers[i],
                "cold offsetForTimestamp(" + queries[i] + ")");
        }
        return scanned;
    }

    private static List<Entry> scan(final Log log, final long end)
    {
        final List<Entry> entries = new ArrayList<>();
        long next = 0;
        while (next < end)
        {
            try (RecordBatch batch = log.read(next, 256 << 10))
            {
                assertTrue(batch.size() > 0, "empty batch at " + next + " of " + end);
                for (final Record r : batch)
                {
                    assertEquals(next, r.offset());
                    entries.add(new Entry(r.offset(), r.recordCount(), r.timestamp(),
                        TestStores.crc(r.payload(), r.payloadLength())));
                    next = r.nextOffset();
                }
                assertEquals(next, batch.nextOffset());
            }
        }
        return entries;
    }

    private static void checkAgainstWritten(final List<Entry> written, final List<Entry> scanned)
    {
        assertEquals(written.size(), scanned.size());
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < written.size(); i++)
        {
            final Entry w = written.get(i);
            final Entry s = scanned.get(i);
            assertEquals(w.offset(), s.offset());
            assertEquals(w.count(), s.count(), "count at " + w.offset());
            assertEquals(w.crc(), s.crc(), "payload at " + w.offset());
            assertTrue(s.timestamp() >= previous, "timestamp went back at " + s.offset());
            previous = s.timestamp();
        }
    }

    private static long expectedForTimestamp(final List<Entry> scanned, final long t, final long end)
    {
        for (final Entry e : scanned)
        {
            if (e.timestamp() >= t)
            {
                return e.offset();
            }
        }
        return end;
    }

    private static int indexOfAppendHolding(final List<Entry> scanned, final long offset)
    {
        int lo = 0;
        int hi = scanned.size() - 1;
        while (lo < hi)
        {
            final int mid = (lo + hi + 1) >>> 1;
            if (scanned.get(mid).offset() <= offset)
            {
                lo = mid;
            }
            else
            {
                hi = mid - 1;
            }
        }
        return lo;
    }

    private static void checkQueries(final Log log, final List<Entry> scanned, final long end, final Random r,
        final String phase)
    {
        final long first = scanned.get(0).timestamp();
        final long last = scanned.get(scanned.size() - 1).timestamp();
        assertTrue(last > first + 5, "timestamps should span several ms: " + first + ".." + last);
        for (int i = 0; i < 1000; i++)
        {
            final long t = first - 2 + (long)(r.nextDouble() * (last - first + 5));
            assertEquals(expectedForTimestamp(scanned, t, end), log.offsetForTimestamp(t),
                phase + " offsetForTimestamp(" + t + ")");
        }
        // every distinct timestamp exactly
        long previous = Long.MIN_VALUE;
        for (final Entry e : scanned)
        {
            if (e.timestamp() != previous)
            {
                assertEquals(e.offset(), log.offsetForTimestamp(e.timestamp()), phase + " exact " + e.timestamp());
                previous = e.timestamp();
            }
        }
        assertEquals(end, log.offsetForTimestamp(last + 1));
        assertEquals(0, log.offsetForTimestamp(Long.MIN_VALUE));
        for (int i = 0; i < 2000; i++)
        {
            final long offset = (long)(r.nextDouble() * end);
            final int maxBytes = 1 + r.nextInt(64 << 10);
            int k = indexOfAppendHolding(scanned, offset);
            try (RecordBatch batch = log.read(offset, maxBytes))
            {
                assertTrue(batch.size() >= 1, phase + " read(" + offset + ") empty");
                for (final Record rec : batch)
                {
                    final Entry e = scanned.get(k++);
                    assertEquals(e.offset(), rec.offset(), phase + " read(" + offset + ")");
                    assertEquals(e.count(), rec.recordCount());
                    assertEquals(e.timestamp(), rec.timestamp());
                    assertEquals(e.crc(), TestStores.crc(rec.payload(), rec.payloadLength()));
                }
                assertEquals(k < scanned.size() ? scanned.get(k).offset() : end, batch.nextOffset());
                assertTrue(batch.size() == 1 || batch.sizeInBytes() <= maxBytes);
            }
        }
    }
}
