/**
 * The block-I/O layer the engine writes through ({@link io.directlog.storage.spi.BlockIo},
 * {@link io.directlog.storage.spi.BlockFile}): aligned positional reads and writes from native memory and the
 * directory operations whose durability matters. Two implementations: O_DIRECT over {@code storage-native}
 * ({@link io.directlog.storage.io.NativeBlockIo}) and the buffered fallback where O_DIRECT is unavailable
 * ({@link io.directlog.storage.io.BufferedBlockIo}); tests add a simulating device for crash and fault injection.
 *
 * <p>Knows nothing of logs, segments or records; depends on no other part of the engine but the interfaces it
 * implements ({@code spi}). Which implementation a
 * store uses is chosen in {@code internal.IoSelection}.
 */
package io.directlog.storage.io;
