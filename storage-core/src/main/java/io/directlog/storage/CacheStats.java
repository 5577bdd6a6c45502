package io.directlog.storage;

/**
 * A snapshot of the page cache's counters.
 *
 * @param hits          reads served from a resident page.
 * @param misses        reads that went to disk.
 * @param pageIns       segments read into a cache page.
 * @param evictions     pages evicted.
 * @param bytesReadFromDisk bytes read from disk by reads and page-ins.
 * @param pinnedPages   pages pinned by open batches now.
 * @param residentPages pages in use (write pages and read cache).
 * @param usedBytes     bytes of the budget in use.
 * @param budgetBytes   the budget.
 */
public record CacheStats(long hits, long misses, long pageIns, long evictions, long bytesReadFromDisk, long pinnedPages,
    long residentPages, long usedBytes, long budgetBytes)
{
    /** @return hits / (hits + misses), 0 before the first read. */
    public double hitRatio()
    {
        final long total = hits + misses;
        return total == 0 ? 0 : (double)hits / total;
    }
}
