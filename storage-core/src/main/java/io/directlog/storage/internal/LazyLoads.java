package io.directlog.storage.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

import io.directlog.storage.LogClosedException;
import io.directlog.storage.log.DefaultLog;
import io.directlog.storage.log.LogFacts;

/**
 * The loads of logs known from the store manifest, at their first use: each runs outside the registry's lock,
 * on the thread that first used the log, so that first uses of different logs load in parallel; a second first
 * use of a log being loaded waits for that load (one future per log), so a log loads once. Optionally a few
 * background threads load every known log after the open ({@code -Ddirectlog.store.backgroundLoads=N}), so that
 * a caller touching every log one after the other finds most of them loaded.
 * <p>
 * The store's close waits for the loads in flight ({@link #awaitAll}) before it closes the logs, so no log is
 * published after the close took the list of logs to close; a delete or a re-open of a log being loaded waits for
 * its load first ({@link #await}).
 * <p>
 * Thread-safe: the loads in flight are guarded by the registry's lock (the lock object of its map of open logs,
 * passed in), which is also what a load takes, briefly, to start and to publish its log.
 */
final class LazyLoads
{
    private static final System.Logger LOG = System.getLogger(LazyLoads.class.getName());
    /** Background loader threads after a manifest open; 0 (the default) loads each log at its first use only. */
    static final String BACKGROUND_PROPERTY = "directlog.store.backgroundLoads";

    private final Object lock;
    private final Map<String, DefaultLog> logs;
    private final ManifestLogs manifest;
    private final LogOpener opener;
    private final BooleanSupplier storeOpen;
    private final String store;
    /** Loads in flight by log name (guarded by {@link #lock}). */
    private final Map<String, CompletableFuture<DefaultLog>> inFlight = new HashMap<>();

    /**
     * @param lock      the registry's lock, guarding {@code logs}.
     * @param logs      the registry's open logs, where a loaded log is published.
     * @param manifest  the manifest's logs.
     * @param opener    opens a log from the manifest's facts.
     * @param storeOpen false once the store's close began (read under {@code lock}).
     * @param store     the store's directory, for messages.
     */
    LazyLoads(final Object lock, final Map<String, DefaultLog> logs, final ManifestLogs manifest,
        final LogOpener opener, final BooleanSupplier storeOpen, final String store)
    {
        this.lock = lock;
        this.logs = logs;
        this.manifest = manifest;
        this.opener = opener;
        this.storeOpen = storeOpen;
        this.store = store;
    }

    /**
     * Loads a log known from the manifest, or waits for the load another thread runs. The manifest is made
     * invalid first (loading writes the log's checkpoint as not clean).
     *
     * @return the loaded log.
     * @throws LogClosedException when the store or the handle was closed.
     */
    DefaultLog load(final LazyLog lazy)
    {
        final String name = lazy.name();
        final CompletableFuture<DefaultLog> load;
        final boolean mine;
        synchronized (lock)
        {
            final DefaultLog done = lazy.loadedOrNull();
            if (done != null)
            {
                return done;
            }
            if (!storeOpen.getAsBoolean())
            {
                throw new LogClosedException("store " + store + " is closed");
            }
            if (lazy.isClosedUnloaded() || manifest.unloaded(name) != lazy)
            {
                throw new LogClosedException("log '" + name + "' is closed");
            }
            final CompletableFuture<DefaultLog> running = inFlight.get(name);
            mine = running == null;
            load = mine ? new CompletableFuture<>() : running;
            if (mine)
            {
                inFlight.put(name, load);
            }
        }
        return mine ? run(lazy, load) : join(load);
    }

    private DefaultLog run(final LazyLog lazy, final CompletableFuture<DefaultLog> load)
    {
        final String name = lazy.name();
        final DefaultLog log;
        try
        {
            manifest.invalidate();
            log = opener.openKnown(name, lazy.facts());
        }
        catch (final RuntimeException e)
        {
            manifest.spoil(); // its files may have changed part-way: the next open reads every log's files
            synchronized (lock)
            {
                inFlight.remove(name);
            }
            load.completeExceptionally(e);
            throw e;
        }
        synchronized (lock)
        {
            logs.put(name, log);
            manifest.remove(name);
            inFlight.remove(name);
        }
        lazy.loaded(log);
        load.complete(log);
        checkFacts(lazy.facts(), log);
        return log;
    }

    private static DefaultLog join(final CompletableFuture<DefaultLog> load)
    {
        try
        {
            return load.join();
        }
        catch (final CompletionException e)
        {
            throw e.getCause() instanceof RuntimeException re ? re : e;
        }
    }

    private static void checkFacts(final LogFacts facts, final DefaultLog log)
    {
        if (!log.recoveryReport().cleanShutdown() || log.endOffset() != facts.endOffset())
        {
            LOG.log(System.Logger.Level.WARNING, "log '" + facts.name() + "': the store manifest said it closed " +
                "cleanly at offset " + facts.endOffset() + ", its files say " + (log.recoveryReport().cleanShutdown() ?
                "clean" : "not clean") + " at offset " + log.endOffset() + ": its files were followed");
        }
    }

    /** @return true when the log's load is in flight (call under the registry's lock). */
    boolean isLoading(final String name)
    {
        return inFlight.containsKey(name);
    }

    /** Waits for the load of {@code name} in flight, if any (its failure is its first user's to report). */
    void await(final String name)
    {
        final CompletableFuture<DefaultLog> load;
        synchronized (lock)
        {
            load = inFlight.get(name);
        }
        if (load != null)
        {
            load.exceptionally(e -> null).join();
        }
    }

    /** Waits for every load in flight; called once the store's close began, when no load starts any more. */
    void awaitAll()
    {
        final List<CompletableFuture<DefaultLog>> loads;
        synchronized (lock)
        {
            loads = new ArrayList<>(inFlight.values());
        }
        loads.forEach(l -> l.exceptionally(e -> null).join());
    }

    /**
     * Loads every known log on {@code threads} daemon threads, in name order (the order {@code logNames()} lists
     * them, so a caller going through that list mostly finds its log loaded or loading). A load that fails is
     * left for the log's first use to report again; the threads end when every log was tried or the store closed.
     */
    void startBackground(final Map<String, LazyLog> unloaded)
    {
        final int threads = Math.min(16, Integer.getInteger(BACKGROUND_PROPERTY, 0)); // read per open: tests set it
        if (threads <= 0 || unloaded.isEmpty())
        {
            return;
        }
        final ExecutorService pool = Executors.newFixedThreadPool(threads, r ->
        {
            final Thread t = new Thread(r, "directlog-load");
            t.setDaemon(true);
            return t;
        });
        for (final LazyLog lazy : new TreeMap<>(unloaded).values())
        {
            pool.execute(() -> loadInBackground(lazy));
        }
        pool.shutdown();
    }

    private void loadInBackground(final LazyLog lazy)
    {
        if (!storeOpen.getAsBoolean() || lazy.loadedOrNull() != null || lazy.isClosedUnloaded())
        {
            return;
        }
        try
        {
            load(lazy);
        }
        catch (final LogClosedException e)
        {
            // the store or the handle closed meanwhile: nothing to load
        }
        catch (final RuntimeException e)
        {
            LOG.log(System.Logger.Level.WARNING, "log '" + lazy.name() + "': background load failed (" +
                e.getMessage() + "); its first use loads it again");
        }
    }
}
