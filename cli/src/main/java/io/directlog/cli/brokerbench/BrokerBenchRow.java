package io.directlog.cli.brokerbench;

/**
 * One line of the result: a system, a scenario and what was measured in it ({@code publish}: send to
 * acknowledgement; {@code e2e}: send to the consumer's poll; {@code read}: a backlog reader's bandwidth, no
 * latencies; {@code publish-during-read}: publish while that reader runs). Numbers that do not apply are NaN; a row
 * that failed has NaN numbers and its reason in {@code note}.
 *
 * @param system              {@code directlog}, {@code kafka} or {@code kafka-fsync}.
 * @param scenario            e.g. {@code max-throughput}.
 * @param measure             {@code publish}, {@code e2e}, {@code read} or {@code publish-during-read}.
 * @param partitions          partitions of the topic.
 * @param producers           producer threads.
 * @param recordBytes         value size.
 * @param msgsPerSec          records per second (read rows: records read per second).
 * @param mbPerSec            value megabytes (10^6) per second.
 * @param p50Ms               latency percentiles in milliseconds.
 * @param p99Ms               see p50Ms.
 * @param p999Ms              see p50Ms.
 * @param brokerCpuSecPerGb   the broker process's CPU seconds per GB (10^9) of value bytes written and read.
 * @param loadGenCpuSecPerGb  this JVM's (the load generator's) CPU seconds per GB.
 * @param note                free text: the open-loop rate, a failure's reason; null when none.
 * @param latency             the percentile series p50..p99.99 and the histogram behind the percentiles above;
 *                            {@link LatencyCurve#NONE} for rows without latencies.
 */
record BrokerBenchRow(String system, String scenario, String measure, int partitions, int producers, int recordBytes,
                      double msgsPerSec, double mbPerSec, double p50Ms, double p99Ms, double p999Ms,
                      double brokerCpuSecPerGb, double loadGenCpuSecPerGb, String note, LatencyCurve latency)
{
    BrokerBenchRow
    {
        latency = latency == null ? LatencyCurve.NONE : latency;
    }

    /** A row without a percentile series (read rows, and rows built by hand in tests). */
    BrokerBenchRow(final String system, final String scenario, final String measure, final int partitions,
        final int producers, final int recordBytes, final double msgsPerSec, final double mbPerSec, final double p50Ms,
        final double p99Ms, final double p999Ms, final double brokerCpuSecPerGb, final double loadGenCpuSecPerGb,
        final String note)
    {
        this(system, scenario, measure, partitions, producers, recordBytes, msgsPerSec, mbPerSec, p50Ms, p99Ms, p999Ms,
            brokerCpuSecPerGb, loadGenCpuSecPerGb, note, LatencyCurve.NONE);
    }

    static BrokerBenchRow failed(final String system, final String scenario, final String measure,
        final int partitions, final int producers, final int recordBytes, final String reason)
    {
        return new BrokerBenchRow(system, scenario, measure, partitions, producers, recordBytes, Double.NaN,
            Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, "failed: " + reason);
    }

    /** @return the 99.99th percentile in milliseconds, NaN when the row has no series (or an older JSON's). */
    double p9999Ms()
    {
        return latency.ms(99.99);
    }

    boolean isMeasured()
    {
        return !Double.isNaN(msgsPerSec);
    }
}
