package io.directlog.benchmarks.log;

import io.directlog.benchmarks.BenchDirs;
import io.directlog.benchmarks.Payloads;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A store in its own benchmark directory with one log, opened, refilled and reopened the same way by every
 * engine suite.
 * <p>
 * Not thread-safe; set up and torn down by JMH on one thread.
 */
final class EngineFixture implements AutoCloseable
{
    static final String LOG_NAME = "bench";
    /** How long a harness waits for acknowledgements before it fails the benchmark rather than hang it: 30 s. */
    static final long ACK_TIMEOUT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    /** Overrides the store's read-ahead bytes (0: off), to measure what read-ahead is worth. */
    static final String READ_AHEAD_PROP_NAME = "directlog.bench.readAheadBytes";
    /** Overrides where the store's writers run (auto, none, or a CPU list), to measure what pinning is worth. */
    static final String WRITER_CPUS_PROP_NAME = "directlog.bench.writerCpus";

    private final Path dir;
    private final LogConfig logConfig;
    private LogStore store;
    private Log log;

    /**
     * @param prefix       names the suite's directory.
     * @param memoryBudget the store's memory budget.
     * @param logConfig    the log's settings.
     */
    EngineFixture(final String prefix, final long memoryBudget, final LogConfig logConfig)
    {
        this.dir = BenchDirs.create(prefix);
        this.logConfig = logConfig;
        open(memoryBudget);
    }

    Log log()
    {
        return log;
    }

    LogStore store()
    {
        return store;
    }

    /**
     * Closes the store (flushing everything) and opens it again with another budget: what was written is no
     * longer resident.
     */
    void reopen(final long memoryBudget)
    {
        store.close();
        open(memoryBudget);
    }

    /**
     * Appends seeded records until {@code bytes} of payload are written: pipelined (at most
     * {@link EngineAppendPipelinedBenchmark#WINDOW} unacknowledged), MEMORY acknowledgements; the store's close or
     * reopen makes them durable.
     *
     * @return the log's end offset.
     */
    long fill(final long bytes, final int recordSize)
    {
        final UnsafeBuffer record = directRecord(recordSize);
        final java.util.concurrent.atomic.AtomicLong acknowledged = new java.util.concurrent.atomic.AtomicLong();
        final java.util.concurrent.atomic.AtomicReference<Throwable> failure =
            new java.util.concurrent.atomic.AtomicReference<>();
        final io.directlog.storage.AppendCallback callback = (offset, error) ->
        {
            if (error != null)
            {
                failure.compareAndSet(null, error);
            }
            acknowledged.incrementAndGet();
        };
        long sent = 0;
        for (long written = 0; written < bytes; written += recordSize)
        {
            while (sent - acknowledged.get() >= EngineAppendPipelinedBenchmark.WINDOW)
            {
                Thread.yield();
            }
            log.append(record, 0, recordSize, Durability.MEMORY, callback);
            sent++;
        }
        final long deadline = System.nanoTime() + ACK_TIMEOUT_NANOS;
        while (acknowledged.get() < sent)
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("fill: appends not acknowledged within 30 s");
            }
            Thread.yield();
        }
        if (failure.get() != null)
        {
            throw new IllegalStateException("fill: an append failed: " + failure.get(), failure.get());
        }
        return log.endOffset();
    }

    static UnsafeBuffer directRecord(final int recordSize)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(recordSize));
        buffer.putBytes(0, Payloads.random(recordSize));
        return buffer;
    }

    @Override
    public void close()
    {
        closeAndDelete(store, dir);
    }

    /**
     * A trial's tear-down: closes its store, if it opened, and deletes the store's directory even when the close
     * throws, so a failed trial leaves no segment files behind.
     */
    static void closeAndDelete(final LogStore store, final Path dir)
    {
        try
        {
            if (store != null)
            {
                store.close();
            }
        }
        finally
        {
            BenchDirs.delete(dir);
        }
    }

    private void open(final long memoryBudget)
    {
        store = LogStore.open(StoreConfig.builder(dir).memoryBudget(memoryBudget)
            .readAheadBytes(Long.getLong(READ_AHEAD_PROP_NAME, StoreConfig.READ_AHEAD_BYTES_DEFAULT))
            .writerCpus(System.getProperty(WRITER_CPUS_PROP_NAME, StoreConfig.WRITER_CPUS_AUTO)).build());
        log = store.log(LOG_NAME, logConfig);
    }
}
