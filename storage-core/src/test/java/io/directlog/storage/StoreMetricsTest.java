package io.directlog.storage;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The store's Micrometer meters (docs/metrics.md): present, fed by the engine's counters, removed at close. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StoreMetricsTest
{
    @Test
    void writePathMetersCountAppendsFlushesTheirLatencyAndThePreparedSegmentsAhead() throws Exception
    {
        final Path dir = TestDirs.create("metrics");
        final MeterRegistry registry = new SimpleMeterRegistry();
        try (LogStore store = LogStore.open(StoreConfig.builder(dir).memoryBudget(64L << 20).writerThreads(1)
            .meterRegistry(registry).defaultLogConfig(LogConfig.builder().segmentSize(1 << 20).preparedSegments(2)
                .build()).build()))
        {
            final Log log = store.log("m");
            final List<CompletableFuture<Long>> futures = new ArrayList<>();
            for (int i = 0; i < 500; i++)
            {
                futures.add(log.append(new byte[4000], Durability.DIRECT));
            }
            futures.forEach(CompletableFuture::join);
            final LogStats stats = log.stats();
            assertEquals(500, registry.get("directlog.appends").functionCounter().count());
            assertEquals(500 * 4000, registry.get("directlog.appended.bytes").functionCounter().count());
            final double flushes = registry.get("directlog.flushes").functionCounter().count();
            assertTrue(flushes > 0 && flushes <= 500, "flushes " + flushes);
            final Timer latency = registry.get("directlog.flush.latency").timer();
            assertEquals(flushes, latency.count(), "one timing per flush");
            assertTrue(latency.totalTime(TimeUnit.NANOSECONDS) > 0);
            assertEquals(stats.flushNanos() / 1e3 / stats.flushes(), stats.meanFlushMicros(), 1e-6);
            assertTrue(registry.get("directlog.records.per.flush").gauge().value() >= 1);
            assertTrue(registry.get("directlog.segment.rolls").functionCounter().count() >= 1, "2 MB into 1 MiB segments");
            // the preparer refills the queue after the rolls: the gauges come back to preparedSegments
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (registry.get("directlog.segments.prepared.ahead.min").gauge().value() < 2)
            {
                assertTrue(System.nanoTime() < deadline, "the preparer did not refill within 30 s");
                Thread.onSpinWait();
            }
            assertEquals(2, registry.get("directlog.segments.prepared.ahead").gauge().value());
            assertEquals(2, log.stats().preparedAhead());
            assertNotNull(registry.find("directlog.writer.queue.bytes").gauge());
            assertNotNull(registry.find("directlog.cache.hit.ratio").gauge());
        }
        assertNull(registry.find("directlog.flush.latency").timer(), "meters removed when the store closes");
        assertNull(registry.find("directlog.appends").functionCounter());
    }

    @Test
    void writeCountersDoNotGoDownWhenALogIsClosedOrDeleted() throws Exception
    {
        final Path dir = TestDirs.create("metrics-monotonic");
        final MeterRegistry registry = new SimpleMeterRegistry();
        try (LogStore store = LogStore.open(StoreConfig.builder(dir).memoryBudget(64L << 20).writerThreads(1)
            .meterRegistry(registry).defaultLogConfig(LogConfig.builder().segmentSize(1 << 20).build()).build()))
        {
            final Log a = store.log("a");
            for (int i = 0; i < 10; i++)
            {
                a.append(new byte[100], Durability.DSYNC).join();
            }
            assertEquals(10, registry.get("directlog.appends").functionCounter().count());
            final double flushes = registry.get("directlog.flushes").functionCounter().count();
            a.close();
            assertEquals(10, registry.get("directlog.appends").functionCounter().count(), "a closed log's appends stay counted");
            assertEquals(flushes, registry.get("directlog.flushes").functionCounter().count());
            final Log b = store.log("b");
            for (int i = 0; i < 5; i++)
            {
                b.append(new byte[100], Durability.DSYNC).join();
            }
            assertEquals(15, registry.get("directlog.appends").functionCounter().count());
            assertEquals(1500, registry.get("directlog.appended.bytes").functionCounter().count());
            // a deleted log leaves the store's open logs: its counts must stay in the sums (they dropped before)
            assertTrue(store.deleteLog("b"));
            assertEquals(15, registry.get("directlog.appends").functionCounter().count());
            assertEquals(1500, registry.get("directlog.appended.bytes").functionCounter().count());
        }
    }

    @Test
    void perLogMetersCarryTheLogTagAndLeaveWithTheLog() throws Exception
    {
        final Path dir = TestDirs.create("metrics-per-log");
        final MeterRegistry registry = new SimpleMeterRegistry();
        try (LogStore store = LogStore.open(StoreConfig.builder(dir).memoryBudget(64L << 20).writerThreads(1)
            .meterRegistry(registry).defaultLogConfig(LogConfig.builder().segmentSize(1 << 20).build()).build()))
        {
            final Log log = store.log("orders");
            for (int i = 0; i < 3; i++)
            {
                log.append(new byte[100], Durability.DSYNC).join();
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (registry.find("directlog.log.end.offset").tag("log", "orders").gauge() == null)
            {
                assertTrue(System.nanoTime() < deadline, "per-log meters not registered within 10 s");
                Thread.sleep(50);
            }
            assertEquals(3, registry.get("directlog.log.end.offset").tag("log", "orders").gauge().value());
            assertEquals(3, registry.get("directlog.log.visible.end.offset").tag("log", "orders").gauge().value());
            assertEquals(0, registry.get("directlog.log.start.offset").tag("log", "orders").gauge().value());
            assertEquals(3, registry.get("directlog.log.appends").tag("log", "orders").functionCounter().count());
            assertEquals(300, registry.get("directlog.log.appended.bytes").tag("log", "orders").functionCounter().count());
            assertTrue(registry.get("directlog.log.flush.latency").tag("log", "orders").timer().count() >= 1);
            assertTrue(store.deleteLog("orders"));
            while (registry.find("directlog.log.end.offset").tag("log", "orders").gauge() != null)
            {
                assertTrue(System.nanoTime() < deadline + TimeUnit.SECONDS.toNanos(10), "per-log meters not removed");
                Thread.sleep(50);
            }
        }
        assertNull(registry.find("directlog.log.appends").functionCounter(), "meters removed when the store closes");
    }
}
