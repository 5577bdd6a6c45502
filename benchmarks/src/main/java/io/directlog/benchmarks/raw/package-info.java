/**
 * The device itself, with no log in between: the physical limit of a durable 4 KiB append (an O_DIRECT and an
 * O_DIRECT|O_DSYNC overwrite of a pre-zeroed file) and O_DIRECT sequential bandwidth with 1 MiB writes and reads.
 * <p>
 * Two I/O paths: {@code nativeio}, the project's JNA layer ({@code io.directlog.nativeio}, what the engine uses),
 * and {@code jdk}, {@code FileChannel} with {@code ExtendedOpenOption.DIRECT} and {@code DSYNC}: the same syscalls
 * through the JDK, a check that the JNA layer adds nothing. Nothing may depend on this package.
 */
package io.directlog.benchmarks.raw;
