package io.directlog.broker.topic;

import java.util.Arrays;

/**
 * One entry per stored batch of a partition: its base offset and its max timestamp, plus the running maximum of
 * the timestamps so far, which is monotonic and so binary-searchable for ListOffsets by time (the first batch
 * whose running maximum reaches the target is the first holding a record that late). Kafka keeps a sparse time
 * index on disk; this one is dense, in memory, rebuilt from the batch headers at open.
 * <p>
 * Not thread-safe; guarded by its partition's lock.
 */
final class BatchIndex
{
    private long[] baseOffsets = new long[64];
    private long[] maxTimestamps = new long[64];
    private long[] runningMax = new long[64];
    private int size;
    private int maxTimestampIndex = -1;

    void add(final long baseOffset, final long maxTimestamp)
    {
        if (size == baseOffsets.length)
        {
            baseOffsets = Arrays.copyOf(baseOffsets, size * 2);
            maxTimestamps = Arrays.copyOf(maxTimestamps, size * 2);
            runningMax = Arrays.copyOf(runningMax, size * 2);
        }
        baseOffsets[size] = baseOffset;
        maxTimestamps[size] = maxTimestamp;
        runningMax[size] = size == 0 ? maxTimestamp : Math.max(runningMax[size - 1], maxTimestamp);
        if (maxTimestampIndex < 0 || maxTimestamp > maxTimestamps[maxTimestampIndex])
        {
            maxTimestampIndex = size;
        }
        size++;
    }

    /** Drops entries at or above an offset (after a failed append put the log's end back). */
    void truncate(final long endOffset)
    {
        while (size > 0 && baseOffsets[size - 1] >= endOffset)
        {
            size--;
        }
        maxTimestampIndex = -1;
        for (int i = 0; i < size; i++)
        {
            if (maxTimestampIndex < 0 || maxTimestamps[i] > maxTimestamps[maxTimestampIndex])
            {
                maxTimestampIndex = i;
            }
        }
    }

    /**
     * @param timestamp   the target.
     * @param startOffset only batches at or above it count (the log start: retention drops whole batches).
     * @param endOffset   only batches below it count (the visible end).
     * @return the base offset of the first such batch holding a record at or after the timestamp, or -1.
     */
    long firstBatchReaching(final long timestamp, final long startOffset, final long endOffset)
    {
        int lo = 0;
        int hi = size - 1;
        int found = size;
        while (lo <= hi)
        {
            final int mid = (lo + hi) >>> 1;
            if (runningMax[mid] >= timestamp)
            {
                found = mid;
                hi = mid - 1;
            }
            else
            {
                lo = mid + 1;
            }
        }
        for (int i = found; i < size && baseOffsets[i] < endOffset; i++)
        {
            if (baseOffsets[i] >= startOffset && maxTimestamps[i] >= timestamp)
            {
                return baseOffsets[i];
            }
        }
        return -1;
    }

    /**
     * @param endOffset only batches below it count.
     * @return the base offset of the batch with the largest timestamp, or -1.
     */
    long batchWithMaxTimestamp(final long endOffset)
    {
        if (maxTimestampIndex >= 0 && baseOffsets[maxTimestampIndex] < endOffset)
        {
            return baseOffsets[maxTimestampIndex];
        }
        long best = -1;
        long bestTs = Long.MIN_VALUE;
        for (int i = 0; i < size && baseOffsets[i] < endOffset; i++)
        {
            if (maxTimestamps[i] > bestTs)
            {
                bestTs = maxTimestamps[i];
                best = baseOffsets[i];
            }
        }
        return best;
    }
}
