package io.directlog.storage.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Pattern;

import io.directlog.storage.Log;
import io.directlog.storage.LogClosedException;
import io.directlog.storage.LogConfig;
import io.directlog.storage.StorageException;
import io.directlog.storage.log.DefaultLog;
import io.directlog.storage.log.LogConfigFile;
import io.directlog.storage.log.LogFacts;
import io.directlog.storage.log.SegmentFiles;
import io.directlog.storage.log.SegmentPreparer;
import io.directlog.storage.spi.BlockIo;

/**
 * The open logs of a store, by name: opening (one handle per log, shared by its holders), deleting, listing, and
 * closing them all when the store closes. Whether the store is open is kept here, under the same lock, so that no
 * log opens after the store's close has taken the list of logs to close. After a clean close the store opens
 * from its manifest ({@link ManifestLogs}): logs are known without reading their files and load at first use.
 * <p>
 * Thread-safe: opening, deleting and closing run under the lock of {@link #logs}; the map itself is concurrent, so
 * that lookups, the syncer's ticks and the meters read it without the lock.
 */
final class LogRegistry
{
    private static final System.Logger LOG = System.getLogger(LogRegistry.class.getName());
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,200}");

    private final Path directory;
    private final BlockIo io;
    private final SegmentPreparer preparer;
    private final LogOpener opener;
    /** Writes the files of many new logs at once ({@link #logs(List, LogConfig)}). */
    private final NewLogBatch batch;
    /** The store's meters, or null without a meter registry. */
    private final StoreMetrics metrics;
    private final Map<String, DefaultLog> logs = new ConcurrentHashMap<>();
    /** The store manifest, and the logs known from it but not loaded yet. */
    private final ManifestLogs manifest;
    /** The loads of those logs at first use (outside the lock, once each). */
    private final LazyLoads loads;
    /** What the manifest records of the logs {@link #closeAll} closed cleanly; null when one was not. */
    private List<LogFacts> closedFacts;
    /** Set when the store's open failed: its close then writes no manifest (it would not describe the store). */
    private volatile boolean openFailed;
    /**
     * Open logs whose handle was returned by log(): they have holders that rely on their config. A log the store
     * opened itself (at start) has none until then, and its first log(name, config) may still set its config.
     */
    private final Set<String> handedOut = ConcurrentHashMap.newKeySet();
    /** Set once, under the lock of {@link #logs}. */
    private volatile boolean closed;

    LogRegistry(final Path directory, final BlockIo io, final SegmentPreparer preparer, final LogOpener opener,
        final StoreMetrics metrics)
    {
        this.directory = directory;
        this.io = io;
        this.preparer = preparer;
        this.opener = opener;
        this.batch = new NewLogBatch(directory, io, opener);
        this.metrics = metrics;
        this.manifest = new ManifestLogs(io, directory);
        this.loads = new LazyLoads(logs, logs, manifest, opener, this::isOpen, directory.toString());
    }

    /**
     * Opens (and recovers) every log found in the directory, several at a time: recovery is mostly waiting for
     * the device (fdatasync, reads of the tail), and the logs are independent. The store's open, which calls this,
     * closes the store when it throws.
     *
     * @throws RuntimeException the first log's failure (all are tried when several open at a time).
     */
    void openExisting()
    {
        if (manifest.openFrom(LogRegistry::isValidName, loads::load))
        {
            // every log known, none loaded: each loads at its first use, or on the background threads if asked
            loads.startBackground(manifest.unloadedLogs());
            return;
        }
        final List<String> names = new ArrayList<>(logNames());
        final int threads = Math.min(names.size(), Math.max(4, Runtime.getRuntime().availableProcessors() * 2));
        if (threads <= 1)
        {
            for (final String name : names)
            {
                openExisting(name); // not log(name): a log the store opens itself has no holder yet
            }
            return;
        }
        final ExecutorService pool = Executors.newFixedThreadPool(threads, r ->
        {
            final Thread t = new Thread(r, "directlog-open");
            t.setDaemon(true);
            return t;
        });
        try
        {
            final List<Future<?>> opened = new ArrayList<>();
            for (final String name : names)
            {
                opened.add(pool.submit(() -> openExisting(name)));
            }
            final RuntimeException first = firstFailure(opened);
            if (first != null)
            {
                throw first;
            }
        }
        finally
        {
            pool.shutdown();
        }
    }

    /** @return the first failure of the opens, once all ended, or null. */
    private RuntimeException firstFailure(final List<Future<?>> opened)
    {
        RuntimeException first = null;
        for (final Future<?> f : opened)
        {
            try
            {
                f.get();
            }
            catch (final ExecutionException e)
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
        return first;
    }

    /** Opens an existing log at store open, outside the lock (several run in parallel). */
    private void openExisting(final String name)
    {
        final DefaultLog log = opener.open(name, null);
        synchronized (logs)
        {
            logs.put(name, log);
        }
    }

    /** See {@link io.directlog.storage.LogStore#log(String)}. */
    Log log(final String name)
    {
        checkName(name);
        final DefaultLog existing = logs.get(name);
        if (existing != null && !existing.isClosing())
        {
            handedOut.add(name);
            return existing;
        }
        final LazyLog lazy = manifest.unloaded(name);
        if (lazy != null)
        {
            checkOpen();
            handedOut.add(name);
            return lazy.isClosedUnloaded() ? manifest.reopen(lazy, loads::load) : lazy;
        }
        return openLog(name, null);
    }

    /** See {@link io.directlog.storage.LogStore#log(String, LogConfig)}. */
    Log log(final String name, final LogConfig logConfig)
    {
        checkName(name);
        if (logConfig == null)
        {
            throw new NullPointerException("config of log '" + name + "' must not be null");
        }
        return openLog(name, logConfig);
    }

    /**
     * See {@link io.directlog.storage.LogStore#logs}: the new logs are created and opened by {@link NewLogBatch}
     * under the lock (no other open meets them half made), several at a time; then every log is asked for as
     * {@link #log(String, LogConfig)} asks (the new ones are open with that config by then).
     */
    List<Log> logs(final List<String> names, final LogConfig logConfig)
    {
        if (names == null || logConfig == null)
        {
            throw new NullPointerException("names and config of the logs must not be null");
        }
        if (new java.util.HashSet<>(names).size() != names.size())
        {
            throw new IllegalArgumentException("log names must be distinct: " + names.size() + " names, " +
                new java.util.HashSet<>(names).size() + " distinct");
        }
        names.forEach(LogRegistry::checkName);
        synchronized (logs)
        {
            checkOpen();
            // a log known from the manifest, or loading, is not new: openLog below loads it
            final List<String> fresh = names.stream()
                .filter(n -> !logs.containsKey(n) && manifest.unloaded(n) == null && !loads.isLoading(n)).toList();
            if (!fresh.isEmpty())
            {
                manifest.invalidate(); // removed durably before any log's files change, as openLog does
            }
            batch.create(fresh, logConfig,
                log ->
                {
                    logs.put(log.name(), log);
                    handedOut.add(log.name()); // returned below: its holders rely on its config from now on
                });
        }
        final List<Log> opened = new ArrayList<>(names.size());
        for (final String name : names)
        {
            opened.add(openLog(name, logConfig));
        }
        return opened;
    }

    private static boolean isValidName(final String name)
    {
        return NAME.matcher(name).matches() && !name.equals(".") && !name.equals("..");
    }

    private static void checkName(final String name)
    {
        if (name == null)
        {
            throw new NullPointerException("log name must not be null");
        }
        if (!isValidName(name))
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
        final LazyLog lazy = manifest.unloaded(name);
        if (lazy != null && !lazy.isClosedUnloaded())
        {
            loads.load(lazy); // then asked like any open log: a holder of its handle keeps the config it relies on
        }
        while (true)
        {
            loads.await(name); // a handle closed while its log loaded: that load publishes the log first
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
                    return handOutOpen(name, existing, asked);
                }
                if (loads.isLoading(name))
                {
                    continue;
                }
                manifest.invalidate();
                manifest.remove(name); // a handle closed unloaded: its log is opened here
                final DefaultLog log = opener.open(name, asked);
                logs.put(name, log);
                handedOut.add(name);
                return log;
            }
        }
    }

    /** An open log asked for again: its handle, reconfigured by the first asker when nobody holds it yet. */
    private Log handOutOpen(final String name, final DefaultLog existing, final LogConfig asked)
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

    /** @return the names of the open logs and of the logs in the directory. */
    Set<String> logNames()
    {
        final Set<String> names = new TreeSet<>(logs.keySet());
        if (manifest.knowsAllLogs())
        {
            names.addAll(manifest.unloadedNames()); // every log was created, loaded or deleted through here since
            return names;
        }
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

    /** See {@link io.directlog.storage.LogStore#deleteLog}. */
    boolean deleteLog(final String name)
    {
        checkOpen();
        while (true)
        {
            loads.await(name); // its files are not deleted under a load
            synchronized (logs)
            {
                if (!loads.isLoading(name))
                {
                    return deleteUnderLock(name);
                }
            }
        }
    }

    /** Deletes a log whose load is not in flight, under the lock. */
    private boolean deleteUnderLock(final String name)
    {
        manifest.invalidate();
        final LazyLog lazy = manifest.unloaded(name);
        if (lazy != null)
        {
            lazy.close();
            manifest.remove(name);
        }
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
                return log != null || lazy != null;
            }
            deleteFiles(dir);
        }
        catch (final IOException e)
        {
            throw new StorageException("cannot delete log '" + name + "': " + e.getMessage(), e);
        }
        return true;
    }

    /**
     * Deletes a log's files and directory. The checkpoint goes first: a crash part-way then leaves a log without
     * one, which the next open recovers from the segments still there, where a checkpoint naming deleted segments
     * would refuse the store's open. The log directory is fsync'ed before it is removed, so that a crash after the
     * removal cannot bring back its entries.
     */
    private void deleteFiles(final Path dir) throws IOException
    {
        io.delete(dir.resolve(SegmentFiles.CHECKPOINT_FILE));
        io.syncDirectory(dir);
        for (final Path p : io.list(dir))
        {
            io.delete(p);
        }
        io.syncDirectory(dir);
        io.delete(dir); // empty now: a log directory holds only files
        io.syncDirectory(directory);
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

    /** @return the open logs (a live view; read without the lock). */
    Map<String, DefaultLog> openLogs()
    {
        return logs;
    }

    /** @return false once the store's close has begun. */
    boolean isOpen()
    {
        return !closed;
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new LogClosedException("store " + directory + " is closed");
        }
    }

    /**
     * The store's close begins: from now on no log opens.
     *
     * @return false when it had already begun.
     */
    boolean markClosed()
    {
        synchronized (logs)
        {
            if (closed)
            {
                return false;
            }
            closed = true;
            return true;
        }
    }

    /**
     * Closes every open log (after {@link #markClosed}). A log whose close fails (it could not record a clean
     * shutdown and said so with a WARNING) does not stop the others or the store from closing; the caller is told
     * which failed once everything is closed, since the next open recovers those logs as after a crash.
     *
     * @return the failure to throw once the store is closed, or null when every log closed.
     */
    StorageException closeAll()
    {
        loads.awaitAll(); // no load starts once closed: the ones in flight publish their logs, closed below
        final List<String> failedLogs = new ArrayList<>();
        final List<RuntimeException> failures = new ArrayList<>();
        final List<LogFacts> facts = new ArrayList<>();
        boolean allClean = true;
        for (final DefaultLog log : logs.values())
        {
            try
            {
                log.close();
                final LogFacts f = log.cleanFacts();
                if (f == null)
                {
                    allClean = false; // closed after a fail-stop: the next open recovers it from its files
                }
                facts.add(f);
            }
            catch (final RuntimeException e)
            {
                failedLogs.add(log.name());
                failures.add(e);
            }
        }
        logs.clear();
        if (failures.isEmpty())
        {
            closedFacts = allClean ? facts : null;
            return null;
        }
        final StorageException thrown = new StorageException("store " + directory + " closed, but the close of " +
            "log(s) " + failedLogs + " failed (" + failures.get(0).getMessage() + "): the next open recovers " +
            "them as after a crash", failures.get(0));
        failures.subList(1, failures.size()).forEach(thrown::addSuppressed);
        return thrown;
    }

    /** The store's open failed (a log was refused): the close that follows writes no manifest. */
    void openFailed()
    {
        openFailed = true;
    }

    /**
     * Writes the store manifest, when {@link #closeAll} closed every log cleanly: last in the store's close, once
     * nothing writes to a log's directory any more.
     */
    void writeManifest()
    {
        if (closedFacts != null && !openFailed)
        {
            manifest.write(closedFacts);
        }
    }
}
