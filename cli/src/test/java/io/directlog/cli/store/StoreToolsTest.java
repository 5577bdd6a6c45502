package io.directlog.cli.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.directlog.nativeio.Extent;
import io.directlog.nativeio.FallocateMode;
import io.directlog.nativeio.NativeFile;
import io.directlog.nativeio.NativeIoException;
import io.directlog.nativeio.OpenFlags;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * dump and verify on stores the engine wrote: a clean one, then one with damage a test injects into a rolled
 * segment (a flipped byte, a zeroed block, a truncated file), and an open one.
 */
class StoreToolsTest
{
    private static final int RECORDS = 3000;
    private static final int PAYLOAD = 500;
    private static final String SEGMENT_0 = "00000000000000000000.log";

    @TempDir
    Path dir;

    private final StoreTools tools = new StoreTools();

    @BeforeEach
    void writeStore() throws Exception
    {
        try (LogStore store = LogStore.open(config()))
        {
            // full-size segments: the damage cases aim at positions of a 1 MiB first segment
            final Log log = store.log("events", LogConfig.builder().segmentSize(LogConfig.SEGMENT_SIZE_MIN)
                .initialSegmentSize(LogConfig.SEGMENT_SIZE_MIN).build());
            CompletableFuture<Long> last = null;
            for (int i = 0; i < RECORDS; i++)
            {
                final byte[] payload = new byte[PAYLOAD];
                Arrays.fill(payload, (byte)i);
                last = log.append(payload, Durability.MEMORY);
            }
            last.get();
            log.append(new byte[PAYLOAD], Durability.DSYNC).get();
        }
    }

    private StoreConfig config()
    {
        return StoreConfig.builder(dir).memoryBudget(64L << 20).build();
    }

    @Test
    void dumpListsSegmentsAndCheckpointOfAStoreTheEngineWrote() throws Exception
    {
        assertEquals(0, tools.dump(dir.toString(), "--json"), tools.err());
        final String json = tools.out();
        assertTrue(json.contains("\"name\":\"events\""), json);
        assertTrue(json.contains("\"cleanShutdown\":true"), json);
        assertTrue(json.contains("\"file\":\"" + SEGMENT_0 + "\""), json);
        assertTrue(json.contains("\"state\":\"rolled\""), json);
        assertTrue(json.contains("\"watermarkOffset\":" + (RECORDS + 1)), json);
    }

    @Test
    void dumpRecordsShowsEveryRecordFromAnOffset() throws Exception
    {
        assertEquals(0, tools.dump(dir.toString(), "--log", "events", "--records", "--from", "2990"), tools.err());
        final String text = tools.out();
        assertTrue(text.contains("watermark   offset " + (RECORDS + 1)), text);
        for (int offset = 2990; offset <= RECORDS; offset++)
        {
            assertTrue(text.contains("record offset " + offset + "  "), "offset " + offset + " in\n" + text);
        }
        assertTrue(!text.contains("record offset 2989 "), text);
        assertTrue(text.contains("crc ok"), text);
    }

    @Test
    void verifyPassesAStoreTheEngineClosedCleanly() throws Exception
    {
        assertEquals(0, tools.verify(dir.toString()), tools.out() + tools.err());
        assertTrue(tools.out().contains("no damage"), tools.out());
    }

    @Test
    void verifyFindsAFlippedByteInARecord() throws Exception
    {
        final Path segment = dir.resolve("events").resolve(SEGMENT_0);
        try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw"))
        {
            final long at = 4096 * 40 + 100;
            f.seek(at);
            final int b = f.read();
            f.seek(at);
            f.write(b ^ 0x10);
        }
        assertEquals(1, tools.verify(dir.toString(), "--json"), tools.out());
        assertTrue(tools.out().contains("\"ok\":false"), tools.out());
        assertTrue(tools.out().contains("CRC"), tools.out());
    }

    @Test
    void verifyFindsAZeroedBlock() throws Exception
    {
        final Path segment = dir.resolve("events").resolve(SEGMENT_0);
        try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw"))
        {
            f.seek(4096 * 20);
            f.write(new byte[4096]);
        }
        assertEquals(1, tools.verify(dir.toString()), tools.out());
        assertTrue(tools.out().contains("DAMAGE"), tools.out());
        assertTrue(tools.out().contains("the next segment starts at"), tools.out());
    }

