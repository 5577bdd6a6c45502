package io.directlog.storage.cache;

/**
 * The weighting of the page cache's LRU: which read-only page to evict first.
 * <p>
 * A page's value is the time of its last use, moved later (kept longer) by
 * <ul>
 *   <li>{@link #tailBonusNanos()} for each step it is closer to its log's tail than {@link #tailSegments()}:
 *   consumers of a message queue read mostly right behind the writer, so the last rolled pages weigh most;</li>
 *   <li>{@link #consumerBonusNanos()} when a declared consumer (an open {@code LogReader}) has yet to read the
 *   segment, so pages every consumer has passed go first.</li>
 * </ul>
 * The page with the smallest value is evicted. Write pages and pinned pages are never evicted.
 * Knobs are system properties: {@code directlog.cache.tailSegments} (default 2),
 * {@code directlog.cache.tailBonusMillis} (default 1000), {@code directlog.cache.consumerBonusMillis} (default 2000).
 *
 * @param tailSegments       how many segments behind the tail get a bonus.
 * @param tailBonusNanos     bonus per step closer to the tail.
 * @param consumerBonusNanos bonus for a page a consumer has yet to read.
 */
public record EvictionPolicy(int tailSegments, long tailBonusNanos, long consumerBonusNanos)
{
    /** @return the policy configured by system properties, or the defaults. */
    public static EvictionPolicy fromSystemProperties()
    {
        return new EvictionPolicy(Integer.getInteger("directlog.cache.tailSegments", 2),
            Long.getLong("directlog.cache.tailBonusMillis", 1000) * 1_000_000L,
            Long.getLong("directlog.cache.consumerBonusMillis", 2000) * 1_000_000L);
    }

    /**
     * @param page a resident page.
     * @return its value: the smallest is evicted first.
     */
    public long value(final CachePage page)
    {
        final CacheOwner owner = page.owner();
        long value = page.lastAccessNanos();
        final long closeness = tailSegments - owner.distanceFromTail();
        if (closeness > 0)
        {
            value += closeness * tailBonusNanos;
        }
        if (owner.hasConsumersAhead())
        {
            value += consumerBonusNanos;
        }
        return value;
    }
}
