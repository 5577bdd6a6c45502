/**
 * The engine's suites: appends (durability x record size x producers, callback and future APIs), tail reads from
 * the cache, cold sequential replay of a log larger than the memory budget, and random point reads.
 * <p>
 * They go through the public API ({@code io.directlog.storage}) only. Nothing may depend on this package.
 */
package io.directlog.benchmarks.log;
