/**
 * The load generator {@code ./directlog bench-broker} drives every broker with: kafka-clients producers (acks=all,
 * idempotent, linger.ms=1) closed-loop or open-loop at a fixed rate, a consumer for end-to-end latency and backlog
 * reads, HdrHistogram percentiles, and per-process CPU from {@code /proc}. Knows nothing of which broker it drives;
 * nothing in the broker module may depend on it.
 */
package io.directlog.kafka.baseline.load;
