package io.directlog.storage;

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
     * @throws StorageException     when the directory cannot be used, or when the JVM was started without
     *                              {@code --add-opens java.base/jdk.internal.misc=ALL-UNNAMED} (Agrona 2 needs it;
     *                              the message names the flag).
     */
    static LogStore open(final StoreConfig config)
    {
        io.directlog.storage.internal.JvmAccess.check();
        return io.directlog.storage.internal.StoreEngine.open(config);
    }

    /**
     * Opens a log, or creates it with the store's default {@link LogConfig}.
     *
     * @param name the log's name: letters, digits, '.', '_' and '-', at most 200 characters.
     * @return the log, shared by every caller asking for the same name.
     */
    Log log(String name);

    /**
     * Opens a log, or creates it with {@code config}. An existing log keeps its segment size; its other
     * settings are taken from {@code config}.
     *
     * @param name   the log's name.
     * @param config the log's settings.
     * @return the log.
     */
    Log log(String name, LogConfig config);

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

    /** Closes every log cleanly (flushes, records clean shutdown), stops the threads, frees the memory. Idempotent. */
    @Override
    void close();
}
