package io.directlog.storage.log;

import java.nio.file.Path;

/**
 * What the {@link SegmentPreparer} needs from one log: how many spare segments it wants, the files it gave back,
 * and where to put a prepared one. Implemented by {@link SpareSegments}; the preparer sees nothing else of a log.
 * <p>
 * Implementations are thread-safe: the preparer's thread calls these while the log's writer takes segments.
 */
interface SpareSegmentQueue
{
    /** @return the log's name, for messages. */
    String name();

    /** @return true once the log is closing: prepare nothing more for it. */
    boolean isClosing();

    /** @return the log's directory. */
    Path directory();

    /** @return the size the next file prepared for it must have: the next rung of its segment-size ladder. */
    int nextSegmentSize();

    /** Asks the cache to keep a zeroed page ready for the log's next roll (see PageCache.reserve). */
    void reserveWritePage();

    /** @return prepared segments waiting now. */
    int preparedCount();

    /** @return how many it wants waiting now (on demand: 0 for an idle or tiny log). */
    int preparedTarget();

    /** @return true when it wants one more prepared file now (fewer waiting than its target, read as one step). */
    boolean wantsAnother();

    /** @return a file given back, to zero and reuse, or null. */
    RecycledFile pollRecycled();

    /** @return the sequence number of the next segment to prepare. */
    long takePrepareSequence();

    /** @param segment a segment ready for the writer. */
    void onPrepared(PreparedSegment segment);

    /** @param cause why preparing failed (out of space, usually): appends fail fast until one succeeds. */
    void onPrepareFailed(Throwable cause);
}
