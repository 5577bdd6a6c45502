package io.directlog.cli.brokerbench;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

import io.directlog.kafka.baseline.load.LoadGenerator;
import io.directlog.kafka.baseline.load.PhaseResult;
import io.directlog.kafka.baseline.load.ProcessCpu;
import org.HdrHistogram.Histogram;

/**
 * One scenario on one running broker (or cluster): its topic, a warm-up, then the measured phases with the CPU of
 * every broker process read around them (summed: a cluster's three nodes are one system). Not thread-safe; one
 * scenario at a time.
 */
final class BrokerPhase
{
    static final int RECORD_BYTES = 1024;
    static final int PRODUCERS = 4;
    static final int PARTITIONS = 16;
    static final int MANY_PARTITIONS = 1000;
    static final double MANY_PARTITIONS_RATE = 10_000;
    /** Replicas of each partition in the replicated scenario (issue 22), and Kafka's min.insync.replicas there. */
    static final int REPLICAS = 3;
    static final String MIN_INSYNC_REPLICAS = "2";

    private final String system;
    private final String scenario;
    private final LoadGenerator load;
    private final List<Long> pids;
    private final Map<String, String> topicConfigs;
    private final BrokerBenchOptions options;
    private final Consumer<String> progress;

    /**
     * @param system       the system's name.
     * @param scenario     the scenario, also the topic's name.
     * @param load         the load generator pointed at the broker.
     * @param pids         every broker process of the system.
     * @param topicConfigs configs of the topics this phase creates.
     * @param options      durations and sizes.
     * @param progress     where progress lines go.
     */
    BrokerPhase(final String system, final String scenario, final LoadGenerator load, final List<Long> pids,
        final Map<String, String> topicConfigs, final BrokerBenchOptions options, final Consumer<String> progress)
    {
        this.system = system;
        this.scenario = scenario;
        this.load = load;
        this.pids = List.copyOf(pids);
        this.topicConfigs = topicConfigs;
        this.options = options;
        this.progress = progress;
    }

    BrokerBenchRow maxThroughput() throws Exception
    {
        load.createTopic(scenario, PARTITIONS, topicConfigs);
        step("warm-up");
        load.produce(scenario, PRODUCERS, RECORD_BYTES, 0, options.warmup(), Long.MAX_VALUE, false, 0);
        step("measuring");
        final Measured m = measure(() -> load.produce(scenario, PRODUCERS, RECORD_BYTES, 0, options.measure(),
            Long.MAX_VALUE, false, 0));
        return publishRow(m, PARTITIONS, null, "publish");
    }

