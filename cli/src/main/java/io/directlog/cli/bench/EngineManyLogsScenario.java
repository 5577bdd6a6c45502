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
 * {@code engine-many-logs}: 16 producers appending 100 B DSYNC records, closed loop as in {@code engine-dsync}, but
 * spread evenly over 1,000 logs of one store (1 GiB budget, default log settings): producer {@code p} owns logs
 * {@code p, p+16, p+32, ...} and cycles through them. Its "vs" is against engine-dsync at 16 producers of the same
 * run (one log): group commit across logs that share a writer thread should keep at least 80% of it (issue 18).
 * <p>
 * Every log is opened and given one append before the row starts (see {@link ManyLogs}); the disk guard is asked
 * between logs and every 1,024 appends of each producer.
 * <p>
 * Immutable; {@link #run} is called by one thread at a time.
 */
final class EngineManyLogsScenario implements Scenario
{
    static final String NAME = "engine-many-logs";
    static final int LOGS_DEFAULT = 1_000;
    static final int PRODUCERS = 16;
    private static final int GUARD_EVERY = 1024;

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public String summary()
    {
        return "16 producers appending 100 B DSYNC records spread over 1,000 logs of one store (--logs N)";
    }

    @Override
    public int recordBytes()
    {
        return ManyLogs.RECORD_BYTES;
    }

    @Override
    public List<Integer> threadCounts()
    {
        return List.of(PRODUCERS);
    }

    @Override
    public void run(final BenchContext context, final RowSink rows) throws Exception
    {
        final int count = context.logs(LOGS_DEFAULT);
        final DiskGuard guard = DiskGuard.forDirectory(context.directory());
        try (LogStore store = EngineStores.open(context.scenarioDirectory(name()), ManyLogs.MEMORY_BUDGET))
        {
            context.progress("opening " + count + " logs, one DSYNC append each");
            final LogConfig config = context.manyLogsConfig().durability(Durability.DSYNC).build();
            final List<Log> logs = ManyLogs.openAndAppend(store, count, config, 1, Durability.DSYNC, guard);
            context.settle();
            final long[] before = rollsAndStalls(logs);
            final Measurement m = LoadDriver.closedLoop(context, PRODUCERS, ManyLogs.RECORD_BYTES, thread ->
            {
                final Log[] own = slice(logs, thread, PRODUCERS).toArray(new Log[0]);
                final UnsafeBuffer payload = ManyLogs.payload(thread);
                final AppendWaiter waiter = new AppendWaiter();
                return new LoadDriver.Operation()
                {
                    private int next;
                    private int sinceCheck;

                    @Override
                    public long runOnce() throws Exception
                    {
                        if (++sinceCheck == GUARD_EVERY)
                        {
                            sinceCheck = 0;
                            guard.check("appending with producer " + thread);
                        }
                        final Log log = own[next];
                        next = next + 1 == own.length ? 0 : next + 1;
                        final long start = System.nanoTime();
                        waiter.append(log, payload, 0, ManyLogs.RECORD_BYTES, Durability.DSYNC);
                        return System.nanoTime() - start;
                    }
                };
            });
            final long[] after = rollsAndStalls(logs);
            final Log first = logs.get(0);
            final Durability effective = first.effectiveDurability(Durability.DSYNC);
            rows.add(PRODUCERS, m, String.format(Locale.ROOT, "%,d logs of %s segments, %,d rolls, %,d stalls%s",
                count, ManyLogsFootprintScenario.mib(config.segmentSize()), after[0] - before[0],
                after[1] - before[1],
                effective == Durability.DSYNC ? "" : ", DSYNC acts as " + effective + " here"));
        }
    }

    /**
     * Segment rolls and preparer stalls (a roll that found no prepared file and waited) summed over the logs: the
     * row reports those of its measured window, since rolls of small first segments are a cost of many logs.
     */
    static long[] rollsAndStalls(final List<Log> logs)
    {
        long rolls = 0;
        long stalls = 0;
        for (final Log log : logs)
        {
            rolls += log.stats().segmentRolls();
            stalls += log.stats().preparerStalls();
        }
        return new long[] {rolls, stalls};
    }

    /**
     * @param all       every log.
     * @param producer  a producer's index.
     * @param producers how many producers.
     * @return the logs this producer cycles through: every {@code producers}-th from its own index, or, with fewer
     * logs than producers, the one log it shares with others.
     */
    static <T> List<T> slice(final List<T> all, final int producer, final int producers)
    {
        if (all.size() <= producer)
        {
            return List.of(all.get(producer % all.size()));
        }
        final List<T> own = new java.util.ArrayList<>();
        for (int i = producer; i < all.size(); i += producers)
        {
            own.add(all.get(i));
        }
        return own;
    }
}
