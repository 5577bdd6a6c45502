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
import io.directlog.kafka.baseline.BrokerUnderTest;
import io.directlog.kafka.baseline.DirectLogNode;
import io.directlog.kafka.baseline.KafkaNode;
import io.directlog.kafka.baseline.load.LoadGenerator;
import io.directlog.kafka.baseline.load.PhaseResult;
import io.directlog.kafka.baseline.load.ProcessCpu;
import org.HdrHistogram.Histogram;

/**
 * {@code ./directlog bench-broker}: one broker at a time in its own JVM (Kafka with its defaults, Kafka with
 * {@code flush.messages=1 flush.ms=0} on the topics, DirectLog with its default DSYNC), each scenario on its own
 * topic, the broker's CPU read from {@code /proc/<pid>/stat} around each measured phase. See
 * {@link BrokerBenchOptions#USAGE}.
 */
public final class BrokerBenchCommand implements Command
{
    static final int RECORD_BYTES = 1024;
    static final int PRODUCERS = 4;
    static final int PARTITIONS = 16;
    static final int MANY_PARTITIONS = 1000;
    static final double MANY_PARTITIONS_RATE = 10_000;
    static final String SLF4J_LEVEL_PROP_NAME = "org.slf4j.simpleLogger.defaultLogLevel";
    static final List<String> BROKER_JVM_OPTIONS = List.of("-Xmx1g", "-Xms1g");

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
        // kafka-clients logs every client's config at INFO through slf4j-simple (on the classpath for KafkaNode's
        // child): keep progress on stderr readable, unless the caller chose a level
        if (System.getProperty(SLF4J_LEVEL_PROP_NAME) == null)
        {
            System.setProperty(SLF4J_LEVEL_PROP_NAME, "warn");
        }
        final long started = System.nanoTime();
        final List<BrokerBenchRow> rows = new ArrayList<>();
        final double[] kafkaMax = {Double.NaN};
        for (final String system : options.systems())
        {
            runSystem(options, system, rows, kafkaMax);
        }
        out.print(BrokerBenchTable.format(rows));
        out.printf(Locale.ROOT, "1 KiB records, acks=all, idempotent, linger.ms=1; %s per phase; MB = 10^6 bytes; " +
            "cpu s/GB = broker CPU seconds per 10^9 bytes written and read; loadgen CPU in the JSON%n",
            options.measure().toSeconds() + " s");
        if (options.jsonFile() != null)
        {
            BrokerBenchJson.write(options.jsonFile(), rows);
            err.println("bench-broker: wrote " + options.jsonFile());
        }
        err.printf(Locale.ROOT, "bench-broker: done in %.0f s%n", (System.nanoTime() - started) / 1e9);
        return rows.stream().allMatch(BrokerBenchRow::isMeasured) ? 0 : 1;
    }

    private void runSystem(final BrokerBenchOptions options, final String system, final List<BrokerBenchRow> rows,
        final double[] kafkaMax)
    {
        final boolean first = system.equals(options.systems().get(0));
        final List<String> scenarios = new ArrayList<>(options.scenarios());
        final boolean needsRate = scenarios.contains("fixed-rate") || scenarios.contains("catch-up");
        if (needsRate && options.rate() == 0 && !scenarios.contains("max-throughput") && first)
        {
            scenarios.add(0, "max-throughput");
        }
        progress("starting " + system);
        final long t0 = System.nanoTime();
        final BrokerUnderTest node;
        final long pid;
        try
        {
            if (BrokerTargets.DIRECTLOG.equals(system))
            {
                final DirectLogNode n = options.dir() == null ? DirectLogNode.start() :
                    DirectLogNode.start(Files.createTempDirectory(mkdirs(options.dir()), "directlog-"), false,
                        withDirect(BROKER_JVM_OPTIONS));
                node = n;
                pid = n.pid();
            }
            else
            {
                final KafkaNode.Config config = new KafkaNode.Config()
                    .jvmOptions(BROKER_JVM_OPTIONS.toArray(String[]::new));
                if (options.dir() != null)
                {
                    config.dataDir(Files.createTempDirectory(mkdirs(options.dir()), system + "-"));
                }
                final KafkaNode n = KafkaNode.start(config);
                node = n;
                pid = n.pid();
            }
        }
        catch (final Exception ex)
        {
            progress(system + " did not start: " + ex.getMessage());
            for (final String s : scenarios)
            {
                rows.add(BrokerBenchRow.failed(system, s, "publish", 0, PRODUCERS, RECORD_BYTES,
                    "broker did not start: " + firstLine(ex)));
            }
            return;
        }
        try (node)
        {
            progress(String.format(Locale.ROOT, "%s ready in %.1f s: %s", system, (System.nanoTime() - t0) / 1e9,
                node));
            final LoadGenerator load = new LoadGenerator(node.bootstrap());
            final Map<String, String> topicConfigs = BrokerTargets.KAFKA_FSYNC.equals(system) ?
                Map.of("flush.messages", "1", "flush.ms", "0") : Map.of();
            double ownMax = Double.NaN;
            for (final String scenario : scenarios)
            {
                final Phase phase = new Phase(system, scenario, load, pid, topicConfigs, options);
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
                                kafkaMax[0] = row.msgsPerSec();
                            }
                        }
                        case "fixed-rate" -> rows.addAll(phase.fixedRate(rate(options, kafkaMax[0], ownMax, first)));
                        case "many-partitions" -> rows.addAll(phase.manyPartitions());
                        case "catch-up" -> rows.addAll(phase.catchUp(rate(options, kafkaMax[0], ownMax, first)));
                        default -> throw new IllegalStateException("unknown scenario " + scenario);
                    }
                }
                catch (final Exception ex)
                {
                    progress(system + " " + scenario + " failed: " + ex);
                    rows.add(BrokerBenchRow.failed(system, scenario, "publish",
                        "many-partitions".equals(scenario) ? MANY_PARTITIONS : PARTITIONS, PRODUCERS, RECORD_BYTES,
                        firstLine(ex)));
                }
            }
        }
    }

    private static List<String> withDirect(final List<String> options)
    {
        final List<String> all = new ArrayList<>(options);
        all.add("-XX:MaxDirectMemorySize=1g");
        return all;
    }

    /** The fixed rate: --rate, else half of Kafka's max throughput, else (Kafka not run) half of this system's own. */
    static Rate rate(final BrokerBenchOptions options, final double kafkaMax, final double ownMax, final boolean first)
    {
        if (options.rate() > 0)
        {
            return new Rate(options.rate(), "rate from --rate");
        }
        if (kafkaMax > 0)
        {
            return new Rate(kafkaMax / 2, "50% of kafka's max-throughput");
        }
        if (ownMax > 0)
        {
            return new Rate(ownMax / 2, "50% of its own max-throughput (kafka not run)");
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

    private static Path mkdirs(final Path dir) throws java.io.IOException
    {
        return Files.createDirectories(dir);
    }

    private static String firstLine(final Throwable ex)
    {
        final String m = String.valueOf(ex.getMessage());
        final int nl = m.indexOf('\n');
        return ex.getClass().getSimpleName() + ": " + (nl < 0 ? m : m.substring(0, nl));
    }

    /** One scenario on one broker: warm-up, then the measured phases with the broker's CPU read around them. */
    private final class Phase
    {
        final String system;
        final String scenario;
        final LoadGenerator load;
        final long pid;
        final Map<String, String> topicConfigs;
        final BrokerBenchOptions options;

        Phase(final String system, final String scenario, final LoadGenerator load, final long pid,
            final Map<String, String> topicConfigs, final BrokerBenchOptions options)
        {
            this.system = system;
            this.scenario = scenario;
            this.load = load;
            this.pid = pid;
            this.topicConfigs = topicConfigs;
            this.options = options;
        }

        BrokerBenchRow maxThroughput() throws Exception
        {
            load.createTopic(scenario, PARTITIONS, topicConfigs);
            step("warm-up");
            load.produce(scenario, PRODUCERS, RECORD_BYTES, 0, options.warmup(), Long.MAX_VALUE, false, 0);
            step("measuring");
            final Measured m = measure(() -> load.produce(scenario, PRODUCERS, RECORD_BYTES, 0, options.measure(),
                Long.MAX_VALUE, false, 0));
            return publishRow(m, PARTITIONS, null);
        }

        List<BrokerBenchRow> fixedRate(final Rate rate) throws Exception
        {
            return openLoop(PARTITIONS, rate.msgsPerSec(), rate.note());
        }

        List<BrokerBenchRow> manyPartitions() throws Exception
        {
            return openLoop(MANY_PARTITIONS, MANY_PARTITIONS_RATE,
                String.format(Locale.ROOT, "open loop %,.0f msgs/s", MANY_PARTITIONS_RATE));
        }

        private List<BrokerBenchRow> openLoop(final int partitions, final double rate, final String note)
            throws Exception
        {
            load.createTopic(scenario, partitions, topicConfigs);
            step("warm-up");
            load.produce(scenario, PRODUCERS, RECORD_BYTES, rate, options.warmup(), Long.MAX_VALUE, false, 0);
            step("measuring");
            final Measured m = measure(() -> load.produce(scenario, PRODUCERS, RECORD_BYTES, rate, options.measure(),
                Long.MAX_VALUE, true, 0));
            return List.of(publishRow(m, partitions, note), e2eRow(m, partitions, note));
        }

        List<BrokerBenchRow> catchUp(final Rate rate) throws Exception
        {
            load.createTopic(scenario, PARTITIONS, topicConfigs);
            final long backlog = options.backlogBytes();
            step(String.format(Locale.ROOT, "writing a %,d MiB backlog", backlog >> 20));
            load.produce(scenario, PRODUCERS, RECORD_BYTES, 0, options.readLimit().multipliedBy(10), backlog, false, 0);
            step("producers at the rate, no reader");
            final Measured without = measure(() -> load.produce(scenario, PRODUCERS, RECORD_BYTES, rate.msgsPerSec(),
                options.measure(), Long.MAX_VALUE, false, 0));
            step("producers at the rate while a consumer reads the backlog from the beginning");
            final Measured with = measure(() -> load.produce(scenario, PRODUCERS, RECORD_BYTES, rate.msgsPerSec(),
                options.readLimit(), Long.MAX_VALUE, false, backlog));
            final PhaseResult r = with.result;
            final double gb = (r.bytes() + r.readBytes()) / 1e9;
            final String readNote = String.format(Locale.ROOT, "%,d MiB backlog from the beginning, read %,d MiB",
                backlog >> 20, r.readBytes() >> 20);
            final BrokerBenchRow read = new BrokerBenchRow(system, scenario, "read", PARTITIONS, 1, RECORD_BYTES,
                r.readSeconds() > 0 ? r.readBytes() / (double)RECORD_BYTES / r.readSeconds() : Double.NaN,
                r.readMbPerSec(), Double.NaN, Double.NaN, Double.NaN, with.brokerCpu / gb, with.loadCpu / gb,
                readNote);
            return List.of(publishRow(without, PARTITIONS, rate.note()), read,
                withMeasure(publishRow(with, PARTITIONS, rate.note()), "publish-during-read"));
        }

        private Measured measure(final PhaseCall call) throws Exception
        {
            final double broker0 = ProcessCpu.seconds(pid);
            final double self0 = ProcessCpu.selfSeconds();
            final PhaseResult result = call.run();
            final Measured m = new Measured(result, ProcessCpu.seconds(pid) - broker0,
                ProcessCpu.selfSeconds() - self0);
            step(String.format(Locale.ROOT, "%,.0f msgs/s, %.1f MB/s, publish p99 %.2f ms%s", result.msgsPerSec(),
                result.mbPerSec(), percentileMs(result.publish(), 99),
                result.failures() > 0 ? ", " + result.failures() + " sends failed" : ""));
            return m;
        }

        private BrokerBenchRow publishRow(final Measured m, final int partitions, final String note)
        {
            final PhaseResult r = m.result;
            final double gb = (r.bytes() + r.readBytes()) / 1e9;
            // a send that failed (or was not acknowledged within the drain after the phase) is not in the figures
            final String failed = r.failures() > 0 ? r.failures() + " sends failed or unacknowledged" : null;
            return new BrokerBenchRow(system, scenario, "publish", partitions, PRODUCERS, RECORD_BYTES,
                r.msgsPerSec(), r.mbPerSec(), percentileMs(r.publish(), 50), percentileMs(r.publish(), 99),
                percentileMs(r.publish(), 99.9), m.brokerCpu / gb, m.loadCpu / gb,
                note == null ? failed : failed == null ? note : note + "; " + failed);
        }

        private BrokerBenchRow e2eRow(final Measured m, final int partitions, final String note)
        {
            final PhaseResult r = m.result;
            final Histogram h = r.e2e();
            final double msgs = r.seconds() > 0 ? h.getTotalCount() / r.seconds() : Double.NaN;
            return new BrokerBenchRow(system, scenario, "e2e", partitions, PRODUCERS, RECORD_BYTES, msgs,
                msgs * RECORD_BYTES / 1e6, percentileMs(h, 50), percentileMs(h, 99), percentileMs(h, 99.9),
                Double.NaN, Double.NaN, note);
        }

        private void step(final String what)
        {
            progress(system + " " + scenario + ": " + what);
        }
    }

    private static BrokerBenchRow withMeasure(final BrokerBenchRow r, final String measure)
    {
        return new BrokerBenchRow(r.system(), r.scenario(), measure, r.partitions(), r.producers(), r.recordBytes(),
            r.msgsPerSec(), r.mbPerSec(), r.p50Ms(), r.p99Ms(), r.p999Ms(), r.brokerCpuSecPerGb(),
            r.loadGenCpuSecPerGb(), r.note());
    }

    static double percentileMs(final Histogram h, final double percentile)
    {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1000.0;
    }

    @FunctionalInterface
    private interface PhaseCall
    {
        PhaseResult run() throws Exception;
    }

    private record Measured(PhaseResult result, double brokerCpu, double loadCpu)
    {
    }
}
