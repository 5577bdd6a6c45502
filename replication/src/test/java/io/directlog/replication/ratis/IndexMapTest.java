package io.directlog.replication.ratis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

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

    private static LogStore open(final Path dir)
    {
        return LogStore.open(StoreConfig.builder(dir).memoryBudget(16L << 20).writerThreads(1)
            .writerCpus(StoreConfig.WRITER_CPUS_NONE)
            .defaultLogConfig(LogConfig.builder().segmentSize(1 << 20).build()).build());
    }
}
