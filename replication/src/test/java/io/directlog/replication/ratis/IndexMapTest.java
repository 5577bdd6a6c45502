package io.directlog.replication.ratis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;
import org.junit.jupiter.api.Test;

/**
 * The Raft-index-to-offset map rebuilt from a log alone, as after a restart: entries without a batch (elections,
 * configuration changes) leave gaps in the Raft indexes that the map must skip.
 */
class IndexMapTest
{
    private static final Path ROOT = Path.of(System.getProperty("directlog.test.dir", "target/test-data"),
        "index-map");

    @Test
    void aMapOverAReopenedLogFindsEveryBatchByRaftIndex() throws IOException
    {
        final Path dir = Files.createTempDirectory(Files.createDirectories(ROOT), "reopen-");
        final List<IndexMap.Position> written = new ArrayList<>();
        try (LogStore store = open(dir))
        {
            final Log log = store.log("p");
            long offset = 0;
            long raftIndex = 1;
            for (int i = 0; i < 200; i++)
            {
                raftIndex += 1 + (i % 4 == 0 ? 2 : 0);
                final int count = i % 3 + 1;
                final byte[] frame = new byte[FrameDescriptor.HEADER_LENGTH + 10];
                FrameDescriptor.writeHeader(frame, raftIndex, 1 + i / 50);
                assertEquals(offset, log.append(frame, count, Durability.DSYNC).join());
                written.add(new IndexMap.Position(raftIndex, offset, count, 1 + i / 50));
                offset += count;
            }
        }
        try (LogStore store = open(dir))
        {
            final IndexMap map = new IndexMap(store.log("p"));
            assertEquals(written.get(written.size() - 1), map.last());
            for (int i = 0; i < written.size(); i++)
            {
                assertEquals(written.get(i), map.lookup(written.get(i).raftIndex()));
                for (long gap = i == 0 ? 0 : written.get(i - 1).raftIndex() + 1; gap < written.get(i).raftIndex();
                    gap++)
                {
                    assertNull(map.lookup(gap), "entry " + gap + " carried no batch");
                }
            }
            // A gap: index 3 carried no batch (elections and metadata entries do not).
            final IndexMap.Position first = written.get(0);
            assertNull(map.lookup(first.raftIndex() - 1));
            assertEquals(written.get(1), map.ceiling(written.get(0).raftIndex() + 1));
            assertEquals(written.get(0), map.floor(written.get(1).raftIndex() - 1));
            assertNull(map.floor(first.raftIndex() - 1));
            assertNull(map.ceiling(written.get(written.size() - 1).raftIndex() + 1));

            // New batches go to memory; old ones are still found in the log, across the boundary.
            final IndexMap.Position next = new IndexMap.Position(map.last().raftIndex() + 5,
                map.last().nextOffset(), 1, 9);
            map.put(next);
            assertEquals(next, map.lookup(next.raftIndex()));
            assertEquals(next, map.ceiling(map.last().raftIndex()));
            assertEquals(written.get(100), map.lookup(written.get(100).raftIndex()));

            // Truncation forgets from an index on, and lowers the boundary to the new end.
            map.removeFrom(written.get(150).raftIndex(), written.get(150).baseOffset());
            assertEquals(written.get(149), map.last());
            assertNull(map.lookup(next.raftIndex()));
        }
    }

    @Test
    void positionsForgottenFromMemoryAreFoundInTheLog() throws IOException
    {
        final Path dir = Files.createTempDirectory(Files.createDirectories(ROOT), "forget-");
        try (LogStore store = open(dir))
        {
            final Log log = store.log("p");
            final IndexMap map = new IndexMap(log);
            final List<IndexMap.Position> written = new ArrayList<>();
            for (int i = 0; i < 50; i++)
            {
                final long raftIndex = 10 + 2L * i;
                final byte[] frame = new byte[FrameDescriptor.HEADER_LENGTH + 4];
                FrameDescriptor.writeHeader(frame, raftIndex, 3);
                final long offset = log.append(frame, 2, Durability.DSYNC).join();
                final IndexMap.Position p = new IndexMap.Position(raftIndex, offset, 2, 3);
                map.put(p);
                written.add(p);
            }
            map.forgetBefore(written.get(30).raftIndex());
            assertEquals(20, map.inMemorySize());
            for (final IndexMap.Position p : written)
            {
                assertEquals(p, map.lookup(p.raftIndex()), "entry " + p.raftIndex());
                assertNull(map.lookup(p.raftIndex() + 1));
            }
            assertEquals(written.get(30), map.ceiling(written.get(29).raftIndex() + 1));
            assertEquals(written.get(29), map.floor(written.get(30).raftIndex() - 1));
        }
    }

