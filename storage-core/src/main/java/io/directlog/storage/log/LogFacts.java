package io.directlog.storage.log;

import java.util.List;

/**
 * What a cleanly closed log is, as the store manifest records it: its identity, its segments, where it ends and
 * the generation of its sealed checkpoint slot. True only while nothing has opened the log since its clean close;
 * the registry keeps it for logs it has not loaded and passes it on to the next manifest unchanged. It holds what
 * the log's first-use load would otherwise read from {@code log.meta}, every segment header and the checkpoint
 * ({@link KnownLogLoader}).
 *
 * @param name                 the log's name.
 * @param logId                its id ({@code log.meta}).
 * @param segmentSize          its segment size (the largest rung).
 * @param created              epoch ms of its creation ({@code log.meta}).
 * @param checkpointGeneration the generation of the checkpoint slot its clean close wrote.
 * @param endSequence          the segment the log ends in (the clean checkpoint's), or -1 for none.
 * @param endPosition          the end's position in that segment.
 * @param endOffset            the offset the next record takes.
 * @param lastRecordPosition   the position of the last record below the end in that segment, or -1.
 * @param lastRecordOffset     that record's offset, or -1.
 * @param segments             its segments, oldest first.
 */
public record LogFacts(String name, long logId, int segmentSize, long created, long checkpointGeneration,
    long endSequence, long endPosition, long endOffset, long lastRecordPosition, long lastRecordOffset,
    List<SegmentFacts> segments)
{
    /**
     * One segment as its header says.
     *
     * @param sequence   its file's sequence.
     * @param baseOffset its first record's offset.
     * @param capacity   its size (its rung of the ladder).
     * @param blockSize  its write unit.
     * @param recycled   its header's recycled flag.
     * @param zeroAhead  its header's zero-ahead flag.
     */
    public record SegmentFacts(long sequence, long baseOffset, int capacity, int blockSize, boolean recycled,
        boolean zeroAhead)
    {
    }

    /** Takes an unmodifiable copy of the segments. */
    public LogFacts
    {
        segments = List.copyOf(segments);
    }

    @Override
    public String toString()
    {
        return "LogFacts{" + name + ", id 0x" + Long.toHexString(logId) + ", " + segments.size() + " segments, end " +
            endSequence + '/' + endPosition + " offset " + endOffset + '}';
    }
}
