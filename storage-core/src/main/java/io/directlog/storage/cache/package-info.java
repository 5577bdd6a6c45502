/**
 * The page cache: which segments are resident in pool memory ({@link io.directlog.storage.cache.CachePage},
 * reference-counted so eviction never frees memory a reader is looking at), and which to evict when the budget is
 * short ({@link io.directlog.storage.cache.PageCache} with the weighted LRU of
 * {@link io.directlog.storage.cache.EvictionPolicy}).
 *
 * <p>Depends on {@code page} for memory and on the API's value types for its statistics; it sees segments only
 * through {@link io.directlog.storage.cache.CacheOwner}, so it does not depend on {@code log}.
 */
package io.directlog.storage.cache;
