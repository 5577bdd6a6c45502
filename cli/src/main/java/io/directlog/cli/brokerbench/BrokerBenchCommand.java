package io.directlog.cli.brokerbench;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.directlog.cli.Command;
import io.directlog.cli.Main;
import io.directlog.kafka.baseline.BrokerUnderTest;
import io.directlog.kafka.baseline.DirectLogCluster;
import io.directlog.kafka.baseline.DirectLogNode;
import io.directlog.kafka.baseline.KafkaCluster;
import io.directlog.kafka.baseline.KafkaNode;
import io.directlog.kafka.baseline.load.LoadGenerator;

/**
 * {@code ./directlog bench-broker}: one system at a time in its own JVMs (Kafka with its defaults, Kafka with
 * {@code flush.messages=1 flush.ms=0} on the topics, DirectLog with its default DSYNC; for the replicated scenario
 * Kafka with three brokers and DirectLog's three-node cluster), each scenario on its own topic, the brokers' CPU read
 * from {@code /proc/<pid>/stat} around each measured phase ({@link BrokerPhase}). With {@code --from FILE} it runs
 * nothing and reports (table, pictures) a run's JSON instead. See {@link BrokerBenchOptions#USAGE}.
 */
public final class BrokerBenchCommand implements Command
{
    static final String SLF4J_LEVEL_PROP_NAME = "org.slf4j.simpleLogger.defaultLogLevel";
    static final List<String> BROKER_JVM_OPTIONS = List.of("-Xmx1g", "-Xms1g");
    static final Duration CLUSTER_START_TIMEOUT = Duration.ofMinutes(5);

    private final PrintStream out;
    private final PrintStream err;

    /** Writes the table to stdout and progress to stderr. */
    public BrokerBenchCommand()
    {
        this(System.out, System.err);
    }

    BrokerBenchCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name()
    {
        return "bench-broker";
    }

    @Override
    public String summary()
    {
        return "DirectLog's broker against Apache Kafka 4.4.0, same load, one broker at a time";
    }

    @Override
    public int run(final String[] args) throws Exception
    {
        final BrokerBenchOptions options = BrokerBenchOptions.parse(args);
        if (options.help())
        {
            out.print(BrokerBenchOptions.USAGE);
            return 0;
        }
        final long started = System.nanoTime();
        final List<BrokerBenchRow> rows;
        if (options.from() != null)
        {
            rows = BrokerBenchJson.read(options.from());
            out.print(BrokerBenchTable.format(rows));
        }
        else
        {
            rows = runAll(options);
            out.print(BrokerBenchTable.format(rows));
            out.printf(Locale.ROOT, "1 KiB records, acks=all, idempotent, linger.ms=1; %s per phase; MB = 10^6 " +
                "bytes; cpu s/GB = broker CPU seconds (all nodes) per 10^9 bytes written and read; loadgen CPU in " +
                "the JSON%n", options.measure().toSeconds() + " s");
        }
        if (options.jsonFile() != null)
        {
            BrokerBenchJson.write(options.jsonFile(), rows);
            err.println("bench-broker: wrote " + options.jsonFile());
        }
        if (options.plotDir() != null)
        {
            for (final Path file : BrokerBenchPlots.write(options.plotDir(), rows))
            {
                err.println("bench-broker: wrote " + file);
            }
        }
        err.printf(Locale.ROOT, "bench-broker: done in %.0f s%n", (System.nanoTime() - started) / 1e9);
        return rows.stream().allMatch(BrokerBenchRow::isMeasured) ? 0 : 1;
    }

    private List<BrokerBenchRow> runAll(final BrokerBenchOptions options)
    {
        // kafka-clients logs every client's config at INFO through slf4j-simple (on the classpath for KafkaNode's
        // child): keep progress on stderr readable, unless the caller chose a level
        if (System.getProperty(SLF4J_LEVEL_PROP_NAME) == null)
        {
            System.setProperty(SLF4J_LEVEL_PROP_NAME, "warn");
        }
        final List<BrokerBenchRow> rows = new ArrayList<>();
        final References refs = new References();
        for (final String system : options.systems())
        {
            final List<String> scenarios = options.scenariosFor(system);
            if (!scenarios.isEmpty())
            {
                runSystem(options, system, scenarios, rows, refs);
            }
        }
        return rows;
    }

