package io.directlog.cli.bench;

import java.util.List;
import java.util.Locale;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;

/**
 * {@code api-memory}, {@code api-direct}, {@code api-dsync} (100 B records) and their {@code -1k} and {@code -4k}
 * variants: the same closed loop as {@code engine-*} through the plain API a newcomer writes first,
 * {@code log.append(byte[], durability).join()}, with a default log config. What the future and its wait cost
 * against the callback path shows as the difference between the two rows of a run.
 * <p>
 * Immutable; {@link #run} is called by one thread at a time.
 */
final class ApiAppendScenario implements Scenario
{
    private final Durability durability;
    private final int recordBytes;
    private final List<Integer> threadCounts;

    /**
     * @param durability   what each append asks for (and the log's default).
     * @param recordBytes  payload bytes per append.
     * @param threadCounts producer counts, one row each.
     */
    ApiAppendScenario(final Durability durability, final int recordBytes, final List<Integer> threadCounts)
    {
        this.durability = durability;
        this.recordBytes = recordBytes;
        this.threadCounts = List.copyOf(threadCounts);
    }

    @Override
    public String name()
    {
        final String size = recordBytes == EngineAppendScenario.RECORD_BYTES ? "" :
            recordBytes % 1024 == 0 ? "-" + recordBytes / 1024 + "k" : "-" + recordBytes;
        return "api-" + durability.name().toLowerCase(Locale.ROOT) + size;
    }

    @Override
    public String summary()
    {
        return "append(byte[], " + durability + ").join() of " + (recordBytes % 1024 == 0 ? recordBytes / 1024 +
            " KiB" : recordBytes + " B") + " records, default log config, closed loop, " + threadCounts +
            " producers";
    }

    @Override
    public int recordBytes()
    {
        return recordBytes;
    }

    @Override
    public List<Integer> threadCounts()
    {
        return threadCounts;
    }

    @Override
    public void run(final BenchContext context, final RowSink rows) throws Exception
    {
        try (LogStore store = EngineStores.open(context.scenarioDirectory(name()), EngineAppendScenario.MEMORY_BUDGET))
        {
            final Log log = store.log(EngineStores.LOG_NAME, LogConfig.builder().durability(durability).build());
            final Durability effective = log.effectiveDurability(durability);
            final String note = effective == durability ? null : durability + " acts as " + effective + " here";
            context.settle(log, durability);
            for (final int producers : threadCounts)
            {
                final Measurement m = LoadDriver.closedLoop(context, producers, recordBytes, thread ->
                {
                    final byte[] payload = new byte[recordBytes];
                    java.util.Arrays.fill(payload, (byte)('a' + thread % 26));
                    return () ->
                    {
                        final long start = System.nanoTime();
                        log.append(payload, durability).join();
                        return System.nanoTime() - start;
                    };
                });
                rows.add(producers, m, note);
            }
        }
    }
}
