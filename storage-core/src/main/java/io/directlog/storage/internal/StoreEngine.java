package io.directlog.storage.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import io.directlog.storage.CacheStats;
import io.directlog.storage.DeviceInfo;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogClosedException;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.StorageException;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.StoreLockedException;
import io.directlog.storage.cache.EvictionPolicy;
import io.directlog.storage.cache.PageCache;
import io.directlog.storage.io.BlockIo;
import io.directlog.storage.log.DefaultLog;
import io.directlog.storage.log.LogContext;
import io.directlog.storage.log.ReadAhead;
import io.directlog.storage.log.SegmentFiles;
import io.directlog.storage.log.SegmentPreparer;
import io.directlog.storage.page.PagePool;
import io.directlog.storage.page.ReadBufferPool;
import io.directlog.storage.writer.LogWriterAgent;

/**
 * The {@link LogStore}: owns the directory lock, the I/O layer chosen for the directory, the page pool and
 * cache, the preparer, the syncer and the writer threads, and the open logs.
 * <p>
 * Thread-safe.
 */
public final class StoreEngine implements LogStore
{
    private static final System.Logger LOG = System.getLogger(StoreEngine.class.getName());
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,200}");
    private static final Set<Path> LOCKED_IN_THIS_JVM = ConcurrentHashMap.newKeySet();
    private static final String LOCK_FILE = "store.lock";

    private final StoreConfig config;
    private final Path directory;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final BlockIo io;
    private final DeviceInfo deviceInfo;
    private final PagePool pool;
    private final PageCache cache;
    private final ReadBufferPool readBuffers;
    private final SegmentPreparer preparer;
    private final ReadAhead readAhead;
    private final LogWriterAgent[] writers;
    private final WriterPlacement writerPlacement;
    private final Thread syncer;
    private final Map<String, DefaultLog> logs = new ConcurrentHashMap<>();
    private final StoreMetrics metrics;
    private volatile boolean closed;
    private int nextWriter;

    private StoreEngine(final StoreConfig config, final Path directory, final FileChannel lockChannel,
        final FileLock lock, final IoSelection selection)
    {
        this.config = config;
        this.directory = directory;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.io = selection.io();
        this.deviceInfo = selection.deviceInfo();
        this.pool = new PagePool(config.memoryBudget(), Math.max(4096, io.alignment()));
        this.cache = new PageCache(pool, EvictionPolicy.fromSystemProperties());
        this.readBuffers = new ReadBufferPool(256 << 10, Math.max(4096, io.alignment()), 32);
        this.preparer = new SegmentPreparer(io);
        this.readAhead = new ReadAhead(Math.min(config.readAheadBytes(), config.memoryBudget() / 4));
        this.writerPlacement = WriterPlacement.choose(config.writerCpus(), deviceInfo.device());
        this.writers = new LogWriterAgent[config.writerThreads()];
        for (int i = 0; i < writers.length; i++)
        {
            writers[i] = new LogWriterAgent("directlog-writer-" + i, config.writerQueueBytes(),
                writerPlacement.cpus());
            writers[i].start();
        }
        this.syncer = new Thread(this::syncLoop, "directlog-syncer");
        this.syncer.setDaemon(true);
        this.syncer.start();
        this.metrics = StoreMetrics.bind(config.meterRegistry(), this);
    }

    /**
     * @param config the store's settings.
     * @return the open store.
     */
    public static LogStore open(final StoreConfig config)
    {
        final Path directory = config.directory().toAbsolutePath().normalize();
        if (!LOCKED_IN_THIS_JVM.add(directory))
        {
            throw new StoreLockedException("store directory " + directory + " is already open in this process");
        }
        FileChannel channel = null;
        try
        {
            Files.createDirectories(directory);
            channel = FileChannel.open(directory.resolve(LOCK_FILE), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
            final FileLock lock;
            try
            {
                lock = channel.tryLock();
            }
            catch (final OverlappingFileLockException e)
            {
                throw new StoreLockedException("store directory " + directory + " is locked in this process");
            }
            if (lock == null)
            {
                throw new StoreLockedException("store directory " + directory + " is locked by another process");
            }
            final IoSelection selection = IoSelection.choose(config, directory);
            final StoreEngine store = new StoreEngine(config, directory, channel, lock, selection);
            LOG.log(System.Logger.Level.INFO, "opened store " + directory + ": " + selection.deviceInfo() +
                "; writer threads " + store.writerPlacement.reason());
            store.openExistingLogs();
            return store;
        }
        catch (final IOException | RuntimeException e)
        {
            LOCKED_IN_THIS_JVM.remove(directory);
            if (channel != null)
            {
                try
                {
                    channel.close();
                }
                catch (final IOException ignore)
                {
                    // already failing
                }
            }
            if (e instanceof StorageException)
            {
                throw (StorageException)e;
            }
            if (e instanceof RuntimeException)
            {
                throw (RuntimeException)e;
            }
            throw new StorageException("cannot open store " + directory + ": " + e.getMessage(), e);
        }
    }

    /**
     * Opens (and recovers) every log found in the directory, several at a time: recovery is mostly waiting for
     * the device (fdatasync, reads of the tail), and the logs are independent.
     */
    private void openExistingLogs()
    {
        final java.util.List<String> names = new java.util.ArrayList<>(logNames());
        final int threads = Math.min(names.size(), Math.max(4, Runtime.getRuntime().availableProcessors() * 2));
        if (threads <= 1)
        {
            for (final String name : names)
            {
                openOrClose(name);
            }
            return;
        }
        final java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads,
            r ->
            {
                final Thread t = new Thread(r, "directlog-open");
                t.setDaemon(true);
                return t;
            });
        try
        {
            final java.util.List<java.util.concurrent.Future<?>> opened = new java.util.ArrayList<>();
            for (final String name : names)
            {
                opened.add(pool.submit(() -> loadLog(name, config.defaultLogConfig())));
            }
            RuntimeException first = null;
            for (final java.util.concurrent.Future<?> f : opened)
            {
                try
                {
                    f.get();
                }
                catch (final java.util.concurrent.ExecutionException e)
                {
                    if (first == null)
                    {
                        first = e.getCause() instanceof RuntimeException re ? re :
                            new StorageException("cannot open store " + directory + ": " + e.getCause(), e.getCause());
                    }
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                    first = new StorageException("interrupted while opening store " + directory, e);
                }
            }
            if (first != null)
            {
                close();
                throw first;
            }
        }
        finally
        {
            pool.shutdown();
        }
    }

    private void openOrClose(final String name)
    {
        try
        {
            log(name);
        }
        catch (final RuntimeException e)
        {
            close();
            throw e;
        }
    }

    @Override
    public Log log(final String name)
    {
        final DefaultLog existing = logs.get(name);
        return existing != null ? existing : openLog(name, config.defaultLogConfig(), false);
    }

    @Override
    public Log log(final String name, final LogConfig logConfig)
    {
        return openLog(name, logConfig, true);
    }

    private Log openLog(final String name, final LogConfig logConfig, final boolean explicit)
    {
        checkOpen();
        if (name == null || !NAME.matcher(name).matches() || name.equals(".") || name.equals(".."))
        {
            throw new IllegalArgumentException("log name '" + name + "' must be 1 to 200 letters, digits, '.', '_' or '-'");
        }
        if (logConfig == null)
        {
            throw new NullPointerException("config");
        }
        synchronized (logs)
        {
            checkOpen();
            final DefaultLog existing = logs.get(name);
            if (existing != null)
            {
                if (explicit)
                {
                    existing.config(logConfig); // an open log keeps its segment size, takes the other settings
                }
                return existing;
            }
            final DefaultLog log = load(name, logConfig, nextContext());
            logs.put(name, log);
            return log;
        }
    }

    /** Opens an existing log at store open, outside the logs lock (several run in parallel). */
    private void loadLog(final String name, final LogConfig logConfig)
    {
        final LogContext context;
        synchronized (logs)
        {
            context = nextContext();
        }
        final DefaultLog log = load(name, logConfig, context);
        synchronized (logs)
        {
            logs.put(name, log);
        }
    }

    private LogContext nextContext()
    {
        final LogWriterAgent writer = writers[nextWriter++ % writers.length];
        return new LogContext(io, cache, readBuffers, writer, preparer, config.appendTimeout(),
            deviceInfo.copyOnWrite(), config.recoveryMode(), readAhead);
    }

    private DefaultLog load(final String name, final LogConfig logConfig, final LogContext context)
    {
        if (logConfig.durability() == Durability.DIRECT && deviceInfo.volatileWriteCache())
        {
            LOG.log(System.Logger.Level.WARNING, "log '" + name + "' defaults to DIRECT on a device with a " +
                "volatile write cache (" + deviceInfo.device() + "): safe against process and OS crashes only, " +
                "not power loss; DSYNC is safe on any drive");
        }
        try
        {
            return DefaultLog.open(name, directory.resolve(name), context, logConfig);
        }
        catch (final IOException e)
        {
            throw new StorageException("cannot open log '" + name + "' in " + directory + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Set<String> logNames()
    {
        final Set<String> names = new TreeSet<>(logs.keySet());
        try
        {
            for (final Path d : io.listDirectories(directory))
            {
                if (SegmentFiles.isLogDirectory(io, d))
                {
                    names.add(d.getFileName().toString());
                }
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        return names;
    }

    @Override
    public boolean deleteLog(final String name)
    {
        checkOpen();
        synchronized (logs)
        {
            final DefaultLog log = logs.remove(name);
            if (log != null)
            {
                log.close();
            }
            final Path dir = directory.resolve(name);
            try
            {
                if (!io.listDirectories(directory).contains(dir))
                {
                    return log != null;
                }
                for (final Path p : io.list(dir))
                {
                    io.delete(p);
                }
                io.delete(dir); // empty now: a log directory holds only files
                io.syncDirectory(directory);
            }
            catch (final IOException e)
            {
                throw new StorageException("cannot delete log '" + name + "': " + e.getMessage(), e);
            }
            return true;
        }
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

    /** @return the open logs. */
    Map<String, DefaultLog> openLogs()
    {
        return logs;
    }

    /** @return where the writer threads run, and why. */
    WriterPlacement writerPlacement()
    {
        return writerPlacement;
    }

    /** @return the writer agents. */
    LogWriterAgent[] writers()
    {
        return writers;
    }

    /** @return the preparer. */
    SegmentPreparer preparer()
    {
        return preparer;
    }

    private void syncLoop()
    {
        while (!closed)
        {
            final long now = System.nanoTime();
            for (final DefaultLog log : logs.values())
            {
                log.onSyncerTick(now);
            }
            try
            {
                Thread.sleep(20); // a period, not a wait for another thread: the syncer is a timer
            }
            catch (final InterruptedException e)
            {
                return;
            }
        }
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new LogClosedException("store " + directory + " is closed");
        }
    }

    @Override
    public void close()
    {
        synchronized (logs)
        {
            if (closed)
            {
                return;
            }
            closed = true;
        }
        for (final DefaultLog log : logs.values())
        {
            try
            {
                log.close();
            }
            catch (final StorageException e)
            {
                // that log's close could not record a clean shutdown and said so (a WARNING); the others and the
                // store are closed all the same
            }
        }
        logs.clear();
        readAhead.close(); // before the pool: a page-in in flight reads into pool memory
        syncer.interrupt();
        for (final LogWriterAgent writer : writers)
        {
            try
            {
                writer.stop(Duration.ofSeconds(30));
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
        preparer.close();
        readBuffers.close();
        pool.close();
        if (metrics != null)
        {
            metrics.close();
        }
        try
        {
            lock.release();
            lockChannel.close();
        }
        catch (final IOException e)
        {
            LOG.log(System.Logger.Level.WARNING, "cannot release lock of " + directory, e);
        }
        finally
        {
            LOCKED_IN_THIS_JVM.remove(directory);
        }
    }
}
