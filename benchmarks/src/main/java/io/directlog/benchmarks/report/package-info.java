/**
 * Turns JMH JSON result files into the checked-in report: SVG plots (throughput against producers per
 * durability, latency percentiles) and a Markdown results table, written by plain Java with no plotting library.
 * Run by {@code benchmarks/plot.sh}. Nothing may depend on this package.
 */
package io.directlog.benchmarks.report;
