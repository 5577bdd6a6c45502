package io.directlog.storage.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.log.DefaultLog;
import io.directlog.storage.writer.LogWriterAgent;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Micrometer meters of a store, read through functions from the components' own counters: the hot path never
 * calls Micrometer. Meter names are listed in docs/metrics.md.
 * <p>
 * Thread-safe.
 */
final class StoreMetrics implements AutoCloseable
{
    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();

    private StoreMetrics(final MeterRegistry registry)
    {
        this.registry = registry;
    }

    static StoreMetrics bind(final MeterRegistry registry, final StoreEngine store)
    {
        if (registry == null)
        {
            return null;
        }
        final StoreMetrics m = new StoreMetrics(registry);
        m.counter("directlog.appends", store, s -> sumLogs(s, 0));
        m.counter("directlog.appended.bytes", store, s -> sumLogs(s, 1));
        m.counter("directlog.flushes", store, s -> sumLogs(s, 2));
        m.counter("directlog.flushed.records", store, s -> sumLogs(s, 3));
        m.counter("directlog.segment.rolls", store, s -> sumLogs(s, 4));
        m.counter("directlog.preparer.stalls", store, s -> sumLogs(s, 5));
        m.counter("directlog.syncs", store, s -> sumLogs(s, 6));
        m.counter("directlog.callback.errors", store, s ->
        {
            long total = 0;
            for (final LogWriterAgent w : s.writers())
            {
                total += w.callbacks().errors();
            }
            return total;
        });
        m.counter("directlog.segments.prepared", store, s -> s.preparer().preparedCount());
        m.meters.add(FunctionTimer.builder("directlog.flush.latency", store, s -> (long)sumLogs(s, 2),
            s -> sumLogs(s, 7), TimeUnit.NANOSECONDS).register(registry));
        m.gauge("directlog.segments.prepared.ahead", store, s -> sumLogs(s, 8));
        m.gauge("directlog.segments.prepared.ahead.min", store, s ->
        {
            long min = Long.MAX_VALUE;
            for (final DefaultLog log : s.openLogs().values())
            {
                min = Math.min(min, log.stats().preparedAhead());
            }
            return min == Long.MAX_VALUE ? 0 : min;
        });
        m.gauge("directlog.writer.queue.bytes", store, s ->
        {
            long total = 0;
            for (final LogWriterAgent w : s.writers())
            {
                total += w.queuedBytes();
            }
            return total;
        });
        m.gauge("directlog.records.per.flush", store, s ->
        {
            final double flushes = sumLogs(s, 2);
            return flushes == 0 ? 0 : sumLogs(s, 3) / flushes;
        });
        m.counter("directlog.cache.hits", store, s -> s.cacheStats().hits());
        m.counter("directlog.cache.misses", store, s -> s.cacheStats().misses());
        m.counter("directlog.cache.page.ins", store, s -> s.cacheStats().pageIns());
        m.counter("directlog.cache.evictions", store, s -> s.cacheStats().evictions());
        m.counter("directlog.cache.read.aheads", store, StoreEngine::readAheadRequests);
        m.counter("directlog.cache.disk.read.bytes", store, s -> s.cacheStats().bytesReadFromDisk());
        m.gauge("directlog.cache.hit.ratio", store, s -> s.cacheStats().hitRatio());
        m.gauge("directlog.cache.pinned.pages", store, s -> s.cacheStats().pinnedPages());
        m.gauge("directlog.cache.used.bytes", store, s -> s.cacheStats().usedBytes());
        return m;
    }

    private static double sumLogs(final StoreEngine store, final int field)
    {
        double total = 0;
        for (final DefaultLog log : store.openLogs().values())
        {
            final var s = log.stats();
            total += switch (field)
            {
                case 0 -> s.appends();
                case 1 -> s.appendedBytes();
                case 2 -> s.flushes();
                case 3 -> s.flushedRecords();
                case 4 -> s.segmentRolls();
                case 5 -> s.preparerStalls();
                case 6 -> s.syncs();
                case 7 -> s.flushNanos();
                default -> s.preparedAhead();
            };
        }
        return total;
    }

    private void counter(final String name, final StoreEngine store,
        final java.util.function.ToDoubleFunction<StoreEngine> f)
    {
        meters.add(FunctionCounter.builder(name, store, f).register(registry));
    }

    private void gauge(final String name, final StoreEngine store,
        final java.util.function.ToDoubleFunction<StoreEngine> f)
    {
        meters.add(Gauge.builder(name, store, f).register(registry));
    }

    @Override
    public void close()
    {
        for (final Meter meter : meters)
        {
            registry.remove(meter);
        }
    }
}
