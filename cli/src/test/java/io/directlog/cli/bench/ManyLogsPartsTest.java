package io.directlog.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;

class ManyLogsPartsTest
{
    @Test
    void producersShareTheLogsEvenlyAndEachLogHasOneProducer()
    {
        final List<Integer> logs = IntStream.range(0, 1000).boxed().toList();
        int total = 0;
        for (int p = 0; p < 16; p++)
        {
            final List<Integer> own = EngineManyLogsScenario.slice(logs, p, 16);
            assertTrue(own.size() == 62 || own.size() == 63, "producer " + p + " has " + own.size());
            own.forEach(log -> assertEquals(0, (log - own.get(0)) % 16));
            total += own.size();
        }
        assertEquals(1000, total);
    }

    @Test
    void withFewerLogsThanProducersProducersShareALog()
    {
        final List<String> one = List.of("only");
        for (int p = 0; p < 16; p++)
        {
            assertEquals(one, EngineManyLogsScenario.slice(one, p, 16));
        }
        assertEquals(List.of("b"), EngineManyLogsScenario.slice(List.of("a", "b"), 3, 16));
    }

    @Test
    void statusFieldsAreReadInBytes()
    {
        final List<String> status = List.of("Name:\tjava", "VmHWM:\t  204800 kB", "VmRSS:\t  102400 kB");

        assertEquals(100L << 20, ProcessMemory.parse(status, "VmRSS:"));
        assertEquals(200L << 20, ProcessMemory.parse(status, "VmHWM:"));
        assertEquals(-1, ProcessMemory.parse(status, "VmSwap:"));
        assertEquals(-1, ProcessMemory.parse(List.of("VmRSS:\tlots kB"), "VmRSS:"));
    }

    @Test
    void thisProcessHasResidentMemoryOnLinux()
    {
        if (Files.exists(Path.of("/proc/self/status")))
        {
            final long rss = ProcessMemory.residentBytes();
            assertTrue(rss > 1 << 20 && rss <= ProcessMemory.peakResidentBytes(), "rss " + rss);
        }
    }

    @Test
    void diskUsageCountsAllocatedBlocksNotFileSizes(@TempDir final Path dir) throws Exception
    {
        final long empty = DiskUsage.allocatedBytes(dir);
        Files.write(dir.resolve("one-mib"), new byte[1 << 20]);
        try (var f = java.nio.channels.FileChannel.open(dir.resolve("sparse"), java.nio.file.StandardOpenOption.CREATE,
            java.nio.file.StandardOpenOption.WRITE))
        {
            f.write(java.nio.ByteBuffer.wrap(new byte[] {1}), 64L << 20); // 64 MiB long, one block written
        }

        final long used = DiskUsage.allocatedBytes(dir) - empty;
        assertTrue(used >= 1 << 20, "the written MiB counts: " + used);
        if (DiskUsage.method(dir).startsWith("du"))
        {
            assertTrue(used < 8 << 20, "the sparse file's hole does not count: " + used);
        }
    }

    @Test
    void diskGuardPassesWhileTheFilesystemKeepsItsSpace(@TempDir final Path dir) throws Exception
    {
        final DiskGuard guard = DiskGuard.forDirectory(dir);
        assertTrue(guard.capBytes() > 0 && guard.capBytes() <= DiskGuard.MAX_CAP_BYTES);
        guard.check("testing"); // nothing written: well under any cap
    }

    @Test
    void theRowCountsTheRollsOfItsWindowOverAllLogs(@TempDir final Path dir) throws Exception
    {
        // 8 KiB first segments: each DIRECT append takes a 4 KiB block, so a few appends roll a few times
        final LogConfig config = LogConfig.builder().segmentSize(1 << 20).initialSegmentSize(8 << 10)
            .durability(Durability.DIRECT).build();
        try (LogStore store = LogStore.open(StoreConfig.builder(dir).writerThreads(1).build()))
        {
            final List<Log> logs = List.of(store.log("a", config), store.log("b", config));
            logs.get(1).append(new byte[100]).join();
            final long[] before = EngineManyLogsScenario.rollsAndStalls(logs);
            final long aBefore = logs.get(0).stats().segmentRolls();
            for (int i = 0; i < 12; i++)
            {
                logs.get(0).append(new byte[100]).join();
            }
            final long[] after = EngineManyLogsScenario.rollsAndStalls(logs);
            final long aRolls = logs.get(0).stats().segmentRolls() - aBefore;
            assertTrue(aRolls >= 2, "rolls of log a: " + aRolls);
            assertEquals(aRolls, after[0] - before[0], "only log a appended in the window");
            assertTrue(after[1] >= before[1]);
        }
    }
}
