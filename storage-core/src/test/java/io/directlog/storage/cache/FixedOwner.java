package io.directlog.storage.cache;

/**
 * A segment's place for the eviction policy and nothing more: a fixed distance from the tail, no consumers ahead,
 * and callbacks ignored, for tests that look at what the cache charges and evicts rather than at what owners hear.
 * <p>
 * Thread-safe: immutable.
 *
 * @param distanceFromTail the owner's distance from its log's tail (0 for the active segment).
 */
record FixedOwner(long distanceFromTail) implements CacheOwner
{
    @Override
    public boolean hasConsumersAhead()
    {
        return false;
    }

    @Override
    public void onPageEvicted(final CachePage page)
    {
    }

    @Override
    public void onPageFreeable(final CachePage page)
    {
    }
}
