/**
 * Benchmarks of the off-heap page access the writer and readers do: what the engine's byte access costs through
 * Agrona's {@code UnsafeBuffer} and through JDK-only alternatives. Nothing in the engine depends on this package.
 */
package io.directlog.benchmarks.page;