    private void runSystem(final BrokerBenchOptions options, final String system, final List<String> scenarios,
        final List<BrokerBenchRow> rows, final References refs)
    {
        progress("starting " + system);
        final long t0 = System.nanoTime();
        final Running running;
        try
        {
            running = start(system, options);
        }
        catch (final Exception ex)
        {
            progress(system + " did not start: " + ex.getMessage());
            for (final String s : scenarios)
            {
                rows.add(BrokerBenchRow.failed(system, s, "replicated".equals(s) ? "throughput" : "publish",
                    partitions(s), BrokerPhase.PRODUCERS, BrokerPhase.RECORD_BYTES,
                    "broker did not start: " + firstLine(ex)));
            }
            return;
        }
        try (running; BrokerUnderTest node = running.node())
        {
            progress(String.format(Locale.ROOT, "%s ready in %.1f s: %s", system, (System.nanoTime() - t0) / 1e9,
                node));
            final LoadGenerator load = new LoadGenerator(node.bootstrap());
            final Map<String, String> topicConfigs = BrokerTargets.KAFKA_FSYNC.equals(system) ?
                Map.of("flush.messages", "1", "flush.ms", "0") : Map.of();
            double ownMax = Double.NaN;
            for (final String scenario : scenarios)
            {
                final BrokerPhase phase = new BrokerPhase(system, scenario, load, running.pids(), topicConfigs,
                    options, this::progress);
                try
                {
                    switch (scenario)
                    {
                        case "max-throughput" ->
                        {
                            final BrokerBenchRow row = phase.maxThroughput();
                            rows.add(row);
                            ownMax = row.msgsPerSec();
                            if (BrokerTargets.KAFKA.equals(system))
                            {
                                refs.kafkaMax = row.msgsPerSec();
                            }
                        }
                        case "fixed-rate" -> rows.addAll(phase.fixedRate(rate(options, refs.kafkaMax, ownMax)));
                        case "many-partitions" -> rows.addAll(phase.manyPartitions());
                        case "catch-up" -> rows.addAll(phase.catchUp(rate(options, refs.kafkaMax, ownMax)));
                        case "replicated" ->
                        {
                            final boolean kafka = BrokerTargets.KAFKA_RF3.equals(system);
                            final List<BrokerBenchRow> r = phase.replicated(kafka, own -> rate(options,
                                kafka ? own : refs.kafkaRf3Max, own, "kafka-rf3"));
                            if (kafka)
                            {
                                refs.kafkaRf3Max = r.get(0).msgsPerSec();
                            }
                            rows.addAll(r);
                        }
                        default -> throw new IllegalStateException("unknown scenario " + scenario);
                    }
                }
                catch (final Exception ex)
                {
                    progress(system + " " + scenario + " failed: " + ex);
                    rows.add(BrokerBenchRow.failed(system, scenario, "replicated".equals(scenario) ? "throughput" :
                        "publish", partitions(scenario), BrokerPhase.PRODUCERS, BrokerPhase.RECORD_BYTES,
                        firstLine(ex)));
                }
            }
        }
    }

    private static int partitions(final String scenario)
    {
        return "many-partitions".equals(scenario) ? BrokerPhase.MANY_PARTITIONS : BrokerPhase.PARTITIONS;
    }

    /** Starts one system: a broker, or for the replicated scenario a three-node cluster. */
    private static Running start(final String system, final BrokerBenchOptions options) throws Exception
    {
        final Path parent = options.dir() == null ? null :
            Files.createTempDirectory(Files.createDirectories(options.dir()), system + "-");
        switch (system)
        {
            case BrokerTargets.DIRECTLOG ->
            {
                final DirectLogNode n = DirectLogNode.start(parent != null ? parent :
                    Files.createTempDirectory("directlog-node-"), parent == null, withDirect(BROKER_JVM_OPTIONS));
                return new Running(n, List.of(n.pid()), parent);
            }
            case BrokerTargets.DIRECTLOG_RF3 ->
            {
                final DirectLogCluster c = DirectLogCluster.start(parent, BrokerPhase.REPLICAS,
                    "replicated:" + BrokerPhase.PARTITIONS, Main.class.getName(), withDirect(BROKER_JVM_OPTIONS));
                return new Running(c, c.pids(), parent);
            }
            case BrokerTargets.KAFKA_RF3 ->
            {
                // three Kafka JVMs starting at once under a load average of 33 took over two minutes (a node's
                // controller answered its peers only after ~2 min): the default 2-minute bound failed the start
                final KafkaNode.Config config = kafkaConfig(parent).startTimeout(CLUSTER_START_TIMEOUT)
                    .brokerProperty("min.insync.replicas", BrokerPhase.MIN_INSYNC_REPLICAS);
                final KafkaCluster c = KafkaCluster.start(config, BrokerPhase.REPLICAS);
                return new Running(c, c.pids(), parent);
            }
            default ->
            {
                final KafkaNode n = KafkaNode.start(kafkaConfig(parent));
                return new Running(n, List.of(n.pid()), parent);
            }
        }
    }

