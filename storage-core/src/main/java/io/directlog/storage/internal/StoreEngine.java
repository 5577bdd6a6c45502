package io.directlog.storage.internal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.directlog.storage.CacheStats;
import io.directlog.storage.DeviceInfo;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.StorageException;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.cache.EvictionPolicy;
import io.directlog.storage.cache.PageCache;
import io.directlog.storage.log.DefaultLog;
import io.directlog.storage.log.LogEvents;
import io.directlog.storage.log.ReadAhead;
import io.directlog.storage.log.SegmentPreparer;
import io.directlog.storage.page.PagePool;
import io.directlog.storage.page.ReadBufferPool;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.writer.LogWriterAgent;

/**
 * The {@link LogStore}: assembles a store's parts in order and takes them down in the reverse order. It owns the
 * directory lock ({@link StoreLock}), the I/O layer chosen for the directory ({@link IoSelection}), the page pool
 * and cache, the preparer, the syncer ({@link SyncerThread}) and writer threads ({@link LogWriters}), and the open
 * logs ({@link LogRegistry}, which opens them through {@link LogOpener}).
 * <p>
 * Design note: each part keeps its own thread or lock; this class holds no mutable state of its own, so that the order of
 * open and close reads in one place.
 * <p>
 * Thread-safe.
 */
public final class StoreEngine implements LogStore
{
    private static final System.Logger LOG = System.getLogger(StoreEngine.class.getName());

    private final StoreConfig config;
    private final Path directory;
    private final StoreLock lock;
    private final DeviceInfo deviceInfo;
    private final PagePool pool;
    private final PageCache cache;
    private final ReadBufferPool readBuffers;
    private final SegmentPreparer preparer;
    private final ReadAhead readAhead;
    private final LogWriters writers;
    private final StoreMetrics metrics;
    private final LogRegistry logs;
    private final SyncerThread syncer;

    private StoreEngine(final StoreConfig config, final Path directory, final StoreLock lock,
        final IoSelection selection)
    {
        this.config = config;
        this.directory = directory;
        this.lock = lock;
        final BlockIo io = selection.io();
        this.deviceInfo = selection.deviceInfo();
        this.pool = new PagePool(config.memoryBudget(), io.blockAlignment());
        this.cache = new PageCache(pool, EvictionPolicy.fromSystemProperties());
        this.readBuffers = new ReadBufferPool(ReadBufferPool.BUFFER_SIZE_DEFAULT, io.blockAlignment(),
            ReadBufferPool.POOLED_BUFFERS_DEFAULT);
        this.preparer = new SegmentPreparer(io);
        this.readAhead = new ReadAhead(Math.min(config.readAheadBytes(), config.memoryBudget() / 4));
        this.writers = LogWriters.start(config, deviceInfo);
        // without a registry StoreMetrics is never initialised: verifying it loads Micrometer, which is optional.
        // Created before the logs it reports on, bound to meters once they exist (it reads them through this)
        this.metrics = config.meterRegistry() == null ? null : StoreMetrics.create(config.meterRegistry(), this);
        final LogOpener opener = new LogOpener(config, directory, selection, cache, readBuffers, preparer, readAhead,
            writers, metrics != null ? metrics : LogEvents.NONE);
        this.logs = new LogRegistry(directory, io, preparer, opener, metrics);
        this.syncer = SyncerThread.start(logs);
        if (metrics != null)
        {
            metrics.bind();
        }
    }

    /**
     * @param config the store's settings.
     * @return the open store.
     */
    public static LogStore open(final StoreConfig config)
    {
        final Path directory = config.directory().toAbsolutePath().normalize();
        final StoreLock lock = StoreLock.acquire(directory);
        try
        {
            final IoSelection selection = IoSelection.choose(config, directory);
            final StoreEngine store = new StoreEngine(config, directory, lock, selection);
            LOG.log(System.Logger.Level.INFO, "opened store " + directory + ": " + selection.deviceInfo() +
                "; writer threads " + store.writers.placement().reason());
            store.openExistingLogs();
            return store;
        }
        catch (final RuntimeException e)
        {
            lock.abandon();
            throw e;
        }
    }

    private void openExistingLogs()
    {
        try
        {
            logs.openExisting();
        }
        catch (final RuntimeException e)
        {
            // a manifest of the logs opened before the refusal would leave the refused one out: write none
            logs.openFailed();
            close();
            throw e;
        }
    }

    @Override
    public Log log(final String name)
    {
        return logs.log(name);
    }

    @Override
    public Log log(final String name, final LogConfig logConfig)
    {
        return logs.log(name, logConfig);
    }

    @Override
    public List<Log> logs(final List<String> names, final LogConfig logConfig)
    {
        return logs.logs(names, logConfig);
    }

    @Override
    public Set<String> logNames()
    {
        return logs.logNames();
    }

    @Override
    public boolean deleteLog(final String name)
    {
        return logs.deleteLog(name);
    }

    @Override
    public DeviceInfo deviceInfo()
    {
        return deviceInfo;
    }

    @Override
    public StoreConfig config()
    {
        return config;
    }

    @Override
    public CacheStats cacheStats()
    {
        return cache.stats();
    }

    /** @return segments queued for read-ahead of sequential readers so far. */
    long readAheadRequests()
    {
        return readAhead.requests();
    }

    /** @return times a thread that needed memory (a writer, mostly) parked for readers' pins to go. */
    long cachePinWaits()
    {
        return cache.pinWaits();
    }

    /** @return the open logs. */
    Map<String, DefaultLog> openLogs()
    {
        return logs.openLogs();
    }

    /** @return where the writer threads run, and why. */
    WriterPlacement writerPlacement()
    {
        return writers.placement();
    }

    /** @return the writer agents. */
    LogWriterAgent[] writers()
    {
        return writers.agents();
    }

    /** @return the preparer. */
    SegmentPreparer preparer()
    {
        return preparer;
    }

    /**
     * Closes the logs, then stops the threads that serve them, then frees the memory they used, then releases the
     * directory. A log whose close failed is reported after everything is closed.
     */
    @Override
    public void close()
    {
        final LogWriterAgent writer = writers.runningOn(Thread.currentThread());
        if (writer != null)
        {
            throw new IllegalStateException("store " + directory + " cannot be closed on its writer thread " +
                writer.thread().getName() + " (inside an append callback): closing waits for that thread; " +
                "close it from another thread");
        }
        if (!logs.markClosed())
        {
            return;
        }
        final StorageException logsFailed = logs.closeAll();
        readAhead.close(); // before the pool: a page-in in flight reads into pool memory
        syncer.stop();
        writers.stop(Duration.ofSeconds(30));
        preparer.close();
        logs.writeManifest(); // last write to the directory: nothing writes to a log's files any more
        readBuffers.close();
        pool.close();
        if (metrics != null)
        {
            metrics.close();
        }
        lock.release();
        if (logsFailed != null)
        {
            throw logsFailed;
        }
    }
}
