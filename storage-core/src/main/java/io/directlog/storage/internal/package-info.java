/**
 * The store's assembly: {@link io.directlog.storage.internal.StoreEngine} implements
 * {@link io.directlog.storage.LogStore} and owns the directory lock ({@link io.directlog.storage.internal.StoreLock}),
 * the I/O layer chosen for the directory ({@link io.directlog.storage.internal.IoSelection}), the page pool and
 * cache, the segment preparer, the syncer thread ({@link io.directlog.storage.internal.SyncerThread}) and writer
 * threads ({@link io.directlog.storage.internal.LogWriters}, placed by
 * {@link io.directlog.storage.internal.WriterPlacement}), the open logs
 * ({@link io.directlog.storage.internal.LogRegistry}, opened by {@link io.directlog.storage.internal.LogOpener}) and
 * their metrics.
 *
 * <p>The top of the engine: it may depend on every other package; nothing but the API's
 * {@link io.directlog.storage.LogStore#open} may depend on it.
 */
package io.directlog.storage.internal;
