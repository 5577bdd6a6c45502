package io.directlog.storage;

import java.util.List;
import java.util.Set;

/**
 * Many named logs under one directory, sharing one memory budget (a pool of cache pages), one segment
 * preparer, one background syncer and a small pool of writer threads. Each log is pinned to one writer thread.
 * <p>
 * Thread-safe. Only one LogStore may hold a directory at a time, in this process or another.
 */
public interface LogStore extends AutoCloseable
{
    /**
     * Opens (or creates) a store, recovering every log found in it.
     *
     * @param config the store's settings.
     * @return the open store.
     * @throws StoreLockedException when another store holds the directory.
     * @throws CorruptLogException  when a log is damaged beyond what the recovery mode accepts.
     * @throws StorageException     when the directory cannot be used.
     */
    static LogStore open(final StoreConfig config)
    {
        return io.directlog.storage.internal.StoreEngine.open(config);
    }

    /**
     * Returns the open log, or opens it with the config persisted for it by {@link #log(String, LogConfig)} or
     * {@link Log#reconfigure}, or, for a log that never got a config of its own, with the store's default
     * {@link LogConfig} (such a log follows the default of each store session). A log closed with
     * {@link Log#close()} is opened again: the closed handle is not handed out.
     *
     * @param name the log's name: letters, digits, '.', '_' and '-', at most 200 characters.
     * @return the log, shared by every caller asking for the same name.
     * @throws NullPointerException           when name is null.
     * @throws IllegalArgumentException       when name is not a valid log name.
     * @throws MemoryBudgetExceededException  when one write page of the log (its segment size) is larger than the
     *                                        store's memory budget.
     * @throws CorruptLogException            when the log's files are damaged beyond the recovery mode.
     * @throws LogClosedException             when the store is closed.
     */
    Log log(String name);

    /**
     * Opens (or creates) a log with {@code config}, or returns it when it is already open with that config.
     * <ul>
     *   <li>A log with no holder (new, closed, or opened by the store at start and not yet returned by a
     *   {@code log} call) is opened with {@code config}, which is persisted first when it differs from the log's
     *   persisted one: a durable change. Every setting but {@link LogConfig#segmentSize()} may change so; a
     *   different segment size for an existing log is refused.</li>
     *   <li>A log that a {@code log} call already returned is returned again when {@code config} equals its
     *   config, and otherwise refused with {@link IllegalStateException} naming the settings that differ: a second
     *   opener must not change the durability or retention the other holders of the shared handle rely on.
     *   {@link Log#reconfigure} changes an open log for every holder.</li>
     * </ul>
     * The semantics are in docs/config.md, "Which LogConfig applies".
     *
     * @param name   the log's name.
     * @param config the log's settings.
     * @return the log.
     * @throws NullPointerException          when name or config is null.
     * @throws IllegalArgumentException      when name is not valid, or config changes an existing log's segment size.
     * @throws IllegalStateException         when the log is open with a different config.
     * @throws MemoryBudgetExceededException when one write page of the log is larger than the memory budget.
     */
    Log log(String name, LogConfig config);

    /**
     * Opens (or creates) several logs with one config, as {@link #log(String, LogConfig)} does for each, but
     * creates the new ones together (a broker's topic of 1,000 partitions): their files are written several at a
     * time, with the same syncs as one at a time, and the syncs of different logs share the filesystem's journal
     * commits and the device's flushes. When this returns, every new log is as durable as after
     * {@link #log(String, LogConfig)}: its directory, settings and identity survive a crash. A failure part-way
     * leaves the logs created so far in the store, each whole or completed at its next open.
     *
     * @param names  the logs' names, distinct.
     * @param config their settings.
     * @return the logs, in the order of {@code names}.
     * @throws NullPointerException          when names, a name or config is null.
     * @throws IllegalArgumentException      when a name is not valid or given twice, or config changes an
     *                                       existing log's segment size.
     * @throws IllegalStateException         when a log is open with a different config.
     * @throws MemoryBudgetExceededException when one write page of a log is larger than the memory budget (before
     *                                       any new log's file is written).
     * @throws StorageException              naming a log whose files could not be written.
     */
    List<Log> logs(List<String> names, LogConfig config);

    /** @return the names of every log in the store, open or not. */
    Set<String> logNames();

    /**
     * Deletes a log and all its files. Open handles of it fail with {@link LogClosedException}.
     *
     * @param name the log's name.
     * @return true when the log existed.
     */
    boolean deleteLog(String name);

    /** @return the device and filesystem under the store's directory, and what follows for durability. */
    DeviceInfo deviceInfo();

    /** @return the store's configuration. */
    StoreConfig config();

    /** @return a snapshot of the page cache's counters. */
    CacheStats cacheStats();

    /**
     * Closes every log cleanly (flushes, records clean shutdown), stops the threads, frees the memory. Idempotent.
     * Record batches still open keep their pages until they are closed.
     *
     * @throws IllegalStateException when called on a writer thread (inside an append callback): closing waits for
     *                               the writer threads.
     * @throws StorageException      when the close of one or more logs failed (they could not record a clean
     *                               shutdown, so the next open recovers them as after a crash). Thrown after
     *                               everything else is closed, the store included; its message names those logs.
     */
    @Override
    void close();
}
