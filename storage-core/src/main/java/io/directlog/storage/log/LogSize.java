package io.directlog.storage.log;

/**
 * How much of the disk a log's records take, for the store's meters: read from the published segment array
 * without the writer's help, so it can lag the writer by the records not yet visible.
 */
public final class LogSize
{
    private LogSize()
    {
    }

    /**
     * @param log the log.
     * @return its segments, the active one included (not the prepared ones waiting ahead of it).
     */
    public static int segmentCount(final DefaultLog log)
    {
        return log.segments().length;
    }

    /**
     * @param log the log.
     * @return the bytes of its segments up to their last record (a rolled segment's whole, the active one's up to
     *         what readers see): records with their headers and the gaps of block padding between them; not the
     *         pre-allocated rest of each segment file.
     */
    public static long bytes(final DefaultLog log)
    {
        long total = 0;
        for (final Segment segment : log.segments())
        {
            // a rolled segment's end is published only when it becomes visible; its sealed end is known at the roll
            total += Math.max(segment.endPosition(), segment.sealedPosition());
        }
        return total;
    }
}
