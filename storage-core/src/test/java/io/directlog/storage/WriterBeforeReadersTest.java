package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 21's contract: readers never hold what the writer waits for. Here readers hold a batch of every cold segment
 * they read, as many as a page-in would pin; a log's appends must still be acknowledged (the write page wins:
 * page-ins stop at the readers' share of the budget, and a reader past it reads from disk into its own buffer).
 * Before that share, these appends failed with MemoryBudgetExceededException after the writer waited 1 s for pins.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WriterBeforeReadersTest
{
    private static final int SEGMENT = 1 << 20;
    private static final int SEGMENTS = 8;
    private static final int PAYLOAD = 1000;

    @Test
    void appendsAreAcknowledgedWhileReadersPinEveryReadOnlyPage() throws Exception
    {
        final Path dir = TestDirs.create("writer-before-readers");
        try (LogStore store = LogStore.open(config(dir)))
        {
            final Log cold = store.log("cold");
            final byte[] payload = new byte[PAYLOAD];
            while (cold.stats().segmentRolls() < SEGMENTS)
            {
                cold.append(payload).join();
            }
        }
        try (LogStore store = LogStore.open(config(dir)))
        {
            final Log cold = store.log("cold");
            final List<RecordBatch> held = new ArrayList<>();
            try
            {
                // a batch of each rolled segment, held open: their pages fill as much of the 4 MiB budget as they
                // can (a page-in that finds no room and nothing to evict reads from disk)
                long offset = cold.startOffset();
                while (held.size() < SEGMENTS)
                {
                    final RecordBatch batch = cold.read(offset, SEGMENT);
                    held.add(batch);
                    offset = batch.nextOffset();
                }
                assertTrue(store.cacheStats().pinnedPages() >= 1, store.cacheStats().toString());

                final Log hot = store.log("hot");
                for (int i = 0; i < 2_000; i++) // 2 MB: a write page and its growth beyond the first chunk
                {
                    assertEquals(i, hot.append(new byte[PAYLOAD]).get(30, TimeUnit.SECONDS),
                        "append " + i + " while readers pin " + store.cacheStats());
                }
            }
            finally
            {
                held.forEach(RecordBatch::close);
            }
        }
    }

    private static StoreConfig config(final Path dir)
    {
        return TestStores.store(dir, TestStores.log(Durability.MEMORY).build()).memoryBudget(4L * SEGMENT)
            .readAheadBytes(0).build();
    }
}
