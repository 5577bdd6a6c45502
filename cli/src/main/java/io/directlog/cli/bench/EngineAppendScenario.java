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
 * durability, each waiting for its own append's callback before the next (closed loop), at 1 and at 16 producers
 * (each producer waits with the engine's {@link AppendWaiter}: it polls for its acknowledgement, yielding its core,
 * for a budget adapted to its recent waits, then parks). The latency of a row is the producer's: from the append call
 * until the waiter returns the offset.
 * One producer shows the latency of a lone append; sixteen show what group commit makes of the same device.
 * <p>
 * Immutable; {@link #run} is called by one thread at a time.
 */
final class EngineAppendScenario implements Scenario
{
    static final int RECORD_BYTES = 100;
    static final long MEMORY_BUDGET = 256L << 20;
    static final int SEGMENT_BYTES = 64 << 20;

    private final Durability durability;

    EngineAppendScenario(final Durability durability)
    {
        this.durability = durability;
    }

    @Override
    public String name()
    {
        return "engine-" + durability.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String summary()
    {
        return "the engine appending 100 B " + durability + " records, closed loop, 1 and 16 producers";
    }

    @Override
    public int recordBytes()
    {
        return RECORD_BYTES;
    }

    @Override
    public List<Integer> threadCounts()
    {
        return List.of(1, 16);
    }

    @Override
    public void run(final BenchContext context, final RowSink rows) throws Exception
    {
        try (LogStore store = EngineStores.open(context.scenarioDirectory(name()), MEMORY_BUDGET))
        {
            final Log log = store.log(EngineStores.LOG_NAME,
                LogConfig.builder().segmentSize(SEGMENT_BYTES).durability(durability).build());
            final Durability effective = log.effectiveDurability(durability);
            // On a copy-on-write filesystem (or without O_DIRECT) the engine upgrades DIRECT: say so in the row.
            final String note = effective == durability ? null : durability + " acts as " + effective + " here";
            context.settle();
            for (final int producers : threadCounts())
            {
                final Measurement m = LoadDriver.closedLoop(context, producers, RECORD_BYTES, thread ->
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
                rows.add(producers, m, note);
            }
        }
    }
}
