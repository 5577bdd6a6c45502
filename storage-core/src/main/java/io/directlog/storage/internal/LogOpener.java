package io.directlog.storage.internal;

import java.io.IOException;
import java.nio.file.Path;

import io.directlog.storage.DeviceInfo;
import io.directlog.storage.Durability;
import io.directlog.storage.LogConfig;
import io.directlog.storage.MemoryBudgetExceededException;
import io.directlog.storage.StorageException;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.cache.PageCache;
import io.directlog.storage.log.DefaultLog;
import io.directlog.storage.log.LogConfigFile;
import io.directlog.storage.log.LogContext;
import io.directlog.storage.log.LogEvents;
import io.directlog.storage.log.LogFacts;
import io.directlog.storage.log.LogMeta;
import io.directlog.storage.log.LogOpening;
import io.directlog.storage.log.ReadAhead;
import io.directlog.storage.log.SegmentFiles;
import io.directlog.storage.log.SegmentPreparer;
import io.directlog.storage.page.ReadBufferPool;
import io.directlog.storage.spi.BlockIo;

/**
 * Opens one log of a store: settles its config (persisted, asked for, or the store's default), checks that a
 * write page of it fits the memory budget before any file is written, pins it to a writer and opens (and
 * recovers) it with the parts it shares with the store.
 * <p>
 * Thread-safe: several logs open at once when the store opens (see {@link LogRegistry#openExisting}); the
 * registry keeps two from opening the same log.
 */
final class LogOpener
{
    private static final System.Logger LOG = System.getLogger(LogOpener.class.getName());

    private final StoreConfig config;
    private final Path directory;
    private final BlockIo io;
    private final DeviceInfo deviceInfo;
    private final PageCache cache;
    private final ReadBufferPool readBuffers;
    private final SegmentPreparer preparer;
    private final ReadAhead readAhead;
    private final LogWriters writers;
    private final LogEvents events;

    LogOpener(final StoreConfig config, final Path directory, final IoSelection selection, final PageCache cache,
        final ReadBufferPool readBuffers, final SegmentPreparer preparer, final ReadAhead readAhead,
        final LogWriters writers, final LogEvents events)
    {
        this.config = config;
        this.directory = directory;
        this.io = selection.io();
        this.deviceInfo = selection.deviceInfo();
        this.cache = cache;
        this.readBuffers = readBuffers;
        this.preparer = preparer;
        this.readAhead = readAhead;
        this.writers = writers;
        this.events = events;
    }

    /**
     * Opens a log with its persisted config, or the store's default when it has none ({@code asked} null), or
     * with {@code asked}, persisted first when it differs. Checks before any file is written that one write page
     * of the log fits the memory budget.
     */
    DefaultLog open(final String name, final LogConfig asked)
    {
        return open(name, asked, null);
    }

    /**
     * Opens a log the store manifest describes, with its persisted config (or the store's default): its segment
     * size and everything its files' headers and checkpoint would say come from {@code facts}
     * ({@link io.directlog.storage.log.LogOpening#openKnown}).
     */
    DefaultLog openKnown(final String name, final LogFacts facts)
    {
        return open(name, null, facts);
    }

    private DefaultLog open(final String name, final LogConfig asked, final LogFacts facts)
    {
        final LogContext context = new LogContext(io, cache, readBuffers, writers.next(), preparer,
            config.appendTimeout(), deviceInfo.copyOnWrite(), config.recoveryMode(), readAhead, events,
            config.pageIdleRelease());
        final Path dir = directory.resolve(name);
        final LogConfig logConfig;
        try
        {
            logConfig = settleConfig(name, dir, asked, facts == null ? -1 : facts.segmentSize());
        }
        catch (final IOException e)
        {
            throw cannotOpen(name, e);
        }
        if (logConfig.durability() == Durability.DIRECT && deviceInfo.volatileWriteCache())
        {
            LOG.log(System.Logger.Level.WARNING, "log '" + name + "' defaults to DIRECT on a device with a " +
                "volatile write cache (" + deviceInfo.device() + "): safe against process and OS crashes only, " +
                "not power loss; DSYNC is safe on any drive");
        }
        try
        {
            return facts == null ? LogOpening.open(name, dir, context, logConfig) :
                LogOpening.openKnown(name, dir, context, logConfig, facts);
        }
        catch (final IOException e)
        {
            throw cannotOpen(name, e);
        }
    }

    /** @return the config the log opens with, persisted first when it was asked for and differs. */
    private LogConfig settleConfig(final String name, final Path dir, final LogConfig asked, final int known)
        throws IOException
    {
        final LogConfig stored = LogConfigFile.read(io, dir, name);
        final int segmentSize = segmentSize(name, dir, asked, stored, known);
        final LogConfig logConfig;
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
        return logConfig;
    }

    /**
     * @param known the segment size the store manifest records, or -1 to read it from {@code log.meta}.
     * @return the log's segment size: fixed by its files once it exists; checked against {@code asked} and
     * against the memory budget (a write page is a segment).
     */
    private int segmentSize(final String name, final Path dir, final LogConfig asked, final LogConfig stored,
        final int known) throws IOException
    {
        final boolean exists = known > 0 || io.exists(dir.resolve(SegmentFiles.META_FILE));
        final int segmentSize = known > 0 ? known : exists ? LogMeta.read(io, dir, name).segmentSize() :
            (asked != null ? asked : stored != null ? stored : config.defaultLogConfig()).segmentSize();
        if (asked != null && asked.segmentSize() != segmentSize)
        {
            throw new IllegalArgumentException("log '" + name + "' has segmentSize " + segmentSize + "; it is " +
                "fixed when the log is created and cannot change (asked " + asked.segmentSize() + ")");
        }
        checkWritePageFits(name, segmentSize);
        return segmentSize;
    }

    /**
     * @throws MemoryBudgetExceededException when one write page of the log (a segment) is larger than the budget.
     */
    void checkWritePageFits(final String name, final int segmentSize)
    {
        final long budget = cache.pool().budget();
        if (segmentSize > budget)
        {
            throw new MemoryBudgetExceededException("log '" + name + "' needs a write " +
                "page of its segment size, " + segmentSize + " bytes, but the store's memory budget is " +
                budget + " bytes: raise StoreConfig.memoryBudget or use smaller segments");
        }
    }

    private StorageException cannotOpen(final String name, final IOException e)
    {
        return new StorageException("cannot open log '" + name + "' in " + directory + ": " +
            IoErrorText.describe(e), e);
    }
}
