/**
 * {@code ./directlog dump} and {@code ./directlog verify}: read a store's files with the engine's format descriptors
 * ({@code io.directlog.storage.format}) and record scanner, never through a {@code LogStore}, and never write.
 * Nothing in the engine depends on this package.
 */
package io.directlog.cli.store;
