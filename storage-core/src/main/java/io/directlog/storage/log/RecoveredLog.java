package io.directlog.storage.log;

import java.nio.file.Path;
import java.util.List;

import io.directlog.storage.LogConfig;
import io.directlog.storage.RecoveryReport;
import io.directlog.storage.cache.CachePage;

/**
 * What opening a log found, as {@link LogLoader} returns it and {@link DefaultLog} is built from: the segments,
 * where the writer goes on, the spare files, and the report. Recovery has done its I/O by then (the tail cut,
 * zeroed and synced) but for the files it gave up; building the log from this writes the checkpoint, then retires
 * those.
 *
 * @param meta                the log's identity and segment size.
 * @param config              its settings (with the segment size of an existing log).
 * @param host                what the segments ask of the log; holds the (still empty) segment set.
 * @param checkpoint          the open checkpoint file.
 * @param segments            the segments, oldest first.
 * @param startOffset         the lowest offset the log holds.
 * @param tail                where the writer goes on.
 * @param nextPrepareSequence the sequence number of the next segment file to prepare.
 * @param spares              prepared segments found ready (after a clean close).
 * @param recycled            segment files recovery gave up, for the preparer to zero and reuse: renamed away
 *                            after the open's first checkpoint write (see {@link RecoveryScope#recycle}).
 * @param deleted             blank files recovery cannot use: deleted after that write.
 * @param report              what recovery did.
 */
record RecoveredLog(LogMeta meta, LogConfig config, LogSegmentHost host, Checkpoint checkpoint, List<Segment> segments,
    long startOffset, Tail tail, long nextPrepareSequence, List<PreparedSegment> spares, List<Path> recycled,
    List<Path> deleted, RecoveryReport report)
{
    /**
     * Where the writer goes on.
     *
     * @param active           the segment to append to (its write files open, its page set), or null when the log
     *                         has no segment (the first append rolls).
     * @param page             its write page, holding the block of the end.
     * @param position         where the next record goes in it.
     * @param endOffset        the offset the next record gets.
     * @param lastTimestamp    the newest record's timestamp (timestamps never go backwards within a log).
     * @param lastRecordAt     the position of the last record in the active segment, or -1.
     * @param lastRecordOffset its offset, or -1.
     */
    record Tail(Segment active, CachePage page, int position, long endOffset, long lastTimestamp, int lastRecordAt,
        long lastRecordOffset)
    {
        /** @return the tail of a log with no segment, going on at {@code offset}. */
        static Tail empty(final long offset)
        {
            return new Tail(null, null, 0, offset, 0, -1, -1);
        }
    }
}