    private static KafkaNode.Config kafkaConfig(final Path dataDir)
    {
        final KafkaNode.Config config = new KafkaNode.Config().jvmOptions(BROKER_JVM_OPTIONS.toArray(String[]::new));
        return dataDir == null ? config : config.dataDir(dataDir);
    }

    private static List<String> withDirect(final List<String> options)
    {
        final List<String> all = new ArrayList<>(options);
        all.add("-XX:MaxDirectMemorySize=1g");
        all.addAll(extraBrokerOptions(System.getenv(BROKER_JAVA_OPTS_ENV)));
        return all;
    }

    /**
     * Extra JVM options for DirectLog's broker JVMs, e.g. {@code -XX:StartFlightRecording=filename=b.jfr}: the broker
     * runs in a child JVM, so a profile of the broker (issue 21's catch-up stall) needs its options passed through.
     */
    static final String BROKER_JAVA_OPTS_ENV = "DIRECTLOG_BROKER_JAVA_OPTS";

    /** @return the whitespace-separated options of {@code value}; none when it is null or blank. */
    static List<String> extraBrokerOptions(final String value)
    {
        if (value == null || value.isBlank())
        {
            return List.of();
        }
        return List.of(value.trim().split("\\s+"));
    }

    /** The fixed rate: --rate, else half of Kafka's max throughput, else (Kafka not run) half of this system's own. */
    static Rate rate(final BrokerBenchOptions options, final double kafkaMax, final double ownMax)
    {
        return rate(options, kafkaMax, ownMax, "kafka");
    }

    /** As {@link #rate(BrokerBenchOptions, double, double)}, the reference being {@code kafkaName}'s throughput. */
    static Rate rate(final BrokerBenchOptions options, final double kafkaMax, final double ownMax,
        final String kafkaName)
    {
        if (options.rate() > 0)
        {
            return new Rate(options.rate(), "rate from --rate");
        }
        if (kafkaMax > 0)
        {
            return new Rate(kafkaMax / 2, "50% of " + kafkaName + "'s max-throughput");
        }
        if (ownMax > 0)
        {
            return new Rate(ownMax / 2, "50% of its own max-throughput (" + kafkaName + " not run)");
        }
        throw new IllegalStateException("no rate: max-throughput was not measured and --rate was not given");
    }

    record Rate(double msgsPerSec, String source)
    {
        String note()
        {
            return String.format(Locale.ROOT, "open loop %,.0f msgs/s (%s)", msgsPerSec, source);
        }
    }

    private void progress(final String message)
    {
        err.println("bench-broker: " + message);
    }

    private static String firstLine(final Throwable ex)
    {
        final String m = String.valueOf(ex.getMessage());
        final int nl = m.indexOf('\n');
        return ex.getClass().getSimpleName() + ": " + (nl < 0 ? m : m.substring(0, nl));
    }

    /** A started system: what clients connect to, and every process whose CPU counts. */
    /**
     * A started system and, with --dir, the data directory made for it under DIR.
     *
     * @param dataDir deleted once the system stopped (it holds every byte the run wrote: 4-5 GiB per catch-up
     *                run at 2 GiB, so a few runs kept filled the disk), or null.
     */
    private record Running(BrokerUnderTest node, List<Long> pids, Path dataDir) implements AutoCloseable
    {
        @Override
        public void close()
        {
            if (dataDir == null || !Files.exists(dataDir))
            {
                return;
            }
            try (java.util.stream.Stream<Path> paths = Files.walk(dataDir))
            {
                for (final Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList())
                {
                    Files.deleteIfExists(p);
                }
            }
            catch (final java.io.IOException | java.io.UncheckedIOException e)
            {
                System.err.println("bench-broker: could not delete " + dataDir + ": " + e.getMessage());
            }
        }
    }

    /** The Kafka throughputs of this run that set the open-loop rates of the systems after them. */
    private static final class References
    {
        double kafkaMax = Double.NaN;
        double kafkaRf3Max = Double.NaN;
    }
}
