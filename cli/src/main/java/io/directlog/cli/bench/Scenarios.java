package io.directlog.cli.bench;

import java.util.List;
import java.util.stream.Collectors;

import io.directlog.storage.Durability;

/**
 * Every scenario, in the stable order of the table. Names never change: scripts compare runs by them.
 * <p>
 * Thread-safe (immutable).
 */
final class Scenarios
{
    static final List<Scenario> ALL = List.of(
        RawOverwriteScenario.direct(),
        RawOverwriteScenario.dsync(),
        new RawAppendSyncScenario(),
        new RawSequentialWriteScenario(),
        new RawSequentialReadScenario(),
        new EngineAppendScenario(Durability.DIRECT),
        new EngineAppendScenario(Durability.DSYNC),
        new EngineAppendScenario(Durability.MEMORY),
        new ApiAppendScenario(Durability.MEMORY, 100, List.of(1, 16)),
        new ApiAppendScenario(Durability.MEMORY, 1024, List.of(1, 16)),
        new ApiAppendScenario(Durability.DIRECT, 100, List.of(1, 16)),
        new ApiAppendScenario(Durability.DIRECT, 1024, List.of(1, 16)),
        new ApiAppendScenario(Durability.DIRECT, 4096, List.of(1)),
        new ApiAppendScenario(Durability.DSYNC, 100, List.of(1, 16, 64)),
        new ApiAppendScenario(Durability.DSYNC, 1024, List.of(1, 16)),
        new ApiAppendScenario(Durability.DSYNC, 4096, List.of(1)),
        new EngineTailReadScenario(),
        new EngineTailLagScenario(Durability.MEMORY, 10_000),
        new EngineTailLagScenario(Durability.MEMORY, 100_000),
        new EngineTailLagScenario(Durability.MEMORY, 1_000_000),
        new EngineTailLagScenario(Durability.DSYNC, 10_000),
        new EngineTailLagScenario(Durability.DSYNC, 100_000),
        new EngineTailLagScenario(Durability.DSYNC, 1_000_000),
        new EngineColdReadScenario(),
        new EngineManyLogsScenario(),
        new ManyLogsFootprintScenario(),
        new RocksDbSyncScenario());

    static final List<String> NAMES = ALL.stream().map(Scenario::name).toList();

    /**
     * The many-logs probes run only when named with {@code --only}: the engine does not hold hundreds of logs in its
     * default budget yet (issue 18; log 17 of a 1 GiB store gets no write page), so in a plain run they would only
     * fail, and the footprint probe would take minutes.
     */
    static final List<String> OPT_IN = List.of(EngineManyLogsScenario.NAME, ManyLogsFootprintScenario.NAME);

    /** What a plain {@code ./directlog bench} runs: every scenario but {@link #OPT_IN}. */
    static final List<String> DEFAULT_NAMES = NAMES.stream().filter(name -> !OPT_IN.contains(name)).toList();

    private Scenarios()
    {
    }

    /**
     * @param names names from {@link #NAMES}.
     * @return those scenarios, in table order.
     */
    static List<Scenario> select(final List<String> names)
    {
        return ALL.stream().filter(s -> names.contains(s.name())).toList();
    }

    /** @return one indented line per scenario: name and summary. */
    static String describe()
    {
        final int width = NAMES.stream().mapToInt(String::length).max().orElse(0);
        return ALL.stream()
            .map(s -> "  " + s.name() + " ".repeat(width - s.name().length()) + "  " + s.summary())
            .collect(Collectors.joining("\n"));
    }
}
