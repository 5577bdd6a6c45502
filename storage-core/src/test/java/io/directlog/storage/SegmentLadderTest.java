package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.directlog.storage.format.SegmentHeaderDescriptor;

/**
 * Issue 18, disk: a log's segment files follow a size ladder from {@link LogConfig#initialSegmentSize()} up to its
 * segment size, and a log prepares its next file only when it needs one soon, so a log of a few records holds one
 * small file instead of three full-size ones.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
@ExtendWith(TestSeed.class)
class SegmentLadderTest
{
    private static final long SEED = TestSeed.seed();
    /** A ladder with every rung: 8 KiB, 32 KiB, 128 KiB, 512 KiB, then the 1 MiB segment size. */
    private static final int FIRST = 8 << 10;
    private static final int SEGMENT = 1 << 20;

    private static StoreConfig ladderStore(final Path dir)
    {
        return TestStores.store(dir, LogConfig.builder().segmentSize(SEGMENT).initialSegmentSize(FIRST)
            .durability(Durability.DIRECT).build()).build();
    }

    @Test
    void aLogOfAFewRecordsHoldsOneSmallSegmentFileWithTheDefaults() throws Exception
    {
        final Path dir = TestDirs.create("ladder-footprint");
        // the defaults: 64 MiB segments, a 128 KiB first one; the budget must hold one full-size page
        try (LogStore store = LogStore.open(StoreConfig.builder(dir).memoryBudget(128L << 20).writerThreads(1)
            .build()))
        {
            final Log log = store.log("a");
            for (int i = 0; i < 3; i++)
            {
                assertEquals(i, log.append(("record " + i).getBytes(StandardCharsets.UTF_8)).join());
            }
        }
        final Path logDir = dir.resolve("a");
        final long bytes = sizeOfFiles(logDir);
        final long allocated = allocatedBytes(logDir);
        assertTrue(bytes <= 200 << 10, "a log of 3 records has " + bytes + " bytes of files: " + listing(logDir));
        assertTrue(allocated <= 200 << 10, "a log of 3 records has " + allocated + " bytes allocated: " +
            listing(logDir));
        try (LogStore store = LogStore.open(StoreConfig.builder(dir).memoryBudget(128L << 20).writerThreads(1)
            .build()))
        {
            final Log log = store.log("a");
            assertEquals(3, log.endOffset());
            try (RecordBatch b = log.read(2, 1))
            {
                assertArrayEquals("record 2".getBytes(StandardCharsets.UTF_8), b.iterator().next().payloadBytes());
            }
        }
        assertTrue(sizeOfFiles(logDir) <= 200 << 10, "after a reopen: " + listing(logDir));
    }

    @Test
    void rollsThroughEveryRungKeepEveryRecordAcrossReopenAndCrash() throws Exception
    {
        final Path dir = TestDirs.create("ladder-rolls");
        final List<byte[]> written = new ArrayList<>();
        try (LogStore store = LogStore.open(ladderStore(dir)))
        {
            final Log log = store.log("a");
            appendUntil(log, written, 4 * SEGMENT);
        }
        final TreeSet<Integer> rungs = new TreeSet<>();
        for (final Path segment : StoreFiles.segments(dir.resolve("a")))
        {
            final int headerSize = headerSize(segment);
            if (headerSize > 0)
            {
                assertEquals(headerSize, Files.size(segment), segment + ": the file is as long as its header says");
                rungs.add(headerSize);
            }
        }
        assertEquals(new TreeSet<>(List.of(8 << 10, 32 << 10, 128 << 10, 512 << 10, SEGMENT)), rungs);
        final Path image;
        try (LogStore store = LogStore.open(ladderStore(dir)))
        {
            final Log log = store.log("a");
            assertTrue(log.recoveryReport().cleanShutdown(), log.recoveryReport().toString());
            readAll(log, written);
            appendUntil(log, written, 5 * SEGMENT);
            image = StoreFiles.crashImage(dir, "ladder-rolls-crash"); // every append above was acknowledged
        }
        try (LogStore store = LogStore.open(ladderStore(image)))
        {
            final Log log = store.log("a");
            assertTrue(!log.recoveryReport().cleanShutdown(), log.recoveryReport().toString());
            readAll(log, written);
            assertEquals(written.size(), log.append(new byte[10]).join(), "offsets go on after the crash");
        }
    }

    @Test
    void aRecordBiggerThanTheFirstRungGetsASegmentThatHoldsIt() throws Exception
    {
        final Path dir = TestDirs.create("ladder-big-first");
        final byte[] big = TestStores.payload(SEED, 0, 300 << 10);
        try (LogStore store = LogStore.open(ladderStore(dir)))
        {
            final Log log = store.log("a");
            assertEquals(0, log.append(big).join());
            assertEquals(1, log.append(new byte[100]).join());
        }
        final TreeSet<Integer> sizes = new TreeSet<>();
        for (final Path segment : StoreFiles.segments(dir.resolve("a")))
        {
            sizes.add(headerSize(segment));
        }
        // the 8 KiB first file cannot hold 300 KiB: the log's first segment is the smallest rung that can
        assertTrue(sizes.contains(512 << 10), "segment sizes " + sizes);
        assertTrue(sizes.stream().allMatch(size -> size == 0 || size == 512 << 10), "segment sizes " + sizes);
        try (LogStore store = LogStore.open(ladderStore(dir)))
        {
            final Log log = store.log("a");
            try (RecordBatch b = log.read(0, 1))
            {
                assertArrayEquals(big, b.iterator().next().payloadBytes());
            }
            assertEquals(2, log.append(new byte[100]).join());
        }
    }

    @Test
    void aBadInitialSegmentSizeIsRefusedByName()
    {
        for (final int bad : new int[] {4096, 96 << 10, 3 << 20, -1})
        {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LogConfig.builder().segmentSize(2 << 20).initialSegmentSize(bad).build());
            assertTrue(e.getMessage().startsWith("initialSegmentSize=" + bad), e.getMessage());
        }
        assertEquals(2 << 20, LogConfig.builder().segmentSize(2 << 20).initialSegmentSize(2 << 20).build()
            .initialSegmentSize());
    }

    private static void appendUntil(final Log log, final List<byte[]> written, final long bytes)
    {
        long total = written.stream().mapToLong(b -> b.length).sum();
        final List<CompletableFuture<Long>> futures = new ArrayList<>();
        while (total < bytes)
        {
            final byte[] payload = TestStores.payloadUpTo(SEED, written.size(), 3000);
            futures.add(log.append(payload));
            written.add(payload);
            total += payload.length;
        }
        for (int i = 0; i < futures.size(); i++)
        {
            assertEquals(written.size() - futures.size() + i, futures.get(i).join());
        }
    }

    private static void readAll(final Log log, final List<byte[]> written)
    {
        assertEquals(written.size(), log.endOffset());
        for (int o = 0; o < written.size(); o++)
        {
            try (RecordBatch b = log.read(o, 1))
            {
                assertArrayEquals(written.get(o), b.iterator().next().payloadBytes(), "offset " + o);
            }
        }
    }

    /** @return the segment size in a file's header, or 0 for a file with none (a spare). */
    private static int headerSize(final Path segment) throws IOException
    {
        final ByteBuffer h = ByteBuffer.wrap(StoreFiles.read(segment, 0, 64)).order(ByteOrder.nativeOrder());
        return h.getLong(0) == SegmentHeaderDescriptor.MAGIC ? h.getInt(SegmentHeaderDescriptor.SEGMENT_SIZE_OFFSET)
            : 0;
    }

    private static long sizeOfFiles(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.list(dir))
        {
            long sum = 0;
            for (final Path p : files.toList())
            {
                sum += Files.size(p);
            }
            return sum;
        }
    }

    /** What {@code du} counts: the blocks the files hold on disk, not their lengths. */
    private static long allocatedBytes(final Path dir) throws IOException, InterruptedException
    {
        final Process du = new ProcessBuilder("du", "-s", "-B1", dir.toString()).redirectErrorStream(true).start();
        final String out = new String(du.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(du.waitFor(30, TimeUnit.SECONDS), "du did not finish");
        assertEquals(0, du.exitValue(), out);
        return Long.parseLong(out.trim().split("\\s+")[0]);
    }

    private static String listing(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.list(dir))
        {
            final StringBuilder s = new StringBuilder();
            for (final Path p : files.sorted().toList())
            {
                s.append(p.getFileName()).append('=').append(Files.size(p)).append(' ');
            }
            return s.toString();
        }
    }
}
