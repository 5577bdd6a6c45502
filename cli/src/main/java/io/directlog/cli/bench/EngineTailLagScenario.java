package io.directlog.cli.bench;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;

/**
 * {@code tail-lag-memory-10k} ... {@code tail-lag-dsync-1m}: one writer appending 100 B MEMORY records at a fixed
 * rate (open loop: each record has its due time, and a writer that falls behind sends at once to catch up) while
 * one reader follows the tail with read/awaitAppend. The latency is the visibility lag: from the record's due time
 * (in its payload) to the read that returned it. In a MEMORY log a record is visible once copied; in a DSYNC log
 * only once durable under DSYNC, which a waiting reader brings forward (about one {@code flushInterval}, 50 ms by
 * default; the target is a p99 of at most two). Default log config otherwise.
 * <p>
 * Immutable; {@link #run} is called by one thread at a time.
 */
final class EngineTailLagScenario implements Scenario
{
    /** Below this gap to its next due time the writer spins instead of parking (a park overshoots by ~50 us). */
    private static final long SPIN_BELOW_NANOS = 100_000;

    private final Durability logDurability;
    private final int recordsPerSecond;

    /**
     * @param logDurability    the log's default durability (its visibility rule); appends are MEMORY.
     * @param recordsPerSecond the writer's rate.
     */
    EngineTailLagScenario(final Durability logDurability, final int recordsPerSecond)
    {
        this.logDurability = logDurability;
        this.recordsPerSecond = recordsPerSecond;
    }

    @Override
    public String name()
    {
        final String rate = recordsPerSecond % 1_000_000 == 0 ? recordsPerSecond / 1_000_000 + "m" :
            recordsPerSecond / 1000 + "k";
        return "tail-lag-" + logDurability.name().toLowerCase(Locale.ROOT) + "-" + rate;
    }

    @Override
    public String summary()
    {
        return "a reader behind a writer of 100 B MEMORY records at " + String.format(Locale.ROOT, "%,d",
            recordsPerSecond) + "/s (open loop) in a " + logDurability + " log; latency: due time to read";
    }

    @Override
    public int recordBytes()
    {
        return EngineTailReadScenario.RECORD_BYTES;
    }

    @Override
    public List<Integer> threadCounts()
    {
        return List.of(1);
    }

    @Override
    public void run(final BenchContext context, final RowSink rows) throws Exception
    {
        try (LogStore store = EngineStores.open(context.scenarioDirectory(name()), EngineAppendScenario.MEMORY_BUDGET))
        {
            final Log log = store.log(EngineStores.LOG_NAME, LogConfig.builder().durability(logDurability).build());
            context.settle();
            final Phases phases = new Phases();
            final Writer writer = new Writer(log, phases, 1_000_000_000L / recordsPerSecond);
            rows.add(1, EngineTailReadScenario.Reader.follow(context, phases, log, writer), writer.behindNote());
        }
    }

    /** Appends MEMORY records at their due times; stamps each with its due time, not its send time. */
    private static final class Writer extends TailWriter
    {
        private final long periodNanos;
        /** How far behind its schedule the writer was at most: read after join. */
        private long maxBehindNanos;

        Writer(final Log log, final Phases phases, final long periodNanos)
        {
            super(log, phases);
            this.periodNanos = periodNanos;
        }

        String behindNote()
        {
            return String.format(Locale.ROOT, "open loop, MEMORY appends; latency: due time to read; writer at most " +
                "%.1f ms behind schedule", maxBehindNanos / 1e6);
        }

        @Override
        protected void appendUntilStopped()
        {
            long due = System.nanoTime();
            while (!phases.stopped())
            {
                long now = System.nanoTime();
                while (due - now > 0 && !phases.stopped())
                {
                    if (due - now > SPIN_BELOW_NANOS)
                    {
                        LockSupport.parkNanos(due - now - SPIN_BELOW_NANOS / 2);
                    }
                    else
                    {
                        Thread.onSpinWait();
                    }
                    now = System.nanoTime();
                }
                if (phases.measuring())
                {
                    maxBehindNanos = Math.max(maxBehindNanos, now - due);
                }
                append(due);
                due += periodNanos;
            }
        }
    }
}
