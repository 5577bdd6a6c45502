package io.directlog.storage.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

import io.directlog.storage.LogConfig;
import io.directlog.storage.StorageException;
import io.directlog.storage.log.DefaultLog;
import io.directlog.storage.log.NewLogFiles;
import io.directlog.storage.spi.BlockIo;

/**
 * Creates many new logs at once, for {@link io.directlog.storage.LogStore#logs} (a broker's topic of
 * 1,000 partitions): each new log's directory, {@code log.config}, {@code log.meta} and empty checkpoint
 * ({@link NewLogFiles}) and one fsync of each log's directory for its three renames, then the log's open, which
 * finds its files; several logs at a time.
 * <p>
 * Why: a log's first open writes the same files with a directory fsync after each, one log at a time under the
 * registry's lock, so 1,000 logs waited for some 10,000 journal commits and cache flushes in a row. Here the
 * content of each file is still fdatasync'ed before its rename and each directory fsync'ed after its renames (what
 * reliability.md's rules ask for a created or renamed file), but the syncs of different logs run at the same time,
 * and the filesystem serves concurrent fsyncs with shared journal commits and device flushes (ext4's jbd2 and
 * XFS's log force commit every waiting transaction at once; the block layer merges pending flushes). A single
 * syncfs(2) was not taken: it flushes every file of the filesystem, other programs' dirty data included, and the
 * engine's I/O seam and its crash model have no such call.
 * <p>
 * Durability: when {@link #create} returns, every new log's files and their names are durable (each directory
 * fsync'ed after its renames), and the store's directory was fsync'ed once after every new directory was made, so
 * their entries are too; each log's checkpoint has its first slot. That is what a log's first open through
 * {@link LogOpener} alone leaves, and no log is handed out before.
 * <p>
 * Thread-safety: called with the registry's lock held, so that no other open (or delete) meets a log whose files
 * are being written, and no two batches write one directory; its own threads create and open one log each at a
 * time ({@link LogOpener} is thread-safe), and the caller registers the opened logs on its own thread.
 */
final class NewLogBatch
{
    /**
     * Logs written at a time. Creating a log is waiting for the device (journal commits, cache flushes), not CPU,
     * and the more fsyncs wait together, the more each journal commit and flush serves.
     */
    static final int PARALLEL = 32;

    private final Path directory;
    private final BlockIo io;
    private final LogOpener opener;

    NewLogBatch(final Path directory, final BlockIo io, final LogOpener opener)
    {
        this.directory = directory;
        this.io = io;
        this.opener = opener;
    }

    /**
     * Creates and opens each log among {@code names} that has no directory yet; a log that has one is left to
     * the caller's open, which completes or recovers it.
     *
     * @param names  logs that are not open (valid, distinct names).
     * @param config their settings.
     * @param opened takes each log opened here, on the calling thread, before a failure is thrown.
     * @throws io.directlog.storage.MemoryBudgetExceededException before any file is written, when one write page
     *                                                            of such a log does not fit the budget.
     * @throws RuntimeException the first log's failure (all were tried), after {@code opened} took the others.
     */
    void create(final List<String> names, final LogConfig config, final Consumer<DefaultLog> opened)
    {
        if (names.isEmpty())
        {
            return;
        }
        opener.checkWritePageFits(names.get(0), config.segmentSize());
        final List<String> fresh = new ArrayList<>();
        try
        {
            final Set<Path> existing = new HashSet<>(io.listDirectories(directory));
            for (final String name : names)
            {
                if (!existing.contains(directory.resolve(name)))
                {
                    fresh.add(name);
                }
            }
        }
        catch (final IOException e)
        {
            throw new StorageException("cannot list store " + directory + ": " + IoErrorText.describe(e), e);
        }
        if (fresh.isEmpty())
        {
            return;
        }
        final List<DefaultLog> logs = new ArrayList<>(fresh.size());
        final RuntimeException failure = createInParallel(fresh, config, logs);
        try
        {
            // the new directories' entries, all at once; before any log is handed out (an append acknowledged in
            // a log whose directory a crash could still take away would be lost with it)
            io.syncDirectory(directory);
        }
        catch (final IOException e)
        {
            logs.forEach(DefaultLog::close);
            final StorageException thrown = new StorageException("cannot create logs in " + directory + ": " +
                IoErrorText.describe(e), e);
            if (failure != null)
            {
                thrown.addSuppressed(failure);
            }
            throw thrown;
        }
        logs.forEach(opened);
        if (failure != null)
        {
            throw failure;
        }
    }

    /** @return the first failure, once every log was tried; the logs opened are in {@code logs}. */
    private RuntimeException createInParallel(final List<String> fresh, final LogConfig config,
        final List<DefaultLog> logs)
    {
        final ExecutorService pool = Executors.newFixedThreadPool(Math.min(fresh.size(), PARALLEL), r ->
        {
            final Thread t = new Thread(r, "directlog-create");
            t.setDaemon(true);
            return t;
        });
        try
        {
            final List<Future<DefaultLog>> opening = new ArrayList<>(fresh.size());
            for (final String name : fresh)
            {
                opening.add(pool.submit(() -> createAndOpen(name, config)));
            }
            return collect(opening, logs::add);
        }
        finally
        {
            pool.shutdown();
        }
    }

    /**
     * One log: its directory, its files, one fsync of the directory for their three renames, then its open, which
     * finds them (and writes its checkpoint's first slot).
     */
    private DefaultLog createAndOpen(final String name, final LogConfig config)
    {
        final Path dir = directory.resolve(name);
        try
        {
            io.createDirectoryUnsynced(dir); // its entry is made durable with the others' (create)
            NewLogFiles.write(io, dir, config);
            io.syncDirectory(dir);
        }
        catch (final IOException e)
        {
            throw new StorageException("cannot create log '" + name + "' in " + directory + ": " +
                IoErrorText.describe(e), e);
        }
        return opener.open(name, config);
    }

    /**
     * Hands every log opened to {@code opened}, once every task ended (none is left running when the caller
     * throws or releases the registry's lock).
     *
     * @return the first failure, or null.
     */
    private RuntimeException collect(final List<Future<DefaultLog>> logs, final Consumer<DefaultLog> opened)
    {
        RuntimeException first = null;
        boolean interrupted = false;
        for (final Future<DefaultLog> f : logs)
        {
            while (true)
            {
                try
                {
                    opened.accept(f.get());
                    break;
                }
                catch (final ExecutionException e)
                {
                    if (first == null)
                    {
                        first = e.getCause() instanceof RuntimeException re ? re : new StorageException(
                            "cannot create logs in " + directory + ": " + e.getCause(), e.getCause());
                    }
                    break;
                }
                catch (final InterruptedException e)
                {
                    interrupted = true; // the tasks run on: wait for them, then say so
                }
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
        return first;
    }
}
