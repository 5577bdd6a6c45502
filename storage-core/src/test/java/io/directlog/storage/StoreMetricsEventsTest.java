package io.directlog.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.directlog.nativeio.Errno;
import io.directlog.storage.io.ErrorInjectingBlockIo;
import io.directlog.storage.io.ErrorInjectingBlockIo.Op;
import io.directlog.storage.io.NativeBlockIo;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The meters of issue 19 (docs/metrics.md): every documented meter exists, counters never go down when logs close,
 * reopen or are deleted, and the event counters and latency Timers count what happened.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class StoreMetricsEventsTest
{
    private static final Pattern DOC_ROW = Pattern.compile("^\\| `(directlog\\.[a-z.]+)` \\| (\\w+) \\|");

    private static StoreConfig.Builder config(final Path dir, final MeterRegistry registry)
    {
        return StoreConfig.builder(dir).memoryBudget(64L << 20).writerThreads(1).meterRegistry(registry)
            .defaultLogConfig(LogConfig.builder().segmentSize(1 << 20).syncInterval(Duration.ofMillis(20)).build());
    }

    @Test
    void everyMeterInMetricsMdIsRegisteredAndEveryRegisteredMeterIsDocumented() throws Exception
    {
        final Map<String, String> documented = documentedMeters();
        assertTrue(documented.size() > 30, "docs/metrics.md parsed: " + documented.keySet());
        final MeterRegistry registry = new SimpleMeterRegistry();
        try (LogStore store = LogStore.open(config(TestDirs.create("metrics-docs"), registry).build()))
        {
            final Log log = store.log("docs");
            log.append(new byte[100], Durability.DSYNC).join();
            awaitTrue(() -> registry.find("directlog.log.segments").tag("log", "docs").gauge() != null,
                "per-log meters registered");
            final Map<String, String> registered = new HashMap<>();
            for (final Meter m : registry.getMeters())
            {
                if (!m.getId().getName().endsWith(".percentile")) // a Timer's client-side percentiles, with it
                {
                    registered.put(m.getId().getName(), m.getId().getType().name());
                }
            }
            for (final Map.Entry<String, String> doc : documented.entrySet())
            {
                final String type = registered.get(doc.getKey());
                assertNotNull(type, "documented but not registered: " + doc.getKey());
                assertEquals(micrometerType(doc.getValue()), type, "type of " + doc.getKey());
            }
            final TreeSet<String> undocumented = new TreeSet<>(registered.keySet());
            undocumented.removeAll(documented.keySet());
            assertEquals(new TreeSet<>(), undocumented, "registered but not in docs/metrics.md");
            for (final Meter m : registry.getMeters())
            {
                final boolean perLog = m.getId().getName().startsWith("directlog.log.");
                assertEquals(perLog ? "docs" : null, m.getId().getTag("log"), "log tag of " + m.getId());
            }
        }
    }

    @Test
    void countersNeverDecreaseAndKeepWhatALogCountedBeforeItLeft() throws Exception
    {
        final MeterRegistry registry = new SimpleMeterRegistry();
        try (LogStore store = LogStore.open(config(TestDirs.create("metrics-never-down"), registry).build()))
        {
            final Log a = store.log("a");
            for (int i = 0; i < 10; i++)
            {
                a.append(new byte[100], Durability.DSYNC).join();
            }
            Map<String, Double> before = storeCounters(registry);
            assertEquals(10, before.get("directlog.appends"));
            // counted after the last read, then the log closes and is opened anew (the old one leaves the store)
            for (int i = 0; i < 5; i++)
            {
                a.append(new byte[100], Durability.DSYNC).join();
            }
            a.close();
            final Log a2 = store.log("a");
            Map<String, Double> after = storeCounters(registry);
            assertNoneDecreased(before, after, "close and reopen");
            assertEquals(15, after.get("directlog.appends"));
            assertEquals(1500, after.get("directlog.appended.bytes"));
            a2.append(new byte[100], Durability.DSYNC).join();
            before = storeCounters(registry);
            assertEquals(16, before.get("directlog.appends"));
            // a deleted log, with appends no meter read before it went (these were lost before issue 19's fix)
            final Log b = store.log("b");
            for (int i = 0; i < 7; i++)
            {
                b.append(new byte[10], Durability.DSYNC).join();
            }
            assertTrue(store.deleteLog("b"));
            after = storeCounters(registry);
            assertNoneDecreased(before, after, "delete");
            assertEquals(23, after.get("directlog.appends"));
            assertEquals(1670, after.get("directlog.appended.bytes"));
            assertTrue(after.get("directlog.flushes") >= before.get("directlog.flushes") + 7, "b's DSYNC flushes");
            assertEquals(after.get("directlog.flushes"), after.get("directlog.flush.latency"),
                "one flush timing per flush: " + after);
        }
    }

    @Test
    void latencyTimersPublishAHistogramStoreWideAndCountsPerLog() throws Exception
    {
        final MeterRegistry registry = new SimpleMeterRegistry();
        try (LogStore store = LogStore.open(config(TestDirs.create("metrics-latency"), registry).build()))
        {
            final Log log = store.log("lat");
            for (int i = 0; i < 300; i++)
            {
                log.append(new byte[8000], Durability.DIRECT).join();
            }
            awaitTrue(() -> registry.get("directlog.sync.latency").timer().count() >= 1, "a background sync");
            final Timer flush = registry.get("directlog.flush.latency").timer();
            assertEquals(log.stats().flushes(), flush.count());
            assertTrue(flush.totalTime(TimeUnit.NANOSECONDS) > 0 && flush.max(TimeUnit.NANOSECONDS) > 0);
            // the simple registry publishes no histogram buckets (it does not aggregate percentiles); the
            // client-side percentiles computed from the same histogram show it is kept
            final var percentiles = flush.takeSnapshot().percentileValues();
            assertEquals(3, percentiles.length, "p50, p99, p99.9");
            assertTrue(percentiles[1].value(TimeUnit.NANOSECONDS) > 0, "p99 " + percentiles[1]);
            assertEquals(3, registry.get("directlog.sync.latency").timer().takeSnapshot().percentileValues().length);
            awaitTrue(() -> registry.find("directlog.log.flush.latency").tag("log", "lat").timer() != null,
                "per-log timer");
            assertEquals(flush.count(), registry.get("directlog.log.flush.latency").tag("log", "lat").timer().count());
            assertTrue(registry.get("directlog.log.sync.latency").tag("log", "lat").timer().count() >= 0);
            // 300 × 8 KB into 1 MiB segments: at least three segments, all their records counted in the size once
            // visible (a DSYNC log shows DIRECT appends after the next background sync)
            awaitTrue(() -> log.visibleEndOffset() == 300, "all visible");
            assertTrue(registry.get("directlog.log.segments").tag("log", "lat").gauge().value() >= 3);
            final double size = registry.get("directlog.log.size").tag("log", "lat").gauge().value();
            assertTrue(size >= 300 * 8000 && size <= 300 * (8000 + 4096), "size " + size);
        }
    }

    @Test
    void failStopIsCountedStoreWideAndForTheLog() throws Exception
    {
        final MeterRegistry registry = new SimpleMeterRegistry();
        final ErrorInjectingBlockIo io = new ErrorInjectingBlockIo(new NativeBlockIo(4096), 19);
        try (LogStore store = LogStore.open(config(TestDirs.create("metrics-failstop"), registry).blockIo(io).build()))
        {
            final Log log = store.log("f");
            log.append(new byte[100], Durability.DSYNC).join();
            io.failFrom(Op.WRITE, Errno.EIO, ErrorInjectingBlockIo.named(".log"));
            final CompletionException e = assertThrowsCompletion(() -> log.append(new byte[100], Durability.DSYNC).join());
            assertInstanceOf(LogFailedException.class, e.getCause());
            assertFalse(log.isWritable());
            assertEquals(1, registry.get("directlog.fail.stops").counter().count());
            assertEquals(1, registry.get("directlog.log.fail.stops").tag("log", "f").counter().count());
            assertEquals(0, registry.get("directlog.full.refusals").counter().count());
        }
    }

    @Test
    void logFullRefusalsAreCounted() throws Exception
    {
        final MeterRegistry registry = new SimpleMeterRegistry();
        final ErrorInjectingBlockIo io = new ErrorInjectingBlockIo(new NativeBlockIo(4096), 19);
        try (LogStore store = LogStore.open(config(TestDirs.create("metrics-full"), registry).blockIo(io)
            .appendTimeout(Duration.ofSeconds(2)).defaultLogConfig(LogConfig.builder().segmentSize(1 << 20)
                .preparedSegments(1).build()).build()))
        {
            final Log log = store.log("full");
            log.append(new byte[60_000], Durability.DIRECT).join();
            awaitTrue(() -> io.calls(Op.RENAME) >= 2, "the spare segment prepared");
            io.failFrom(Op.ALLOCATE, Errno.ENOSPC, ErrorInjectingBlockIo.named(".tmp"));
            int refused = 0;
            for (int i = 0; i < 200 && refused < 3; i++)
            {
                try
                {
                    log.append(new byte[60_000], Durability.DIRECT).join();
                }
                catch (final CompletionException e)
                {
                    assertInstanceOf(LogFullException.class, e.getCause());
                    refused++;
                }
            }
            assertEquals(3, refused, "the log never became full");
            assertEquals(3, registry.get("directlog.full.refusals").counter().count());
            awaitTrue(() -> registry.find("directlog.log.full.refusals").tag("log", "full").counter() != null,
                "per-log counter");
            assertEquals(3, registry.get("directlog.log.full.refusals").tag("log", "full").counter().count());
            assertEquals(0, registry.get("directlog.fail.stops").counter().count(), "full is not fail-stop");
        }
    }

    @Test
    void appendTimeoutsAreCounted() throws Exception
    {
        final MeterRegistry registry = new SimpleMeterRegistry();
        final CountDownLatch release = new CountDownLatch(1);
        try (LogStore store = LogStore.open(config(TestDirs.create("metrics-timeout"), registry)
            .writerQueueBytes(64 << 10).appendTimeout(Duration.ofMillis(100)).build()))
        {
            final Log log = store.log("t");
            final CountDownLatch writerHeld = new CountDownLatch(1);
            final UnsafeBuffer one = new UnsafeBuffer(new byte[100]);
            // the callback holds the writer thread (bounded), so the queue fills and appends time out
            log.append(one, 0, 100, Durability.MEMORY, (offset, error) ->
            {
                writerHeld.countDown();
                try
                {
                    release.await(30, TimeUnit.SECONDS);
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(writerHeld.await(10, TimeUnit.SECONDS), "callback ran");
            final UnsafeBuffer record = new UnsafeBuffer(new byte[4000]);
            final List<Throwable> errors = new ArrayList<>();
            for (int i = 0; i < 100 && errors.isEmpty(); i++)
            {
                log.append(record, 0, 4000, Durability.MEMORY, (offset, error) ->
                {
                    if (error != null)
                    {
                        synchronized (errors)
                        {
                            errors.add(error);
                        }
                    }
                });
            }
            synchronized (errors)
            {
                assertEquals(1, errors.size(), "one append timed out: " + errors);
                assertInstanceOf(AppendTimeoutException.class, errors.get(0));
            }
            assertEquals(1, registry.get("directlog.append.timeouts").counter().count());
            release.countDown();
            awaitTrue(() -> registry.find("directlog.log.append.timeouts").tag("log", "t").counter() != null,
                "per-log counter");
            assertEquals(1, registry.get("directlog.log.append.timeouts").tag("log", "t").counter().count());
        }
        finally
        {
            release.countDown();
        }
    }

    // ---------------------------------------------------------------- helpers

    /** Every store-wide counter and timer count, by name. */
    private static Map<String, Double> storeCounters(final MeterRegistry registry)
    {
        final Map<String, Double> values = new HashMap<>();
        for (final Meter m : registry.getMeters())
        {
            final String name = m.getId().getName();
            if (m.getId().getTag("log") != null || name.endsWith(".percentile"))
            {
                continue;
            }
            if (m instanceof FunctionCounter c)
            {
                values.put(name, c.count());
            }
            else if (m instanceof Counter c)
            {
                values.put(name, c.count());
            }
            else if (m instanceof Timer t)
            {
                values.put(name, (double)t.count());
            }
        }
        return values;
    }

    private static void assertNoneDecreased(final Map<String, Double> before, final Map<String, Double> after,
        final String step)
    {
        for (final Map.Entry<String, Double> e : before.entrySet())
        {
            final Double now = after.get(e.getKey());
            assertNotNull(now, e.getKey() + " disappeared after " + step);
            assertTrue(now >= e.getValue(), e.getKey() + " went down after " + step + ": " + e.getValue() + " -> " + now);
        }
    }

    /** name -> type column of every meter row in docs/metrics.md. */
    static Map<String, String> documentedMeters() throws IOException
    {
        final Path doc = Path.of("..", "docs", "metrics.md");
        final Map<String, String> meters = new HashMap<>();
        for (final String line : Files.readAllLines(doc))
        {
            final Matcher m = DOC_ROW.matcher(line);
            if (m.find())
            {
                meters.put(m.group(1), m.group(2));
            }
        }
        return meters;
    }

    private static String micrometerType(final String docType)
    {
        return switch (docType)
        {
            case "FunctionCounter", "Counter" -> "COUNTER";
            case "Gauge" -> "GAUGE";
            case "Timer", "FunctionTimer" -> "TIMER";
            default -> throw new IllegalArgumentException("unknown meter type in docs/metrics.md: " + docType);
        };
    }

    private static CompletionException assertThrowsCompletion(final Runnable r)
    {
        try
        {
            r.run();
        }
        catch (final CompletionException e)
        {
            return e;
        }
        throw new AssertionError("no exception");
    }

    private static void awaitTrue(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadline, what + ": not within 20 s");
            Thread.sleep(10);
        }
    }
}
