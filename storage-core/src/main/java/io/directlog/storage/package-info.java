/**
 * The public API of the DirectLog storage engine: a {@link io.directlog.storage.LogStore} of named
 * {@link io.directlog.storage.Log}s, their settings ({@link io.directlog.storage.StoreConfig},
 * {@link io.directlog.storage.LogConfig}), appends with a {@link io.directlog.storage.Durability} and an
 * {@link io.directlog.storage.AppendCallback}, reads ({@link io.directlog.storage.LogReader},
 * {@link io.directlog.storage.RecordBatch}), statistics and the typed exceptions every failure is reported with.
 *
 * <p>This package owns the contract, not the machinery: the implementation lives in the sub-packages and is reached
 * only through {@link io.directlog.storage.LogStore#open}. Applications and the broker depend on this package
 * alone; the engine's internal parts ({@code format}, {@code io}, {@code page}, {@code cache}, {@code writer}) may
 * use its value types and exceptions but never its facade ({@code LogStore}, {@code Log}, {@code LogReader}).
 */
package io.directlog.storage;