    List<BrokerBenchRow> fixedRate(final BrokerBenchCommand.Rate rate) throws Exception
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
        return List.of(publishRow(m, partitions, note, "publish"), e2eRow(m, partitions, note));
    }

    List<BrokerBenchRow> catchUp(final BrokerBenchCommand.Rate rate) throws Exception
    {
        load.createTopic(scenario, PARTITIONS, topicConfigs);
        final long backlog = options.backlogBytes();
        step(String.format(Locale.ROOT, "writing a %,d MiB backlog", backlog >> 20));
        load.produce(scenario, PRODUCERS, RECORD_BYTES, 0, options.readLimit().multipliedBy(10), backlog, false, 0);
        // the unthrottled backlog write leaves the broker catching up (its queues, segment preparation, GC): without
        // a warm-up at the rate, the no-reader p99 measured that and sat above the p99 during the read
        step("warm-up at the rate");
        load.produce(scenario, PRODUCERS, RECORD_BYTES, rate.msgsPerSec(), options.warmup(), Long.MAX_VALUE, false, 0);
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
        return List.of(publishRow(without, PARTITIONS, rate.note(), "publish"), read,
            publishRow(with, PARTITIONS, rate.note(), "publish-during-read"));
    }

    /**
     * Issue 22's comparison on a three-node system: 16 partitions with three replicas each (Kafka: created with
     * min.insync.replicas=2; DirectLog: declared by the cluster's {@code --topics}), unthrottled for the throughput
     * row, then open loop at the rate {@code rateFor} gives for that throughput, for the publish latency row.
     *
     * @param createTopic whether to create the topic (Kafka) or wait for the one the cluster declares (DirectLog).
     * @param rateFor     the open-loop rate, given this system's unthrottled records per second.
     * @return the throughput row, then the publish row.
     * @throws Exception when the topic or a client fails.
     */
    List<BrokerBenchRow> replicated(final boolean createTopic,
        final java.util.function.DoubleFunction<BrokerBenchCommand.Rate> rateFor) throws Exception
    {
        if (createTopic)
        {
            load.createTopic(scenario, PARTITIONS, (short)REPLICAS, Map.of("min.insync.replicas",
                MIN_INSYNC_REPLICAS));
        }
        else
        {
            load.awaitTopic(scenario, PARTITIONS);
        }
        step("warm-up, unthrottled");
        load.produce(scenario, PRODUCERS, RECORD_BYTES, 0, options.warmup(), Long.MAX_VALUE, false, 0);
        step("measuring throughput, unthrottled");
        final Measured max = measure(() -> load.produce(scenario, PRODUCERS, RECORD_BYTES, 0, options.measure(),
            Long.MAX_VALUE, false, 0));
        final BrokerBenchRow throughput = publishRow(max, PARTITIONS, "closed loop; " + REPLICAS + " replicas",
            "throughput");
        final BrokerBenchCommand.Rate rate = rateFor.apply(throughput.msgsPerSec());
        step("measuring publish latency, " + rate.note());
        final Measured open = measure(() -> load.produce(scenario, PRODUCERS, RECORD_BYTES, rate.msgsPerSec(),
            options.measure(), Long.MAX_VALUE, false, 0));
        return List.of(throughput, publishRow(open, PARTITIONS, rate.note(), "publish"));
    }

    private Measured measure(final PhaseCall call) throws Exception
    {
        final double broker0 = brokerCpuSeconds();
        final double self0 = ProcessCpu.selfSeconds();
        final PhaseResult result = call.run();
        final Measured m = new Measured(result, brokerCpuSeconds() - broker0, ProcessCpu.selfSeconds() - self0);
        step(String.format(Locale.ROOT, "%,.0f msgs/s, %.1f MB/s, publish p99 %.2f ms%s", result.msgsPerSec(),
            result.mbPerSec(), percentileMs(result.publish(), 99),
            result.failures() > 0 ? ", " + result.failures() + " sends failed" : ""));
        return m;
    }

    /** @return the CPU seconds of all the system's broker processes, NaN when one cannot be read. */
    private double brokerCpuSeconds()
    {
        double sum = 0;
        for (final long pid : pids)
        {
            sum += ProcessCpu.seconds(pid);
        }
        return sum;
    }

    private BrokerBenchRow publishRow(final Measured m, final int partitions, final String note, final String measure)
    {
        final PhaseResult r = m.result;
        final double gb = (r.bytes() + r.readBytes()) / 1e9;
        // a send that failed (or was not acknowledged within the drain after the phase) is not in the figures
        final String failed = r.failures() > 0 ? r.failures() + " sends failed or unacknowledged" : null;
        return new BrokerBenchRow(system, scenario, measure, partitions, PRODUCERS, RECORD_BYTES,
            r.msgsPerSec(), r.mbPerSec(), percentileMs(r.publish(), 50), percentileMs(r.publish(), 99),
            percentileMs(r.publish(), 99.9), m.brokerCpu / gb, m.loadCpu / gb,
            note == null ? failed : failed == null ? note : note + "; " + failed, LatencyCurve.of(r.publish()));
    }

    private BrokerBenchRow e2eRow(final Measured m, final int partitions, final String note)
    {
        final PhaseResult r = m.result;
        final Histogram h = r.e2e();
        final double msgs = r.seconds() > 0 ? h.getTotalCount() / r.seconds() : Double.NaN;
        return new BrokerBenchRow(system, scenario, "e2e", partitions, PRODUCERS, RECORD_BYTES, msgs,
            msgs * RECORD_BYTES / 1e6, percentileMs(h, 50), percentileMs(h, 99), percentileMs(h, 99.9),
            Double.NaN, Double.NaN, note, LatencyCurve.of(h));
    }

    private void step(final String what)
    {
        progress.accept(system + " " + scenario + ": " + what);
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
