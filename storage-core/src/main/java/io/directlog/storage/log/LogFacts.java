package io.directlog.storage.log;

import java.util.Arrays;

/**
 * What a cleanly closed log is, as the store manifest records it: its identity, its segments and where it ends.
 * True only while nothing has opened the log since its clean close; the registry keeps it for logs it has not
 * loaded and passes it on to the next manifest unchanged.
 *
 * @param name               the log's name.
 * @param logId              its id ({@code log.meta}).
 * @param segmentSize        its segment size.
 * @param endSequence        the segment the log ends in (the clean checkpoint's), or -1 for none.
 * @param endPosition        the end's position in that segment.
 * @param endOffset          the offset the next record takes.
 * @param lastRecordPosition the position of the last record below the end in that segment, or -1.
 * @param lastRecordOffset   that record's offset, or -1.
 * @param sequences          the segments' sequences, oldest first.
 * @param baseOffsets        their base offsets, in the same order.
 */
public record LogFacts(String name, long logId, int segmentSize, long endSequence, long endPosition, long endOffset,
    long lastRecordPosition, long lastRecordOffset, long[] sequences, long[] baseOffsets)
{
    /** Checks that the segment lists agree. */
    public LogFacts
    {
        if (sequences.length != baseOffsets.length)
        {
            throw new IllegalArgumentException("log '" + name + "': " + sequences.length + " segment sequences but " +
                baseOffsets.length + " base offsets");
        }
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof LogFacts f && name.equals(f.name) && logId == f.logId && segmentSize == f.segmentSize &&
            endSequence == f.endSequence && endPosition == f.endPosition && endOffset == f.endOffset &&
            lastRecordPosition == f.lastRecordPosition && lastRecordOffset == f.lastRecordOffset &&
            Arrays.equals(sequences, f.sequences) && Arrays.equals(baseOffsets, f.baseOffsets);
    }

    @Override
    public int hashCode()
    {
        return name.hashCode() * 31 + Long.hashCode(endOffset);
    }

    @Override
    public String toString()
    {
        return "LogFacts{" + name + ", id 0x" + Long.toHexString(logId) + ", segments " +
            Arrays.toString(sequences) + ", end " + endSequence + '/' + endPosition + " offset " + endOffset + '}';
    }
}
