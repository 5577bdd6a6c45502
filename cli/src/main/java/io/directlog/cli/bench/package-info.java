/**
 * {@code ./directlog bench}: raw device scenarios, engine scenarios and RocksDB, measured in one run so their
 * ratios mean something on a noisy machine.
 * <p>
 * Shape: {@link io.directlog.cli.bench.BenchCommand} parses {@code BenchOptions}, prints the
 * {@code EnvironmentReport}, and hands the chosen {@code Scenario}s to the {@code BenchRunner}; closed loops run on
 * {@code LoadDriver} under a {@code Phases} clock; {@code ResultTable} and {@code JsonLines} format the rows.
 * Raw scenarios use {@code io.directlog.nativeio} only; engine scenarios use the public {@code io.directlog.storage}
 * API only. Nothing depends on this package.
 */
package io.directlog.cli.bench;
