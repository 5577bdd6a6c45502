package io.directlog.cli.brokerbench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.directlog.cli.CommandLine;
import io.directlog.cli.UsageException;

/**
 * The parsed options of {@code ./directlog bench-broker}, and the durations they imply. Immutable once parsed.
 *
 * @param quick     the short run: seconds per phase instead of a minute, a 64 MiB backlog instead of 2 GiB.
 * @param jsonFile  where to write JSON lines, or null.
 * @param scenarios the scenarios to run, in order.
 * @param systems   the brokers to run, in order (Kafka first: fixed-rate needs its max throughput).
 * @param rate      the fixed rate in records/s, or 0 for half of Kafka's default max throughput of this run.
 * @param dir       where the brokers' data directories go (same filesystem for all), or null for the temp dir.
 * @param plotDir   where to write the pictures (SVG), or null for none.
 * @param from      a run's JSON to report instead of running, or null.
 * @param help      whether to print the usage and stop.
 * @param backlogMib the catch-up backlog in MiB, or 0 for the default of the run's length (2 GiB, 64 MiB quick).
 */
record BrokerBenchOptions(boolean quick, Path jsonFile, List<String> scenarios, List<String> systems, double rate,
                          Path dir, Path plotDir, Path from, boolean help, long backlogMib)
{
    /** The scenario that runs on the three-node systems only; every other runs on the single brokers only. */
    static final String REPLICATED = "replicated";
    /** The largest --backlog: 64 GiB. */
    static final long MAX_BACKLOG_MIB = 64L << 10;
    static final List<String> SCENARIOS = List.of("max-throughput", "fixed-rate", "many-partitions", "catch-up",
        REPLICATED);
    static final List<String> SYSTEMS = List.of(BrokerTargets.KAFKA, BrokerTargets.KAFKA_FSYNC,
        BrokerTargets.DIRECTLOG, BrokerTargets.KAFKA_RF3, BrokerTargets.DIRECTLOG_RF3);

    static final String USAGE = String.join("\n",
        "usage: ./directlog bench-broker [options]",
        "",
        "Runs DirectLog's broker and Apache Kafka 4.4.0 (defaults, then flush.messages=1 flush.ms=0) one at a time,",
        "each in its own JVM with a fresh data directory, under the same kafka-clients load (1 KiB records, acks=all,",
        "idempotent, linger.ms=1), and prints one table with DirectLog's ratios to Kafka and the verdicts against",
        "issue 21's targets. Then, for the replicated scenario, three Kafka brokers (kafka-rf3) and DirectLog's",
        "three-node cluster (directlog-rf3), issue 22's targets. Progress on stderr.",
        "",
        "options:",
        "  --quick               a few seconds per phase and a 64 MiB backlog (under 3 minutes on an idle machine)",
        "  --only NAME[,NAME]    run only these scenarios (fixed-rate and catch-up still measure max-throughput",
        "                        on the first system, for their rate, unless --rate is given)",
        "  --systems S[,S]       systems to run, from kafka, kafka-fsync, directlog (single brokers) and kafka-rf3,",
        "                        directlog-rf3 (three nodes each, for the replicated scenario); default: all five",
        "  --rate MSGS           the fixed rate in records/s (default: 50% of kafka's max-throughput in this run)",
        "  --backlog MIB         the catch-up backlog in MiB (default 2048; 64 with --quick): with --quick, a backlog",
        "                        over the broker's 512 MiB page budget gives a short run whose read goes to the disk",
        "  --dir DIR             parent of the brokers' data directories, each deleted when its broker stopped",
        "                        (default: java.io.tmpdir)",
        "  --json FILE           also write one JSON object per row and line to FILE",
        "  --plot DIR            also write the pictures to DIR: MB/s per system, latency percentile curves (SVG)",
        "  --from FILE           run nothing: print the table of a run's JSON (and --plot its pictures)",
        "  --help                this text",
        "",
        "scenarios: max-throughput (16 partitions, 4 producers, unthrottled), fixed-rate (open loop at the rate;",
        "publish and end-to-end latency), many-partitions (1,000 partitions, 10,000 records/s), catch-up (a consumer",
        "reads the backlog from the beginning while producers keep the rate; read MB/s and publish p99 with and",
        "without the read), replicated (16 partitions with 3 replicas on kafka-rf3 and directlog-rf3: MB/s",
        "unthrottled, then publish latency open loop at 50% of kafka-rf3's MB/s)",
        "",
        "exit code: 0 every row measured, 1 a row failed, 2 bad usage",
        "");

    static BrokerBenchOptions parse(final String[] args) throws UsageException
    {
        boolean quick = false;
        Path json = null;
        List<String> scenarios = SCENARIOS;
        List<String> systems = SYSTEMS;
        double rate = 0;
        long backlog = 0;
        Path dir = null;
        Path plot = null;
        Path from = null;
        final CommandLine line = new CommandLine(args);
        while (line.next())
        {
            switch (line.name())
            {
                case "--help", "-h" ->
                {
                    return new BrokerBenchOptions(false, null, SCENARIOS, SYSTEMS, 0, null, null, null, true, 0);
                }
                case "--quick" -> quick = line.flag();
                case "--json" -> json = Path.of(line.value());
                case "--dir" -> dir = Path.of(line.value());
                case "--plot" -> plot = Path.of(line.value());
                case "--from" -> from = Path.of(line.value());
                case "--only" -> scenarios = names(line.value(), SCENARIOS, line.name());
                case "--systems" -> systems = names(line.value(), SYSTEMS, line.name());
                case "--rate" ->
                {
                    rate = line.doubleValue("a positive number of records/s");
                    if (!(rate > 0) || Double.isInfinite(rate))
                    {
                        throw new UsageException("--rate must be a positive number of records/s, not " + rate);
                    }
                }
                case "--backlog" ->
                {
                    backlog = line.longValue("a positive number of MiB");
                    if (backlog <= 0 || backlog > MAX_BACKLOG_MIB)
                    {
                        throw new UsageException("--backlog must be 1 to " + MAX_BACKLOG_MIB + " MiB, not " + backlog);
                    }
                }
                default -> throw line.unknown();
            }
        }
        final BrokerBenchOptions options = new BrokerBenchOptions(quick, json, scenarios, systems, rate, dir, plot,
            from, false, backlog);
        if (from == null && systems.stream().allMatch(s -> options.scenariosFor(s).isEmpty()))
        {
            throw new UsageException("nothing to run: scenarios " + scenarios + " on systems " + systems + " (" +
                REPLICATED + " runs on " + BrokerTargets.KAFKA_RF3 + " and " + BrokerTargets.DIRECTLOG_RF3 +
                " only, the others on the single brokers only)");
        }
        return options;
    }

    /**
     * @param system a system of this run.
     * @return the scenarios it runs, in order: {@value #REPLICATED} on the three-node systems, the others on the
     *         single brokers, where the first single broker also measures max-throughput when fixed-rate or catch-up
     *         needs it for the rate (no --rate).
     */
    List<String> scenariosFor(final String system)
    {
        if (isCluster(system))
        {
            return scenarios.contains(REPLICATED) ? List.of(REPLICATED) : List.of();
        }
        final List<String> out = new ArrayList<>(scenarios);
        out.remove(REPLICATED);
        final boolean needsRate = out.contains("fixed-rate") || out.contains("catch-up");
        final String firstSingle = systems.stream().filter(s -> !isCluster(s)).findFirst().orElse(null);
        if (needsRate && rate == 0 && !out.contains("max-throughput") && system.equals(firstSingle))
        {
            out.add(0, "max-throughput");
        }
        return out;
    }

    static boolean isCluster(final String system)
    {
        return BrokerTargets.KAFKA_RF3.equals(system) || BrokerTargets.DIRECTLOG_RF3.equals(system);
    }

    Duration warmup()
    {
        return quick ? Duration.ofSeconds(2) : Duration.ofSeconds(10);
    }

    Duration measure()
    {
        return quick ? Duration.ofSeconds(6) : Duration.ofSeconds(60);
    }

    /** @return the catch-up backlog in bytes: --backlog, else 2 GiB, or 64 MiB with --quick. */
    long backlogBytes()
    {
        if (backlogMib > 0)
        {
            return backlogMib << 20;
        }
        return quick ? 64L << 20 : 2L << 30;
    }

    /** @return the longest the catch-up read may take: the run's default, or longer for a backlog given. */
    Duration readLimit()
    {
        final Duration byLength = quick ? Duration.ofSeconds(20) : Duration.ofMinutes(5);
        // a backlog read at 10 MB/s or faster finishes within the limit
        final Duration byBacklog = Duration.ofSeconds(backlogBytes() / 10_000_000L);
        return byBacklog.compareTo(byLength) > 0 ? byBacklog : byLength;
    }

    private static List<String> names(final String value, final List<String> known, final String option)
        throws UsageException
    {
        final List<String> out = new ArrayList<>();
        for (final String s : value.split(","))
        {
            final String n = s.trim();
            if (!known.contains(n))
            {
                throw new UsageException(option + ": unknown name '" + n + "'; known: " + String.join(", ", known));
            }
            if (!out.contains(n))
            {
                out.add(n);
            }
        }
        // keep the canonical order: Kafka before DirectLog, max-throughput before the rate-driven scenarios
        return known.stream().filter(out::contains).toList();
    }

}
