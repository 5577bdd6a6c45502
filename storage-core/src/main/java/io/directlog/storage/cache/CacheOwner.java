package io.directlog.storage.cache;

/**
 * What the cache needs from a segment to weigh and evict its page.
 * <p>
 * Implementations are thread-safe.
 */
public interface CacheOwner
{
    /** @return how many segments lie between this one and its log's active segment (0 for the active one). */
    long distanceFromTail();

    /** @return true when some declared consumer of the log has yet to read this segment. */
    boolean hasConsumersAhead();

    /**
     * The page was evicted: forget it, so readers go to disk.
     *
     * @param page the evicted page.
     */
    void onPageEvicted(CachePage page);

    /**
     * A retired page lost its last pin: the owner frees it.
     *
     * @param page the page.
     */
    void onPageFreeable(CachePage page);
}
