package io.directlog.storage.internal;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.directlog.storage.AppendCallback;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogClosedException;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogReader;
import io.directlog.storage.LogStats;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.RecoveryReport;
import io.directlog.storage.log.DefaultLog;
import io.directlog.storage.log.LogFacts;
import org.agrona.DirectBuffer;

/**
 * The handle of a log the store knows from its manifest but has not loaded: the store's open reads none of its
 * files, and its first use (an append, a read, any call but {@link #name()} and {@link #close()}) loads it through
 * the registry, which first makes the manifest invalid durably. From then on every call goes to the loaded log.
 * <p>
 * Design note: a handle of its own rather than a {@link DefaultLog} built in two stages: a log's parts are built
 * from what its recovery found ({@link io.directlog.storage.log.RecoveredLog}), and a half-built log would make
 * every part answer "not loaded yet".
 * <p>
 * Thread-safe: the load runs on the first user's thread, once ({@link LazyLoads}); the loaded log is published
 * through a volatile field.
 */
final class LazyLog implements Log
{
    private final LogFacts facts;
    private final Function<LazyLog, DefaultLog> loader;
    private volatile DefaultLog loaded;
    /** Closed before it was loaded: nothing was open, and it stays unusable as a closed log does. */
    private volatile boolean closedUnloaded;

    /**
     * @param facts  what the manifest says of the log.
     * @param loader loads it (the registry's), returning the open log.
     */
    LazyLog(final LogFacts facts, final Function<LazyLog, DefaultLog> loader)
    {
        this.facts = facts;
        this.loader = loader;
    }

    LogFacts facts()
    {
        return facts;
    }

    /** @return the loaded log, or null. */
    DefaultLog loadedOrNull()
    {
        return loaded;
    }

    boolean isClosedUnloaded()
    {
        return closedUnloaded;
    }

    /**
     * Called once the log is loaded and published. A handle closed while its log loaded closes the log, as closing
     * a loaded one does ({@link #close} reads {@code loaded} after setting {@code closedUnloaded}, this reads
     * {@code closedUnloaded} after setting {@code loaded}: one of the two sees the other).
     */
    void loaded(final DefaultLog log)
    {
        loaded = log;
        if (closedUnloaded)
        {
            log.close();
        }
    }

    private Log log()
    {
        final DefaultLog log = loaded;
        if (log != null)
        {
            return log;
        }
        if (closedUnloaded)
        {
            throw new LogClosedException("log '" + facts.name() + "' is closed");
        }
        return loader.apply(this);
    }

    @Override
    public String name()
    {
        return facts.name();
    }

    @Override
    public LogConfig config()
    {
        return log().config();
    }

    @Override
    public void reconfigure(final LogConfig config)
    {
        log().reconfigure(config);
    }

    @Override
    public CompletableFuture<Long> append(final byte[] payload)
    {
        return log().append(payload);
    }

    @Override
    public CompletableFuture<Long> append(final byte[] payload, final Durability durability)
    {
        return log().append(payload, durability);
    }

    @Override
    public CompletableFuture<Long> append(final byte[] payload, final int recordCount, final Durability durability)
    {
        return log().append(payload, recordCount, durability);
    }

    @Override
    public CompletableFuture<Long> append(final ByteBuffer payload, final Durability durability)
    {
        return log().append(payload, durability);
    }

    @Override
    public void append(final DirectBuffer buffer, final int index, final int length, final Durability durability,
        final AppendCallback callback)
    {
        log().append(buffer, index, length, durability, callback);
    }

    @Override
    public void append(final DirectBuffer buffer, final int index, final int length, final int recordCount,
        final Durability durability, final AppendCallback callback)
    {
        log().append(buffer, index, length, recordCount, durability, callback);
    }

    @Override
    public long endOffset()
    {
        return log().endOffset();
    }

    @Override
    public long startOffset()
    {
        return log().startOffset();
    }

    @Override
    public long visibleEndOffset()
    {
        return log().visibleEndOffset();
    }

    @Override
    public RecordBatch read(final long offset, final int maxBytes)
    {
        return log().read(offset, maxBytes);
    }

    @Override
    public long offsetForTimestamp(final long timestampMillis)
    {
        return log().offsetForTimestamp(timestampMillis);
    }

    @Override
    public boolean awaitAppend(final long offset, final Duration timeout) throws InterruptedException
    {
        return log().awaitAppend(offset, timeout);
    }

    @Override
    public LogReader reader(final long offset)
    {
        return log().reader(offset);
    }

    @Override
    public void truncateTo(final long offset)
    {
        log().truncateTo(offset);
    }

    @Override
    public Durability effectiveDurability(final Durability requested)
    {
        return log().effectiveDurability(requested);
    }

    @Override
    public RecoveryReport recoveryReport()
    {
        return log().recoveryReport();
    }

    @Override
    public LogStats stats()
    {
        return log().stats();
    }

    @Override
    public boolean isWritable()
    {
        return !closedUnloaded && (loaded == null || loaded.isWritable());
    }

    /** Closes the loaded log; a log never loaded has nothing open, and this handle becomes a closed one. */
    @Override
    public void close()
    {
        closedUnloaded = true; // the registry's load checks it after this, or loaded is set before the read below
        final DefaultLog log = loaded;
        if (log != null)
        {
            log.close();
        }
    }

    @Override
    public String toString()
    {
        final DefaultLog log = loaded;
        return log != null ? log.toString() : "Log{" + facts.name() + ", not loaded}";
    }
}
