/**
 * {@code ./directlog bench-broker}: DirectLog's broker against Apache Kafka 4.4.0 (with and without fsync before the
 * acknowledgement), one broker at a time in its own JVM, driven by the load generator in
 * {@code io.directlog.kafka.baseline.load}; the table with ratios and verdicts against issue 21's targets, and JSON
 * lines. Nothing else in the cli depends on this package.
 */
package io.directlog.cli.brokerbench;