    /**
     * A restarted replica applies every committed entry again, in order, and each apply looks its batch up: the
     * lookups in order read about one frame each (the batch after the last one found), not a binary search each;
     * a truncation under the hint does not mislead a later lookup.
     */
    @Test
    void lookupsInOrderReadOneFrameEachAndSurviveATruncation() throws IOException
    {
        final Path dir = Files.createTempDirectory(Files.createDirectories(ROOT), "replay-");
        final int batches = 1000;
        final List<IndexMap.Position> written = new ArrayList<>();
        try (LogStore store = open(dir))
        {
            final Log log = store.log("p");
            for (int i = 0; i < batches; i++)
            {
                final long raftIndex = 5 + 2L * i; // every other entry carries no batch
                final byte[] frame = new byte[FrameDescriptor.HEADER_LENGTH + 8];
                FrameDescriptor.writeHeader(frame, raftIndex, 2);
                written.add(new IndexMap.Position(raftIndex, log.append(frame, 1, Durability.DSYNC).join(), 1, 2));
            }
        }
        try (LogStore store = open(dir))
        {
            final int[] reads = {0};
            final Log log = store.log("p");
            final Log counted = (Log)java.lang.reflect.Proxy.newProxyInstance(Log.class.getClassLoader(),
                new Class<?>[] {Log.class}, (proxy, method, args) ->
                {
                    if (method.getName().equals("read"))
                    {
                        reads[0]++;
                    }
                    try
                    {
                        return method.invoke(log, args);
                    }
                    catch (final java.lang.reflect.InvocationTargetException e)
                    {
                        throw e.getCause();
                    }
                });
            final IndexMap map = new IndexMap(counted);
            for (final IndexMap.Position p : written)
            {
                assertNull(map.lookup(p.raftIndex() - 1), "entry " + (p.raftIndex() - 1) + " carried no batch");
                assertEquals(p, map.lookup(p.raftIndex()));
            }
            // 2,000 lookups; a binary search each would read ~10 frames per lookup (1,000 batches)
            assertTrue(reads[0] < 3 * batches, "in-order lookups read " + reads[0] + " frames for " +
                2 * batches + " lookups");

            // truncate below the hint and write batches of other indexes at the same offsets
            final IndexMap.Position cut = written.get(600);
            log.truncateTo(cut.baseOffset());
            map.removeFrom(cut.raftIndex(), cut.baseOffset());
            final byte[] frame = new byte[FrameDescriptor.HEADER_LENGTH + 8];
            FrameDescriptor.writeHeader(frame, cut.raftIndex() + 1, 3);
            final long offset = log.append(frame, 1, Durability.DSYNC).join();
            final IndexMap.Position rewritten = new IndexMap.Position(cut.raftIndex() + 1, offset, 1, 3);
            assertEquals(cut.baseOffset(), offset);
            map.put(rewritten); // as the state machine's write does
            assertEquals(written.get(599), map.lookup(written.get(599).raftIndex()));
            assertNull(map.lookup(cut.raftIndex()), "entry " + cut.raftIndex() + " was truncated");
            assertEquals(rewritten, map.lookup(rewritten.raftIndex()));
        }
    }

    private static LogStore open(final Path dir)
    {
        return LogStore.open(StoreConfig.builder(dir).memoryBudget(16L << 20).writerThreads(1)
            .writerCpus(StoreConfig.WRITER_CPUS_NONE)
            .defaultLogConfig(LogConfig.builder().segmentSize(1 << 20).build()).build());
    }
}
