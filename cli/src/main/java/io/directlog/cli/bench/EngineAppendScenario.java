package io.directlog.cli.bench;

import java.util.List;
import java.util.Locale;

import org.agrona.concurrent.UnsafeBuffer;

import io.directlog.storage.AppendWaiter;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;

/**
 * {@code engine-direct}, {@code engine-dsync}, {@code engine-memory}: producers appending 100 B records with one
 * durability, each waiting for its own append's callback before the next (closed loop), at 1 and 16 producers (DSYNC
 * also at 64: issue 18's 5x RocksDB target). Each producer waits with the engine's {@link AppendWaiter}: it polls for
 * its acknowledgement, yielding its core, for a budget adapted to its recent waits, then parks. The latency of a row
 * is the producer's: from the append call until the waiter returns the offset.
 * One producer shows the latency of a lone append; sixteen show what group commit makes of the same device.
 * <p>
 * Measures what {@code EngineAppendBenchmark} (JMH) measures, so that the two tell the same story (issue 23): the same
 * store and log settings ({@link #APPEND_MEMORY_BUDGET}, {@link #logConfig}; {@code BenchMatchesJmhTest} holds them
 * equal), and, like a JMH trial, a fresh store for every row, measured once its preparer has readied the next segment
 * ({@link BenchContext#settle(Log, Durability)}). Before, the rows shared one store without retention, and the
 * 16-producer row ran on a log the 1-producer row had filled with one record per 4 KiB block.
 * <p>
 * Immutable; {@link #run} is called by one thread at a time.
 */
final class EngineAppendScenario implements Scenario
{
    static final int RECORD_BYTES = 100;
    /** The store budget of the other engine rows (api-*, tail-*). */
    static final long MEMORY_BUDGET = 256L << 20;
    /** The store budget of these rows: EngineAppendBenchmark's. */
    static final long APPEND_MEMORY_BUDGET = 512L << 20;
    static final int SEGMENT_BYTES = 64 << 20;
    /** Retention of these rows' log: EngineAppendBenchmark's, a log in steady state reusing its segment files. */
    static final long RETENTION_BYTES = 256L << 20;

    private final Durability durability;

    EngineAppendScenario(final Durability durability)
    {
        this.durability = durability;
    }

    /**
     * @return the log settings of these rows: 64 MiB segments from the first one (a log in steady state; a new log's
     *     growing first segments make the preparer zero-fill beside the appends, a transient JMH's
     *     {@code EngineAppendBenchmark.logConfig} explains), 256 MiB retention, the durability measured.
     */
    static LogConfig logConfig(final Durability durability)
    {
        return LogConfig.builder().segmentSize(SEGMENT_BYTES).initialSegmentSize(SEGMENT_BYTES).durability(durability)
            .retentionBytes(RETENTION_BYTES).build();
    }

    @Override
    public String name()
    {
        return "engine-" + durability.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String summary()
    {
        return "the engine appending 100 B " + durability + " records, closed loop, " + threadCounts() +
            " producers, a fresh store each";
    }

    @Override
    public int recordBytes()
    {
        return RECORD_BYTES;
    }

    @Override
    public List<Integer> threadCounts()
    {
        return durability == Durability.DSYNC ? List.of(1, 16, 64) : List.of(1, 16);
    }

    @Override
    public void run(final BenchContext context, final RowSink rows) throws Exception
    {
        for (final int producers : threadCounts())
        {
            try (LogStore store = EngineStores.open(context.scenarioDirectory(name()), APPEND_MEMORY_BUDGET))
            {
                final Log log = store.log(EngineStores.LOG_NAME, logConfig(durability));
                final Durability effective = log.effectiveDurability(durability);
                // On a copy-on-write filesystem (or without O_DIRECT) the engine upgrades DIRECT: say so in the row.
                final String note = effective == durability ? null : durability + " acts as " + effective + " here";
                context.settle(log, durability);
                rows.add(producers, measure(context, log, producers), note);
            }
        }
    }

    private Measurement measure(final BenchContext context, final Log log, final int producers) throws Exception
    {
        return LoadDriver.closedLoop(context, producers, RECORD_BYTES, thread ->
        {
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[RECORD_BYTES]);
            payload.setMemory(0, RECORD_BYTES, (byte)('a' + thread % 26));
            final AppendWaiter waiter = new AppendWaiter();
            return () ->
            {
                final long start = System.nanoTime();
                waiter.append(log, payload, 0, RECORD_BYTES, durability);
                return System.nanoTime() - start;
            };
        });
    }
}