    /**
     * Issue 17: TRUNCATE_AT_CORRUPTION goes on after a lost newest segment at the old end, leaving a hole in the
     * offsets that the next segment's header records; verify takes it as no damage and dump names it.
     */
    @Test
    void verifyAndDumpAcceptAHoleInTheOffsetsRecoveryLeft() throws Exception
    {
        final Path logDir = dir.resolve("events");
        Path newest = null;
        try (java.util.stream.Stream<Path> files = Files.list(logDir))
        {
            for (final Path p : files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList())
            {
                final byte[] head = Files.readAllBytes(p);
                if (java.nio.ByteBuffer.wrap(head).order(java.nio.ByteOrder.nativeOrder()).getLong(0) ==
                    io.directlog.storage.format.SegmentHeaderDescriptor.MAGIC)
                {
                    newest = p;
                }
            }
        }
        assertTrue(newest != null && !newest.getFileName().toString().equals(SEGMENT_0), "a second segment");
        Files.delete(newest);
        try (LogStore store = LogStore.open(StoreConfig.builder(dir).memoryBudget(64L << 20)
            .recoveryMode(io.directlog.storage.RecoveryMode.TRUNCATE_AT_CORRUPTION).build()))
        {
            final Log log = store.log("events");
            assertEquals(RECORDS + 1, log.endOffset(), log.recoveryReport().toString());
            assertEquals(RECORDS + 1, (long)log.append(new byte[PAYLOAD], Durability.DSYNC).get());
        }
        assertEquals(0, tools.verify(dir.toString()), tools.out() + tools.err());
        assertTrue(tools.out().contains("no damage"), tools.out());
        assertEquals(0, tools.dump(dir.toString(), "--log", "events"), tools.err());
        assertTrue(tools.out().contains("after a hole ["), tools.out());
    }

    @Test
    void verifyFindsATruncatedSegmentFile() throws Exception
    {
        final Path segment = dir.resolve("events").resolve(SEGMENT_0);
        try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw"))
        {
            f.setLength(512 * 1024);
        }
        assertEquals(1, tools.verify(dir.toString()), tools.out());
        assertTrue(tools.out().contains("(truncated)"), tools.out());
    }

    @Test
    void verifyFindsAnUnwrittenExtentInAPreparedSegment() throws Exception
    {
        // what a preparer that fallocated instead of writing zeros would hand the writer
        final Path prepared;
        try (var files = Files.list(dir.resolve("events")))
        {
            prepared = files.filter(p -> p.toString().endsWith(".log")).sorted().reduce((a, b) -> b).orElseThrow();
        }
        Files.delete(prepared);
        try (NativeFile f = NativeFile.open(prepared, OpenFlags.READ_WRITE | OpenFlags.CREATE, NativeFile.DEFAULT_MODE))
        {
            f.fallocate(FallocateMode.DEFAULT, 0, LogConfig.SEGMENT_SIZE_MIN);
            final List<Extent> extents = f.extents(0, LogConfig.SEGMENT_SIZE_MIN);
            assumeTrue(!extents.isEmpty() && extents.get(0).unwritten(), "this filesystem does not report unwritten extents");
        }
        catch (final NativeIoException ex)
        {
            assumeTrue(false, "fallocate or FIEMAP unsupported here: " + ex.getMessage());
        }
        assertEquals(1, tools.verify(dir.toString()), tools.out());
        assertTrue(tools.out().contains("a prepared segment has an extent of 1048576 bytes flagged unwritten"), tools.out());
    }

    @Test
    void verifyChangesNoFile() throws Exception
    {
        final byte[] before = Files.readAllBytes(dir.resolve("events").resolve("checkpoint"));
        final long modified = Files.getLastModifiedTime(dir.resolve("events").resolve(SEGMENT_0)).toMillis();
        tools.verify(dir.toString());
        assertTrue(Arrays.equals(before, Files.readAllBytes(dir.resolve("events").resolve("checkpoint"))));
        assertEquals(modified, Files.getLastModifiedTime(dir.resolve("events").resolve(SEGMENT_0)).toMillis());
    }

    @Test
    void verifyRefusesAnOpenStoreUnlessForced() throws Exception
    {
        try (LogStore store = LogStore.open(config()))
        {
            store.log("events");
            assertEquals(1, tools.verify(dir.toString()));
            assertTrue(tools.err().contains("is open"), tools.err());
            tools.clearOut();
            assertEquals(0, tools.verify(dir.toString(), "--force-read-only"), tools.out() + tools.err());
            assertTrue(tools.out().contains("--force-read-only"), tools.out());
        }
    }
}
