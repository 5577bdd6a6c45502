/**
 * What an application may implement and hand to the engine (the service-provider interface): the block-I/O layer
 * ({@link io.directlog.storage.spi.BlockIo}, {@link io.directlog.storage.spi.BlockFile},
 * {@link io.directlog.storage.spi.FileMode}, {@link io.directlog.storage.spi.BlockWriteBatch}), set with {@code StoreConfig.Builder.blockIo}. With
 * {@code io.directlog.storage} it is the published API; every other package of storage-core is the engine's
 * inside, may change in any release, and must not be used from outside it. Depends on nothing of the engine.
 */
package io.directlog.storage.spi;
