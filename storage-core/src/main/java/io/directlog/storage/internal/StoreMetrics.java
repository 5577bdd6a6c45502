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

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

import io.directlog.storage.LogStats;
import io.directlog.storage.log.DefaultLog;
import io.directlog.storage.log.LogEvents;
import io.directlog.storage.log.LogSize;
import io.directlog.storage.writer.LogWriterAgent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

/**
 * Micrometer meters of a store. Running totals are read through functions from the components' own counters when
 * the registry polls them; latencies (whose percentiles need every sample) and rare events come in as
 * {@link LogEvents}, once per flush, sync round or event, never once per append. Meter names are listed in
 * docs/metrics.md.
 * <p>
 * Counters never go down (a monitoring system's rate() takes a drop for a reset): the write-path sums keep, for a
 * log that has left the store, its final totals ({@link #logGone}), and a read never returns less than the read
 * before it.
 * <p>
 * Per-log meters carry a {@code log} tag. They are registered for a log when it first reports an event, or by a
 * daemon thread ({@value #PER_LOG_THREAD_NAME}, once per {@link #PER_LOG_REFRESH_MILLIS} ms) for logs that opened
 * and stay quiet; they are removed when the log leaves the store. Registering from inside a meter's read (while a
 * registry publishes) is not safe in every registry, so reads never register.
 * <p>
 * Thread-safe: the counter sums and the per-log registrations are done under the instance's lock (registries may
 * read from several threads); events look their log's meters up without it.
 */
final class StoreMetrics implements AutoCloseable, LogEvents
{
    /** Fields 0 to 7 of {@link #logField}: the per-log values that only grow while the log is open. */
    private static final int COUNTER_FIELDS = 8;
    /** The range the latency histograms' buckets cover: below a µs or above 10 s lands in the end buckets. */
    private static final Duration LATENCY_MIN = Duration.ofNanos(1_000);
    private static final Duration LATENCY_MAX = Duration.ofSeconds(10);
    /** The client-side percentiles of the store-wide latencies. */
    private static final double[] PERCENTILES = {0.5, 0.99, 0.999};

    static final String PER_LOG_THREAD_NAME = "directlog-metrics";
    static final long PER_LOG_REFRESH_MILLIS = 1000;

    private final MeterRegistry registry;
    private final StoreEngine store;
    private final List<Meter> meters = new ArrayList<>();
    /** The meters of each log registered so far; written under this, read by events without it. */
    private final Map<DefaultLog, PerLog> perLog = new ConcurrentHashMap<>();
    private ScheduledExecutorService refresher;
    /** The counters of each log as last read, until it leaves the store; guarded by this. */
    private final Map<DefaultLog, double[]> lastRead = new IdentityHashMap<>();
    /** The final counters of logs that have left the store; guarded by this. */
    private final double[] goneLogs = new double[COUNTER_FIELDS];
    /** What each write-path sum last returned: the floor of the next read; guarded by this. */
    private final double[] lastReturned = new double[COUNTER_FIELDS];
    private Timer flushLatency;
    private Timer syncLatency;
    private Counter failStops;
    private Counter fullRefusals;
    private Counter appendTimeouts;

    /** One log's meters, and those events update. */
    private record PerLog(List<Meter> meters, Timer flushLatency, Timer syncLatency, Counter failStops,
        Counter fullRefusals, Counter appendTimeouts)
    {
    }

    private StoreMetrics(final MeterRegistry registry, final StoreEngine store)
    {
        this.registry = registry;
        this.store = store;
    }

    /**
     * @return the store's meters, not registered yet (see {@link #bind}), or null without a registry.
     */
    static StoreMetrics create(final MeterRegistry registry, final StoreEngine store)
    {
        return registry == null ? null : new StoreMetrics(registry, store);
    }

    /** @return writer threads of {@code s} that ended without the store's stop. */
    private static long writerDeaths(final StoreEngine s)
    {
        long dead = 0;
        for (final LogWriterAgent w : s.writers())
        {
            dead += w.death() != null ? 1 : 0;
        }
        return dead;
    }

