package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Path;

import io.directlog.storage.LogClosedException;
import io.directlog.storage.LogConfig;
import io.directlog.storage.StorageException;

/**
 * One log's current settings: every part reads them (a volatile read, no lock); {@link #reconfigure} persists new
 * ones first and applies them after, so a crash in between reopens the log with what every holder was told.
 * <p>
 * Thread-safe: reconfigure is serialised by its own lock (the file and the field change together), which is
 * never held while taking another.
 */
final class LogSettings
{
    private final String name;
    private final Path dir;
    private final LogContext context;
    private final LogMeta meta;
    private final LogLifecycle lifecycle;
    /** Serialises reconfigure(): the file and the field change together. */
    private final Object reconfigureLock = new Object();
    private volatile LogConfig config;

    LogSettings(final String name, final Path dir, final LogContext context, final LogMeta meta,
        final LogLifecycle lifecycle, final LogConfig config)
    {
        this.name = name;
        this.dir = dir;
        this.context = context;
        this.meta = meta;
        this.lifecycle = lifecycle;
        this.config = config;
    }

    /** @return the settings now. Any thread. */
    LogConfig config()
    {
        return config;
    }

    /**
     * @param newConfig the new settings (the segment size cannot change).
     * @throws LogClosedException once the log is closing.
     * @throws StorageException when the settings cannot be persisted (the log keeps its settings).
     */
    void reconfigure(final LogConfig newConfig)
    {
        if (newConfig == null)
        {
            throw new NullPointerException("config must not be null");
        }
        if (newConfig.segmentSize() != meta.segmentSize())
        {
            throw new IllegalArgumentException("log '" + name + "' has segmentSize " + meta.segmentSize() +
                "; it is fixed when the log is created and cannot change (asked " + newConfig.segmentSize() + ")");
        }
        // persisted first, applied after: a crash in between reopens the log with what every holder was told
        synchronized (reconfigureLock)
        {
            if (lifecycle.isClosing())
            {
                throw new LogClosedException("log '" + name + "' is closed; reopen it with store.log(name, config)");
            }
            try
            {
                LogConfigFile.write(context.io(), dir, newConfig);
            }
            catch (final IOException e)
            {
                throw new StorageException("cannot persist the config of log '" + name + "' in " + dir + ": " +
                    e.getMessage() + "; the log keeps its settings", e);
            }
            config = newConfig;
        }
    }
}
