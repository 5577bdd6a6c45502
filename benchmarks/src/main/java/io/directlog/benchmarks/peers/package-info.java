/**
 * Other durable logs doing the engine's work in the same run: append one record durably (or not, where the
 * peer's mode says so), with the same record sizes and producer counts.
 * <p>
 * RocksDB's WAL ({@code sync=true/false}), a {@code FileChannel} append with {@code force(false)} per append, a
 * {@code MappedByteBuffer} append with a ranged {@code force} per append, and Chronicle Queue with and without
 * {@code msync}. Nothing may depend on this package.
 */
package io.directlog.benchmarks.peers;