    /**
     * Registers the store-wide meters and starts the per-log refresher: once, when the store's parts the meters
     * read exist.
     */
    void bind()
    {
        counter("directlog.appends", store, s -> counterSum(s, 0));
        counter("directlog.appended.bytes", store, s -> counterSum(s, 1));
        counter("directlog.flushes", store, s -> counterSum(s, 2));
        counter("directlog.flushed.records", store, s -> counterSum(s, 3));
        counter("directlog.segment.rolls", store, s -> counterSum(s, 4));
        counter("directlog.preparer.stalls", store, s -> counterSum(s, 5));
        counter("directlog.syncs", store, s -> counterSum(s, 6));
        counter("directlog.callback.errors", store, s ->
        {
            long total = 0;
            for (final LogWriterAgent w : s.writers())
            {
                total += w.callbacks().errors();
            }
            return total;
        });
        counter("directlog.writer.deaths", store, StoreMetrics::writerDeaths);
        counter("directlog.segments.prepared", store, s -> s.preparer().preparedCount());
        flushLatency = keep(latency("directlog.flush.latency", Tags.empty(), true).register(registry));
        syncLatency = keep(latency("directlog.sync.latency", Tags.empty(), true).register(registry));
        failStops = keep(Counter.builder("directlog.fail.stops").register(registry));
        fullRefusals = keep(Counter.builder("directlog.full.refusals").register(registry));
        appendTimeouts = keep(Counter.builder("directlog.append.timeouts").register(registry));
        gauge("directlog.segments.prepared.ahead", store, s -> sumLogs(s, 8));
        gauge("directlog.segments.prepared.ahead.min", store, s ->
        {
            long min = Long.MAX_VALUE;
            for (final DefaultLog log : s.openLogs().values())
            {
                min = Math.min(min, log.stats().preparedAhead());
            }
            return min == Long.MAX_VALUE ? 0 : min;
        });
        gauge("directlog.writer.queue.bytes", store, s ->
        {
            long total = 0;
            for (final LogWriterAgent w : s.writers())
            {
                total += w.queuedBytes();
            }
            return total;
        });
        gauge("directlog.records.per.flush", store, s ->
        {
            final double flushes = counterSum(s, 2);
            return flushes == 0 ? 0 : counterSum(s, 3) / flushes;
        });
        counter("directlog.cache.hits", store, s -> s.cacheStats().hits());
        counter("directlog.cache.misses", store, s -> s.cacheStats().misses());
        counter("directlog.cache.page.ins", store, s -> s.cacheStats().pageIns());
        counter("directlog.cache.evictions", store, s -> s.cacheStats().evictions());
        counter("directlog.cache.read.aheads", store, StoreEngine::readAheadRequests);
        counter("directlog.cache.pin.waits", store, StoreEngine::cachePinWaits);
        counter("directlog.cache.disk.read.bytes", store, s -> s.cacheStats().bytesReadFromDisk());
        gauge("directlog.cache.hit.ratio", store, s -> s.cacheStats().hitRatio());
        gauge("directlog.cache.pinned.pages", store, s -> s.cacheStats().pinnedPages());
        gauge("directlog.cache.used.bytes", store, s -> s.cacheStats().usedBytes());
        refreshPerLogMeters(store);
        refresher = Executors.newSingleThreadScheduledExecutor(r ->
        {
            final Thread t = new Thread(r, PER_LOG_THREAD_NAME);
            t.setDaemon(true);
            return t;
        });
        refresher.scheduleWithFixedDelay(() -> refreshPerLogMeters(store), PER_LOG_REFRESH_MILLIS,
            PER_LOG_REFRESH_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * A latency Timer. The store-wide ones publish a percentile histogram (105 buckets between
     * {@link #LATENCY_MIN} and {@link #LATENCY_MAX}, in registries that aggregate percentiles, such as
     * Prometheus) and the p50, p99 and p99.9 over a sliding window; the per-log ones do not: a store of thousands of logs would
     * publish that many buckets per log, and count, total and max per log are what an operator compares.
     */
    private static Timer.Builder latency(final String name, final Tags tags, final boolean histogram)
    {
        final Timer.Builder b = Timer.builder(name).tags(tags).publishPercentileHistogram(histogram)
            .minimumExpectedValue(LATENCY_MIN).maximumExpectedValue(LATENCY_MAX);
        // and the percentiles themselves, for registries that publish no histogram (JMX, the simple registry)
        return histogram ? b.publishPercentiles(PERCENTILES) : b;
    }

    private <M extends Meter> M keep(final M meter)
    {
        meters.add(meter);
        return meter;
    }

    // ---------------------------------------------------------------- events (LogEvents)

    @Override
    public void flushed(final DefaultLog log, final long nanos)
    {
        flushLatency.record(nanos, TimeUnit.NANOSECONDS);
        final PerLog p = perLogOf(log);
        if (p != null)
        {
            p.flushLatency.record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void synced(final DefaultLog log, final long nanos)
    {
        syncLatency.record(nanos, TimeUnit.NANOSECONDS);
        final PerLog p = perLogOf(log);
        if (p != null)
        {
            p.syncLatency.record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void failStopped(final DefaultLog log)
    {
        failStops.increment();
        final PerLog p = perLogOf(log);
        if (p != null)
        {
            p.failStops.increment();
        }
    }

    @Override
    public void refusedFull(final DefaultLog log)
    {
        fullRefusals.increment();
        final PerLog p = perLogOf(log);
        if (p != null)
        {
            p.fullRefusals.increment();
        }
    }

    @Override
    public void appendTimedOut(final DefaultLog log)
    {
        appendTimeouts.increment();
        final PerLog p = perLogOf(log);
        if (p != null)
        {
            p.appendTimeouts.increment();
        }
    }

    /**
     * @return the log's meters, registered now if the log is one of the store's open logs and has none yet; null
     *         for a log being loaded or gone (the store-wide meters still count its event).
     */
    private PerLog perLogOf(final DefaultLog log)
    {
        final PerLog p = perLog.get(log);
        if (p != null)
        {
            return p;
        }
        try
        {
            synchronized (this)
            {
                if (store.openLogs().get(log.name()) != log)
                {
                    return null;
                }
                return perLog.computeIfAbsent(log, this::registerPerLog);
            }
        }
        catch (final RuntimeException ex)
        {
            // an event must never fail the log's write path
            return null;
        }
    }

    // ---------------------------------------------------------------- logs coming and going

    /**
     * A log has left the store's open logs (reopened, deleted): its final totals stay in the write-path sums, and
     * its per-log meters are removed now. Call after the log has closed, so its counters are final.
     *
     * @param log the log.
     */
    synchronized void logGone(final DefaultLog log)
    {
        try
        {
            final double[] values = lastRead.remove(log);
            final LogStats s = log.stats();
            for (int f = 0; f < COUNTER_FIELDS; f++)
            {
                goneLogs[f] += Math.max(values == null ? 0 : values[f], logField(s, f));
            }
        }
        catch (final RuntimeException ex)
        {
            System.getLogger(StoreMetrics.class.getName()).log(System.Logger.Level.DEBUG, "gone log not read", ex);
        }
        final PerLog p = perLog.remove(log);
        if (p != null)
        {
            p.meters.forEach(registry::remove);
        }
    }

    /** Registers the meters of logs that opened since the last call and removes those of logs that have gone. */
    synchronized void refreshPerLogMeters(final StoreEngine store)
    {
        try
        {
            final Set<DefaultLog> open = Collections.newSetFromMap(new IdentityHashMap<>());
            open.addAll(store.openLogs().values());
            for (final Iterator<Map.Entry<DefaultLog, PerLog>> it = perLog.entrySet().iterator(); it.hasNext(); )
            {
                final Map.Entry<DefaultLog, PerLog> e = it.next();
                if (!open.contains(e.getKey()))
                {
                    e.getValue().meters.forEach(registry::remove);
                    it.remove();
                }
            }
            for (final DefaultLog log : open)
            {
                perLog.computeIfAbsent(log, this::registerPerLog);
            }
        }
        catch (final RuntimeException ex)
        {
            // metrics must never take the store down; the next refresh tries again
            System.getLogger(StoreMetrics.class.getName()).log(System.Logger.Level.DEBUG, "per-log meters not refreshed", ex);
        }
    }

    private PerLog registerPerLog(final DefaultLog log)
    {
        final Tags tags = Tags.of("log", log.name());
        final List<Meter> m = new ArrayList<>();
        m.add(Gauge.builder("directlog.log.start.offset", log, safe(DefaultLog::startOffset)).tags(tags)
            .strongReference(true).register(registry));
        m.add(Gauge.builder("directlog.log.end.offset", log, safe(DefaultLog::endOffset)).tags(tags)
            .strongReference(true).register(registry));
        m.add(Gauge.builder("directlog.log.visible.end.offset", log, safe(DefaultLog::visibleEndOffset)).tags(tags)
            .strongReference(true).register(registry));
        m.add(Gauge.builder("directlog.log.size", log, safe(LogSize::bytes)).tags(tags).baseUnit("bytes")
            .strongReference(true).register(registry));
        m.add(Gauge.builder("directlog.log.segments", log, safe(LogSize::segmentCount)).tags(tags)
            .strongReference(true).register(registry));
        m.add(FunctionCounter.builder("directlog.log.appends", log, safe(l -> l.stats().appends())).tags(tags)
            .register(registry));
        m.add(FunctionCounter.builder("directlog.log.appended.bytes", log, safe(l -> l.stats().appendedBytes()))
            .tags(tags).baseUnit("bytes").register(registry));
        m.add(FunctionCounter.builder("directlog.log.callback.errors", log, safe(l -> l.stats().callbackErrors()))
            .tags(tags).register(registry));
        final Timer flush = latency("directlog.log.flush.latency", tags, false).register(registry);
        final Timer sync = latency("directlog.log.sync.latency", tags, false).register(registry);
        final Counter failStops = Counter.builder("directlog.log.fail.stops").tags(tags).register(registry);
        final Counter full = Counter.builder("directlog.log.full.refusals").tags(tags).register(registry);
        final Counter timeouts = Counter.builder("directlog.log.append.timeouts").tags(tags).register(registry);
        m.addAll(List.of(flush, sync, failStops, full, timeouts));
        return new PerLog(m, flush, sync, failStops, full, timeouts);
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
     * ones that have left the store as they were when they left, and never less than the previous read.
     */
    private synchronized double counterSum(final StoreEngine store, final int field)
    {
        for (final DefaultLog log : store.openLogs().values())
        {
            final double[] values = lastRead.computeIfAbsent(log, k -> new double[COUNTER_FIELDS]);
            final LogStats s = log.stats();
            for (int f = 0; f < COUNTER_FIELDS; f++)
            {
                // max: a read racing the writer's plain stores must not move a total back either
                values[f] = Math.max(values[f], logField(s, f));
            }
        }
        // a log that has left the open logs but not yet been handed to logGone stays in lastRead
        double total = goneLogs[field];
        for (final double[] values : lastRead.values())
        {
            total += values[field];
        }
        lastReturned[field] = Math.max(lastReturned[field], total);
        return lastReturned[field];
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

    private static double logField(final LogStats s, final int field)
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

    private void counter(final String name, final StoreEngine store, final ToDoubleFunction<StoreEngine> f)
    {
        meters.add(FunctionCounter.builder(name, store, f).register(registry));
    }

    private void gauge(final String name, final StoreEngine store, final ToDoubleFunction<StoreEngine> f)
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
            perLog.values().forEach(p -> p.meters.forEach(registry::remove));
            perLog.clear();
        }
    }
}
