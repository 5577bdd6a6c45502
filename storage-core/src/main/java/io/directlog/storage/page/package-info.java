/**
 * Off-heap memory for the engine: the aligned page pool that holds the store's one memory budget
 * ({@link io.directlog.storage.page.PagePool}), its blocks ({@link io.directlog.storage.page.PageMemory}), the
 * thread that faults growing write pages in ahead of their writers ({@code PagePopulator}) and the small pool of
 * aligned read buffers outside that budget ({@link io.directlog.storage.page.ReadBufferPool}).
 *
 * <p>Owns allocation, alignment and freeing only; what a page holds and when it is evicted belong to
 * {@code cache} and {@code log}. Depends on no other part of the engine.
 */
package io.directlog.storage.page;
