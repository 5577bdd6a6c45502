package io.directlog.storage.log;

import java.nio.file.Path;

/**
 * What {@link ReadPath} needs of its log: which segments there are and how far readers may read. Implemented by
 * {@link LogReadView} over the log's parts; everything here is safe to call from any thread without a lock.
 */
interface ReadSource
{
    /** @return the log's name, for messages. */
    String name();

    /** @return its directory (index files). */
    Path directory();

    /** @return its id (index files carry it). */
    long logId();

    /** @return the log id as records carry it. */
    int recordLogId();

    /** @return the segments, oldest first (a snapshot). */
    Segment[] segments();

    /** @return the active segment's sequence number, or Long.MAX_VALUE without one. */
    long activeSequence();

    /** @return the lowest offset the log holds. */
    long startOffset();

    /** @return the offset after the last record readers may see. */
    long visibleEndOffset();

    /** @return the offset the next record gets. */
    long endOffset();

    /** @return the direct-I/O block reads of disk align to. */
    IoBlock block();

    /** @throws io.directlog.storage.LogClosedException once the log is closed. */
    void checkOpenForRead();

    /** @return true once the log is closed. */
    boolean isClosed();
}
