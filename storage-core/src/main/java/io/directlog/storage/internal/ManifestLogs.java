package io.directlog.storage.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;

import io.directlog.storage.StorageException;
import io.directlog.storage.log.DefaultLog;
import io.directlog.storage.log.LogFacts;
import io.directlog.storage.log.SegmentFiles;
import io.directlog.storage.spi.BlockIo;

/**
 * The store manifest's side of the registry: whether a valid manifest is on disk, and the logs known from it that
 * have not been loaded (their files untouched since the clean close that wrote it).
 * <p>
 * The one rule that keeps the manifest honest: it is removed, durably (unlink, then the directory fsync), before
 * any log's files change in this process (a load writes the log's checkpoint as not clean, a new log creates
 * files, a delete removes them). A crash from then on finds no manifest and recovers every log from its files;
 * a crash before finds the manifest and logs exactly as the clean close left them. {@link #invalidate} is called
 * by the registry, under its lock, before each of those changes; it costs one unlink and fsync per store open.
 * <p>
 * Thread-safe: {@link #invalidate} is synchronized; the unloaded logs are a concurrent map changed under the
 * registry's lock.
 */
final class ManifestLogs
{
    private static final System.Logger LOG = System.getLogger(ManifestLogs.class.getName());

    private final BlockIo io;
    private final Path directory;
    private final Map<String, LazyLog> unloaded = new ConcurrentHashMap<>();
    /** A manifest file may be on disk (guarded by this). */
    private boolean onDisk = true;
    /** Set once at open: the store was opened from a valid manifest, so every log is known without listing. */
    private volatile boolean knowsAllLogs;
    /** A load failed: no manifest is written at close (see {@link #spoil}). */
    private volatile boolean spoiled;

    ManifestLogs(final BlockIo io, final Path directory)
    {
        this.io = io;
        this.directory = directory;
    }

    /**
     * Reads the manifest at the store's open and, when it is valid and matches the store's directories, takes its
     * logs as known and unloaded.
     *
     * @param names  checks a log name.
     * @param loader loads a log on its first use (the registry's).
     * @return true when the store opened from the manifest; false when every log must be opened from its files
     *     (the manifest, if any, has then been removed durably, with a WARNING saying why).
     */
    boolean openFrom(final Predicate<String> names, final Function<LazyLog, DefaultLog> loader)
    {
        String reason;
        try
        {
            io.delete(directory.resolve(StoreManifest.TEMP_FILE)); // an unfinished write: never relied on
            final StoreManifest.Found found = StoreManifest.read(io, directory);
            reason = found.valid() ? mismatch(found.logs(), names) : found.reason();
            if (found.valid() && reason == null)
            {
                found.logs().forEach(f -> unloaded.put(f.name(), new LazyLog(f, loader)));
                knowsAllLogs = true;
                return true;
            }
            if (!found.present())
            {
                onDisk = false;
                return false;
            }
        }
        catch (final IOException e)
        {
            reason = "it cannot be read: " + IoErrorText.describe(e);
        }
        LOG.log(System.Logger.Level.WARNING, "store " + directory + ": the manifest is not used (" + reason + "): " +
            "every log is opened from its own files");
        invalidate();
        return false;
    }

    /** @return why the manifest's logs are not the store's log directories, or null when they are. */
    private String mismatch(final List<LogFacts> logs, final Predicate<String> names) throws IOException
    {
        final Set<String> listed = new HashSet<>();
        for (final LogFacts f : logs)
        {
            if (!names.test(f.name()) || !listed.add(f.name()))
            {
                return "it names log '" + f.name() + "' twice or under an invalid name";
            }
        }
        for (final Path d : io.listDirectories(directory))
        {
            final String name = d.getFileName().toString();
            if (!listed.remove(name) && SegmentFiles.isLogDirectory(io, d))
            {
                return "log directory '" + name + "' is not in it";
            }
        }
        return listed.isEmpty() ? null : "it names log(s) with no directory: " + listed;
    }

    /**
     * Removes the manifest durably, if it is there; a no-op after the first call. Called before any log's files
     * change.
     *
     * @throws StorageException when it cannot be removed: the change must not happen, since a crash would leave a
     *     manifest that looks valid but is stale.
     */
    synchronized void invalidate()
    {
        if (!onDisk)
        {
            return;
        }
        try
        {
            io.delete(directory.resolve(StoreManifest.FILE));
            io.syncDirectory(directory);
            onDisk = false;
        }
        catch (final IOException e)
        {
            throw new StorageException("store " + directory + ": cannot remove the store manifest before a log " +
                "changes (" + IoErrorText.describe(e) + "); nothing was changed", e);
        }
    }

    boolean knowsAllLogs()
    {
        return knowsAllLogs;
    }

    /**
     * A log's load failed part-way: what its files hold is no longer known, so this store writes no manifest at
     * its close, and the next open reads every log from its files.
     */
    void spoil()
    {
        spoiled = true;
    }

    /** @return the handle of a known, unloaded log, or null. */
    LazyLog unloaded(final String name)
    {
        return unloaded.get(name);
    }

    /** A handle closed before its log was loaded: the next asker gets a fresh one over the same facts. */
    LazyLog reopen(final LazyLog closed, final Function<LazyLog, DefaultLog> loader)
    {
        final LazyLog fresh = new LazyLog(closed.facts(), loader);
        unloaded.replace(closed.name(), closed, fresh);
        return unloaded.get(closed.name());
    }

    /** The log is loaded, or deleted: it leaves the unloaded logs. */
    void remove(final String name)
    {
        unloaded.remove(name);
    }

    Set<String> unloadedNames()
    {
        return unloaded.keySet();
    }

    /** @return the known, unloaded logs by name (a live view). */
    Map<String, LazyLog> unloadedLogs()
    {
        return unloaded;
    }

    /**
     * Writes the manifest after a clean close of every loaded log: their facts and the unloaded logs'. Last in the
     * store's close; a failure leaves no valid manifest, and the next open recovers every log from its files.
     *
     * @param loaded the closed logs' facts.
     */
    void write(final List<LogFacts> loaded)
    {
        synchronized (this)
        {
            if (onDisk || spoiled)
            {
                return; // still true (opened from it, nothing changed since), or nothing true can be written
            }
        }
        final List<LogFacts> all = new ArrayList<>(loaded);
        unloaded.values().forEach(l -> all.add(l.facts()));
        try
        {
            StoreManifest.write(io, directory, all);
        }
        catch (final IOException e)
        {
            LOG.log(System.Logger.Level.WARNING, "store " + directory + ": the manifest could not be written (" +
                IoErrorText.describe(e) + "): the next open opens every log from its files");
        }
    }
}
