package io.directlog.storage.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import io.directlog.storage.log.DefaultLog;
import io.directlog.storage.writer.LogWriterAgent;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * Micrometer meters of a store, read through functions from the components' own counters: the hot path never
 * calls Micrometer. Meter names are listed in docs/metrics.md.
 * <p>
 * The write-path counters are sums over logs, and a log's own counters go away when it closes. So that a counter
 * never goes down (a monitoring system's rate() takes a drop for a reset), each read keeps the totals of every open
 * log, and a log that is no longer open leaves its last-read totals in the sum. What a log counted between the
 * last read and its close is not seen; nothing is counted twice.
 * <p>
 * Per-log meters carry a {@code log} tag. A daemon thread ({@value #PER_LOG_THREAD_NAME}) registers them for logs
 * that have opened and removes those of logs that have gone, once per {@link #PER_LOG_REFRESH_MILLIS} ms: the
 * store tells the meters nothing when a log opens or closes, and registering from inside a meter's read (while a
 * registry publishes) is not safe in every registry.
 * <p>
 * Thread-safe: the counter sums and the per-log registrations are done under the instance's lock (registries may
 * read from several threads).
 */
final class StoreMetrics implements AutoCloseable
{
    /** Fields 0 to 7 of {@link #logField}: the per-log values that only grow while the log is open. */
    private static final int COUNTER_FIELDS = 8;

    static final String PER_LOG_THREAD_NAME = "directlog-metrics";
    static final long PER_LOG_REFRESH_MILLIS = 1000;

    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();
    /** The meters of each log registered so far; guarded by this. */
    private final Map<DefaultLog, List<Meter>> perLog = new IdentityHashMap<>();
    private ScheduledExecutorService refresher;
    /** The counters of each open log as last read; guarded by this. */
    private final Map<DefaultLog, double[]> lastRead = new IdentityHashMap<>();
    /** The last-read counters of logs that have closed since; guarded by this. */
    private final double[] closedLogs = new double[COUNTER_FIELDS];

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
        m.counter("directlog.appends", store, s -> m.counterSum(s, 0));
        m.counter("directlog.appended.bytes", store, s -> m.counterSum(s, 1));
        m.counter("directlog.flushes", store, s -> m.counterSum(s, 2));
        m.counter("directlog.flushed.records", store, s -> m.counterSum(s, 3));
        m.counter("directlog.segment.rolls", store, s -> m.counterSum(s, 4));
        m.counter("directlog.preparer.stalls", store, s -> m.counterSum(s, 5));
        m.counter("directlog.syncs", store, s -> m.counterSum(s, 6));
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
        m.meters.add(FunctionTimer.builder("directlog.flush.latency", store, s -> (long)m.counterSum(s, 2),
            s -> m.counterSum(s, 7), TimeUnit.NANOSECONDS).register(registry));
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
            final double flushes = m.counterSum(s, 2);
            return flushes == 0 ? 0 : m.counterSum(s, 3) / flushes;
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
        m.refreshPerLogMeters(store);
        m.refresher = Executors.newSingleThreadScheduledExecutor(r ->
        {
            final Thread t = new Thread(r, PER_LOG_THREAD_NAME);
            t.setDaemon(true);
            return t;
        });
        m.refresher.scheduleWithFixedDelay(() -> m.refreshPerLogMeters(store), PER_LOG_REFRESH_MILLIS,
            PER_LOG_REFRESH_MILLIS, TimeUnit.MILLISECONDS);
        return m;
    }

    /** Registers the meters of logs that opened since the last call and removes those of logs that have gone. */
    synchronized void refreshPerLogMeters(final StoreEngine store)
    {
        try
        {
            final Set<DefaultLog> open = Collections.newSetFromMap(new IdentityHashMap<>());
            open.addAll(store.openLogs().values());
            for (final Iterator<Map.Entry<DefaultLog, List<Meter>>> it = perLog.entrySet().iterator(); it.hasNext(); )
            {
                final Map.Entry<DefaultLog, List<Meter>> e = it.next();
                if (!open.contains(e.getKey()))
                {
                    e.getValue().forEach(registry::remove);
                    it.remove();
                }
            }
            for (final DefaultLog log : open)
            {
                if (!perLog.containsKey(log))
                {
                    perLog.put(log, registerPerLog(log));
                }
            }
        }
        catch (final RuntimeException ex)
        {
            // metrics must never take the store down; the next refresh tries again
            System.getLogger(StoreMetrics.class.getName()).log(System.Logger.Level.DEBUG, "per-log meters not refreshed", ex);
        }
    }

    private List<Meter> registerPerLog(final DefaultLog log)
    {
        final Tags tags = Tags.of("log", log.name());
        final List<Meter> m = new ArrayList<>();
        m.add(Gauge.builder("directlog.log.start.offset", log, safe(DefaultLog::startOffset)).tags(tags)
            .strongReference(true).register(registry));
        m.add(Gauge.builder("directlog.log.end.offset", log, safe(DefaultLog::endOffset)).tags(tags)
            .strongReference(true).register(registry));
        m.add(Gauge.builder("directlog.log.visible.end.offset", log, safe(DefaultLog::visibleEndOffset)).tags(tags)
            .strongReference(true).register(registry));
        m.add(FunctionCounter.builder("directlog.log.appends", log, safe(l -> l.stats().appends())).tags(tags)
            .register(registry));
        m.add(FunctionCounter.builder("directlog.log.appended.bytes", log, safe(l -> l.stats().appendedBytes()))
            .tags(tags).register(registry));
        final ToDoubleFunction<DefaultLog> flushes = safe(l -> l.stats().flushes());
        m.add(FunctionTimer.builder("directlog.log.flush.latency", log, l -> (long)flushes.applyAsDouble(l),
            safe(l -> l.stats().flushNanos()), TimeUnit.NANOSECONDS).tags(tags).register(registry));
        return m;
    }

    /** A closed log may refuse a read: the meter then reads NaN, without Micrometer logging a warning. */
    private static ToDoubleFunction<DefaultLog> safe(final ToDoubleFunction<DefaultLog> f)
    {
        return log ->
        {
            try
            {
                return f.applyAsDouble(log);
            }
            catch (final RuntimeException ex)
            {
                return Double.NaN;
            }
        };
    }

    /**
     * A write-path counter summed over every log this store has had open: the open ones as they are now, the
     * closed ones as they were last read.
     */
    private synchronized double counterSum(final StoreEngine store, final int field)
    {
        final Set<DefaultLog> open = Collections.newSetFromMap(new IdentityHashMap<>());
        open.addAll(store.openLogs().values());
        for (final DefaultLog log : open)
        {
            final double[] values = lastRead.computeIfAbsent(log, k -> new double[COUNTER_FIELDS]);
            final var s = log.stats();
            for (int f = 0; f < COUNTER_FIELDS; f++)
            {
                // max: a read racing the writer's plain stores must not move a total back either
                values[f] = Math.max(values[f], logField(s, f));
            }
        }
        double total = 0;
        for (final Iterator<Map.Entry<DefaultLog, double[]>> it = lastRead.entrySet().iterator(); it.hasNext(); )
        {
            final Map.Entry<DefaultLog, double[]> e = it.next();
            if (!open.contains(e.getKey()))
            {
                for (int f = 0; f < COUNTER_FIELDS; f++)
                {
                    closedLogs[f] += e.getValue()[f];
                }
                it.remove();
                continue;
            }
            total += e.getValue()[field];
        }
        return total + closedLogs[field];
    }

    private static double sumLogs(final StoreEngine store, final int field)
    {
        double total = 0;
        for (final DefaultLog log : store.openLogs().values())
        {
            total += logField(log.stats(), field);
        }
        return total;
    }

    private static double logField(final io.directlog.storage.LogStats s, final int field)
    {
        return switch (field)
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
        refresher.shutdownNow();
        synchronized (this)
        {
            for (final Meter meter : meters)
            {
                registry.remove(meter);
            }
            perLog.values().forEach(list -> list.forEach(registry::remove));
            perLog.clear();
        }
    }
}
