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
 */
record BrokerBenchRow(String system, String scenario, String measure, int partitions, int producers, int recordBytes,
                      double msgsPerSec, double mbPerSec, double p50Ms, double p99Ms, double p999Ms,
                      double brokerCpuSecPerGb, double loadGenCpuSecPerGb, String note)
{
    static BrokerBenchRow failed(final String system, final String scenario, final String measure,
        final int partitions, final int producers, final int recordBytes, final String reason)
    {
        return new BrokerBenchRow(system, scenario, measure, partitions, producers, recordBytes, Double.NaN,
            Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, "failed: " + reason);
    }

    boolean isMeasured()
    {
        return !Double.isNaN(msgsPerSec);
    }
}
