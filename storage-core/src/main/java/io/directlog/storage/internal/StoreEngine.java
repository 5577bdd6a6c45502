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
import java.util.ArrayList;
import java.util.List;
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
import io.directlog.storage.MemoryBudgetExceededException;
import io.directlog.storage.StorageException;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.StoreLockedException;
import io.directlog.storage.cache.EvictionPolicy;
import io.directlog.storage.cache.PageCache;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.log.DefaultLog;
import io.directlog.storage.log.LogConfigFile;
import io.directlog.storage.log.LogContext;
import io.directlog.storage.log.LogEvents;
import io.directlog.storage.log.LogMeta;
import io.directlog.storage.log.ReadAhead;
import io.directlog.storage.log.SegmentFiles;
import io.directlog.storage.log.SegmentPreparer;
import io.directlog.storage.page.PagePool;
import io.directlog.storage.page.ReadBufferPool;
import io.directlog.storage.writer.LogWriterAgent;
import org.agrona.CloseHelper;

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
    /**
     * Open logs whose handle was returned by log(): they have holders that rely on their config. A log the store
     * opened itself (at start) has none until then, and its first log(name, config) may still set its config.
     */
    private final Set<String> handedOut = ConcurrentHashMap.newKeySet();
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
        this.pool = new PagePool(config.memoryBudget(), io.blockAlignment());
        this.cache = new PageCache(pool, EvictionPolicy.fromSystemProperties());
        this.readBuffers = new ReadBufferPool(ReadBufferPool.BUFFER_SIZE_DEFAULT, io.blockAlignment(),
            ReadBufferPool.POOLED_BUFFERS_DEFAULT);
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
        // without a registry StoreMetrics is never initialised: verifying it loads Micrometer, which is optional
        this.metrics = config.meterRegistry() == null ? null : StoreMetrics.bind(config.meterRegistry(), this);
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
            checkDirectoryUsable(directory);
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
            CloseHelper.quietClose(channel); // already failing
            if (e instanceof StorageException)
            {
                throw (StorageException)e;
            }
            if (e instanceof RuntimeException)
            {
                throw (RuntimeException)e;
            }
            throw new StorageException("cannot open store " + directory + ": " + describe((IOException)e), e);
        }
    }

    /** A path that cannot hold a store fails with what is wrong with it, not with the JDK's bare file name. */
    private static void checkDirectoryUsable(final Path directory)
    {
        for (Path p = directory; p != null; p = p.getParent())
        {
            if (Files.exists(p))
            {
                if (!Files.isDirectory(p))
                {
                    throw new StorageException("cannot open store " + directory + ": " +
                        (p.equals(directory) ? "it is" : p + " is") + " a regular file, not a directory");
                }
                return;
            }
        }
    }

    /**
     * @param e why the directory could not be used.
     * @return the problem in words, naming the file (the JDK's message of some exceptions is the file alone).
     */
    static String describe(final IOException e)
    {
        final String file = e instanceof java.nio.file.FileSystemException fse && fse.getFile() != null ?
            fse.getFile() : null;
        if (e instanceof java.nio.file.AccessDeniedException)
        {
            return "permission denied on " + file + " (the process needs to create, write and lock files there)";
        }
        if (e instanceof java.nio.file.FileAlreadyExistsException)
        {
            return file + " exists and is not a directory";
        }
        if (e instanceof java.nio.file.NoSuchFileException)
        {
            return "no such file or directory: " + file;
        }
        if (e instanceof java.nio.file.FileSystemException fse && fse.getReason() != null)
        {
            return fse.getReason().toLowerCase(java.util.Locale.ROOT) + ": " + file;
        }
        return String.valueOf(e.getMessage());
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
                opened.add(pool.submit(() -> loadLog(name)));
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
            loadLog(name); // not log(name): a log the store opens itself has no holder yet
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
        checkName(name);
        final DefaultLog existing = logs.get(name);
        if (existing != null && !existing.isClosing())
        {
            handedOut.add(name);
            return existing;
        }
        return openLog(name, null);
    }

    @Override
    public Log log(final String name, final LogConfig logConfig)
    {
        checkName(name);
        if (logConfig == null)
        {
            throw new NullPointerException("config of log '" + name + "' must not be null");
        }
        return openLog(name, logConfig);
    }

    private static void checkName(final String name)
    {
        if (name == null)
        {
            throw new NullPointerException("log name must not be null");
        }
        if (!NAME.matcher(name).matches() || name.equals(".") || name.equals(".."))
        {
            throw new IllegalArgumentException("log name '" + name + "' must be 1 to 200 letters, digits, '.', '_' " +
                "or '-', and not '.' or '..'");
        }
    }

    /**
     * @param asked the config asked for, or null for the log's own (persisted) one.
     */
    private Log openLog(final String name, final LogConfig asked)
    {
        while (true)
        {
            checkOpen();
            final DefaultLog closing = logs.get(name);
            if (closing != null && closing.isClosing())
            {
                // a closed handle is not handed out again: the log is opened anew once its files are closed
                awaitClosed(closing);
                synchronized (logs)
                {
                    if (logs.remove(name, closing))
                    {
                        handedOut.remove(name);
                        logGone(closing);
                    }
                }
                continue;
            }
            synchronized (logs)
            {
                checkOpen();
                final DefaultLog existing = logs.get(name);
                if (existing != null && existing.isClosing())
                {
                    continue;
                }
                if (existing != null)
                {
                    if (asked != null && !asked.equals(existing.config()))
                    {
                        if (handedOut.contains(name))
                        {
                            throw differentConfig(existing, asked);
                        }
                        existing.reconfigure(asked); // opened by the store at start, no holder yet: the first sets it
                    }
                    handedOut.add(name);
                    return existing;
                }
                final DefaultLog log = load(name, asked, nextContext());
                logs.put(name, log);
                handedOut.add(name);
                return log;
            }
        }
    }

    private static void awaitClosed(final DefaultLog log)
    {
        if (!log.isCloseFinished() && Thread.currentThread() == log.writerThread())
        {
            throw new LogClosedException("log '" + log.name() + "' is closing on this writer thread (close() was " +
                "called in an append callback); open it again from another thread, or after the callback returned");
        }
        log.awaitCloseFinished();
    }

    /**
     * A second opener of an open log must not change it under the holders that share it (a MEMORY config would
     * turn their plain appends into ones acknowledged from memory): a different config is refused, and changed
     * for every holder only by {@link Log#reconfigure}.
     */
    private static IllegalStateException differentConfig(final DefaultLog existing, final LogConfig asked)
    {
        return new IllegalStateException("log '" + existing.name() + "' is open with a different config (" +
            LogConfigFile.differences(existing.config(), asked) + "): a second opener " +
            "does not change the settings the other holders of the log rely on. Ask with the same config or with " +
            "log(name), or call Log.reconfigure(config) to change it for every holder");
    }

    /** Opens an existing log at store open, outside the logs lock (several run in parallel). */
    private void loadLog(final String name)
    {
        final LogContext context;
        synchronized (logs)
        {
            context = nextContext();
        }
        final DefaultLog log = load(name, null, context);
        synchronized (logs)
        {
            logs.put(name, log);
        }
    }

    private LogContext nextContext()
    {
        final LogWriterAgent writer = writers[nextWriter++ % writers.length];
        return new LogContext(io, cache, readBuffers, writer, preparer, config.appendTimeout(),
            deviceInfo.copyOnWrite(), config.recoveryMode(), readAhead, metrics != null ? metrics : LogEvents.NONE);
    }

    /**
     * Opens a log with its persisted config, or the store's default when it has none ({@code asked} null), or
     * with {@code asked}, persisted first when it differs. Checks before any file is written that one write page
     * of the log fits the memory budget.
     */
    private DefaultLog load(final String name, final LogConfig asked, final LogContext context)
    {
        final Path dir = directory.resolve(name);
        final LogConfig logConfig;
        try
        {
            final LogConfig stored = LogConfigFile.read(io, dir, name);
            final boolean exists = io.exists(dir.resolve(SegmentFiles.META_FILE));
            final int segmentSize = exists ? LogMeta.read(io, dir, name).segmentSize() :
                (asked != null ? asked : stored != null ? stored : config.defaultLogConfig()).segmentSize();
            if (asked != null && asked.segmentSize() != segmentSize)
            {
                throw new IllegalArgumentException("log '" + name + "' has segmentSize " + segmentSize + "; it is " +
                    "fixed when the log is created and cannot change (asked " + asked.segmentSize() + ")");
            }
            if (segmentSize > pool.budget())
            {
                throw new MemoryBudgetExceededException("log '" + name + "' needs a write " +
                    "page of its segment size, " + segmentSize + " bytes, but the store's memory budget is " +
                    pool.budget() + " bytes: raise StoreConfig.memoryBudget or use smaller segments");
            }
            if (asked != null)
            {
                logConfig = asked;
            }
            else if (stored != null)
            {
                logConfig = stored;
            }
            else
            {
                // no config of its own (created by log(name), or before log.config existed): it follows the
                // store's default, at its own segment size, and nothing is persisted for it
                logConfig = config.defaultLogConfig().toBuilder().segmentSize(segmentSize).build();
            }
            if (asked != null && !asked.equals(stored))
            {
                io.createDirectories(dir);
                LogConfigFile.write(io, dir, logConfig);
            }
        }
        catch (final IOException e)
        {
            throw new StorageException("cannot open log '" + name + "' in " + directory + ": " + describe(e), e);
        }
        if (logConfig.durability() == Durability.DIRECT && deviceInfo.volatileWriteCache())
        {
            LOG.log(System.Logger.Level.WARNING, "log '" + name + "' defaults to DIRECT on a device with a " +
                "volatile write cache (" + deviceInfo.device() + "): safe against process and OS crashes only, " +
                "not power loss; DSYNC is safe on any drive");
        }
        try
        {
            return DefaultLog.open(name, dir, context, logConfig);
        }
        catch (final IOException e)
        {
            throw new StorageException("cannot open log '" + name + "' in " + directory + ": " + describe(e), e);
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
            handedOut.remove(name);
            if (log != null)
            {
                try
                {
                    log.close();
                }
                finally
                {
                    logGone(log);
                }
                awaitNotPreparing(log);
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

    /**
     * Before a closed log's files are deleted: a segment the preparer is making for it would appear in the directory
     * after the listing (and fail the directory's removal). Bounded: a preparer stuck in I/O for a minute leaves
     * the removal to fail with what is left.
     */
    private void awaitNotPreparing(final DefaultLog log)
    {
        try
        {
            if (!preparer.awaitNotPreparing(log, Duration.ofSeconds(60)))
            {
                LOG.log(System.Logger.Level.WARNING, "log '" + log.name() + "': a segment was still being prepared " +
                    "60 s after it closed; deleting its files anyway");
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** A log has left the open logs, closed: the meters keep its final counts. */
    private void logGone(final DefaultLog log)
    {
        if (metrics != null)
        {
            metrics.logGone(log);
        }
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
        for (final LogWriterAgent writer : writers)
        {
            if (Thread.currentThread() == writer.thread())
            {
                throw new IllegalStateException("store " + directory + " cannot be closed on its writer thread " +
                    writer.thread().getName() + " (inside an append callback): closing waits for that thread; " +
                    "close it from another thread");
            }
        }
        synchronized (logs)
        {
            if (closed)
            {
                return;
            }
            closed = true;
        }
        // a log whose close fails (it could not record a clean shutdown and said so with a WARNING) does not stop
        // the others or the store from closing; the caller is told which failed once everything is closed, since
        // the next open recovers those logs as after a crash
        final List<String> failedLogs = new ArrayList<>();
        final List<RuntimeException> failures = new ArrayList<>();
        for (final DefaultLog log : logs.values())
        {
            try
            {
                log.close();
            }
            catch (final RuntimeException e)
            {
                failedLogs.add(log.name());
                failures.add(e);
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
        if (!failures.isEmpty())
        {
            final StorageException thrown = new StorageException("store " + directory + " closed, but the close of " +
                "log(s) " + failedLogs + " failed (" + failures.get(0).getMessage() + "): the next open recovers " +
                "them as after a crash", failures.get(0));
            failures.subList(1, failures.size()).forEach(thrown::addSuppressed);
            throw thrown;
        }
    }
}
