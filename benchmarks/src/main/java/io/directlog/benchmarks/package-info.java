/**
 * Shared settings and helpers of the JMH suites: the abstract base that fixes forks, warmup, measurement, heap
 * and direct memory; where benchmark data lives; seeded payloads; the smoke switch.
 * <p>
 * Sub-packages name what they measure: {@code .log} the engine, {@code .peers} other durable logs doing the same
 * work, {@code .raw} the device itself, {@code .report} turning JMH JSON into tables and SVG plots.
 * Nothing outside this module may depend on it.
 */
package io.directlog.benchmarks;
