package io.directlog.broker.topic;

import java.util.Map;
import java.util.NavigableMap;

/**
 * OffsetForLeaderEpoch's answer (KIP-101, KIP-320; Kafka's LeaderEpochFileCache.endOffsetFor) from where each leader
 * epoch starts in a log: for an epoch a consumer or follower last saw, the largest epoch at or below it that the log
 * holds and the offset where the next higher epoch starts, so the caller can tell whether its position is still in
 * the log (a truncation moved the end below it) after a leader change.
 * <p>
 * Stateless.
 */
public final class LeaderEpochs
{
    /** Kafka's UNDEFINED_EPOCH and UNDEFINED_EPOCH_OFFSET. */
    static final long[] UNDEFINED = {-1, -1};

    private LeaderEpochs()
    {
    }

    /**
     * @param starts       epoch to the offset of its first batch, for the batches below {@code scannedEnd} (a log's
     *                     epochs never decrease with the offset).
     * @param requested    the epoch asked for.
     * @param current      the partition's current leader epoch.
     * @param logEnd       the offset after the log's last batch.
     * @param scannedEnd   the offset up to which {@code starts} covers the log; every batch from there to
     *                     {@code logEnd} is of the current epoch (a ready leader has committed, and applied, every
     *                     batch of earlier terms).
     * @return {epoch, end offset}; {-1, -1} when the epoch is undefined or above the current one.
     */
    public static long[] endOffsetFor(final NavigableMap<Integer, Long> starts, final int requested,
        final int current, final long logEnd, final long scannedEnd)
    {
        if (requested < 0 || requested > current)
        {
            return UNDEFINED.clone();
        }
        if (requested == current)
        {
            return new long[] {current, logEnd};
        }
        final Map.Entry<Integer, Long> higher = starts.higherEntry(requested);
        final Integer floor = starts.floorKey(requested);
        // no batch of a later epoch below scannedEnd: the requested epoch's batches run up to the current epoch's
        final long end = higher == null ? scannedEnd : higher.getValue();
        return new long[] {floor == null ? requested : floor, end};
    }
}
