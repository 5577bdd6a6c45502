package io.directlog.storage.log;

/**
 * The two monitors one log's parts share, and the order every lock of a log is taken in.
 * <p>
 * Lock order (a thread holding a lock takes only locks further down the list):
 * <ol>
 *   <li>{@link #tickLock}: the syncer's tick ({@link LogSyncer}) against close ({@link LogCloser}), which frees
 *       what the tick writes (the checkpoint's memory, the segments' descriptors).</li>
 *   <li>{@link #indexLock}: index files and everything that drops segments or rewrites the checkpoint's segment
 *       list: the syncer's index writes and retention ({@link LogSyncer}), truncation ({@link LogTruncation}),
 *       the clean shutdown ({@link LogCloser}).</li>
 *   <li>the segment set's lock ({@link SegmentSet}): the segment array and the start offset change together.</li>
 *   <li>a {@link Segment}'s own monitor: its write and read descriptors (fdatasync against close).</li>
 *   <li>a segment's {@code loadLock}: building or loading its in-memory index.</li>
 * </ol>
 * The writer takes no lock on its append path; readers take only a segment's {@code loadLock} (and, through the
 * page cache, the cache's own locks, never one of these while holding a cache lock). Waiting readers use the
 * {@link Visibility} monitor, which is never held while taking another.
 */
final class LogLocks
{
    /** Serialises the syncer's tick with close: close frees what the tick writes (the checkpoint's memory). */
    final Object tickLock = new Object();
    /** Index files, retention and truncation never interleave (see the class comment for the order). */
    final Object indexLock = new Object();
}
