package io.directlog.broker.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;

/**
 * {@link OpeningPartition}: a new partition whose log is created after CreateTopics answered. Before its log is
 * open it is empty and queues appends; the queued appends reach the log in arrival order (an idempotent
 * producer's sequences then pass the checks), with the request's buffer reused meanwhile; a parked Fetch is woken
 * at the hand-over; a failed creation fails the appends with a retriable storage error.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OpeningPartitionTest
{
    private static ByteBuffer batch(final int baseSequence)
    {
        final MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate(256), Compression.NONE, 0L, 7L,
            (short)0, baseSequence, false);
        b.append(1000L, null, ("v" + baseSequence).getBytes(StandardCharsets.UTF_8));
        return b.build().buffer();
    }

    private static Path directory() throws Exception
    {
        final Path base = Path.of(System.getProperty("directlog.test.dir", System.getProperty("java.io.tmpdir")));
        Files.createDirectories(base);
        return Files.createTempDirectory(base, "opening");
    }

    @Test
    void queuedAppendsReachTheLogInArrivalOrderOnceItIsOpen() throws Exception
    {
        try (LogStore store = LogStore.open(StoreConfig.builder(directory()).build()))
        {
            final OpeningPartition p = new OpeningPartition("t", 0);
            assertEquals(0, p.highWatermark());
            assertEquals(0, p.logStartOffset());
            assertEquals(0, p.read(0, 1024).sizeInBytes(), "empty until open");
            assertNull(p.maxTimestamp());
            final AtomicInteger woken = new AtomicInteger();
            p.onNextAppend(woken::incrementAndGet);

            final List<CompletableFuture<Long>> acks = new ArrayList<>();
            final ByteBuffer reused = ByteBuffer.allocate(256);
            for (int seq = 0; seq < 5; seq++)
            {
                reused.clear().put(batch(seq)).flip();
                acks.add(p.append(reused));
                reused.clear().put(new byte[256]); // the request's buffer is overwritten after the call
            }
            assertFalse(acks.get(0).isDone(), "no log yet: the append waits");

            p.opened(LocalPartition.open("t", 0, store.log("p.t.0")));
            for (int seq = 0; seq < 5; seq++)
            {
                assertEquals(seq, acks.get(seq).get(30, TimeUnit.SECONDS), "sequence " + seq + " at its offset");
            }
            assertEquals(1, woken.get(), "the parked Fetch is woken at the hand-over");
            assertEquals(5L, p.append(batch(5)).get(30, TimeUnit.SECONDS), "then straight to the log");
            assertEquals(6, p.highWatermark(), "six records");
            assertTrue(p.read(0, 1 << 20).sizeInBytes() > 0);
            assertEquals("p.t.0", TopicRegistry.localLog(p).name());
        }
    }

    @Test
    void aFailedCreationFailsQueuedAndLaterAppendsWithARetriableError()
    {
        final OpeningPartition p = new OpeningPartition("t", 3);
        final CompletableFuture<Long> queued = p.append(batch(0));
        p.failed(new IllegalStateException("disk full"));
        final ExecutionException e = assertThrows(ExecutionException.class, () -> queued.get(10, TimeUnit.SECONDS));
        assertInstanceOf(KafkaStorageException.class, e.getCause());
        assertTrue(p.append(batch(1)).isCompletedExceptionally());
        assertThrows(KafkaStorageException.class, () -> TopicRegistry.localLog(p));
    }
}
