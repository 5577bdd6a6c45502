/**
 * {@code ./directlog bench-broker}: DirectLog's broker against Apache Kafka 4.4.0 (with and without fsync before the
 * acknowledgement), one broker at a time in its own JVM, and DirectLog's three-node cluster against three Kafka
 * brokers (issue 22), driven by the load generator in {@code io.directlog.kafka.baseline.load}; the table with ratios
 * and verdicts against issue 21's and 22's targets, JSON lines, and SVG pictures drawn from the rows or from a run's
 * JSON ({@link io.directlog.cli.brokerbench.BrokerBenchPlots}). Nothing else in the cli depends on this package.
 */
package io.directlog.cli.brokerbench;
