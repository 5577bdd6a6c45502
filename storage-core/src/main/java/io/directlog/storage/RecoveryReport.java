package io.directlog.storage;

/**
 * What opening a log found and did ({@link Log#recoveryReport()}).
 *
 * @param mode           the recovery mode in force.
 * @param cleanShutdown  true when the log was closed cleanly: nothing was scanned, the write position came from
 *                       the checkpoint and the active segment's persisted index.
 * @param scannedBytes   segment bytes read and checked record by record (0 after a clean shutdown).
 * @param cutPosition    the position in the (then) active segment where the log was cut, or -1 when nothing was
 *                       cut (the scan ended at the all-zero end of the records).
 * @param cutOffset      the log's end offset after recovery (the offset at the cut, or the end found).
 * @param droppedRecords offsets of valid records found after the cut (in the same segment and in later segments)
 *                       that recovery dropped, as far as it could see: with {@link RecoveryMode#TRUNCATE_AT_CORRUPTION}
 *                       the records after the corruption point; with {@link RecoveryMode#TOLERATE_TORN_TAIL} the
 *                       surviving part of a torn in-flight write (records beyond a sector that reads as never
 *                       written, or in segments after a lost rolled tail), which were beyond every durable point
 *                       recovery knows. 0 when the scan ended at the all-zero end.
 * @param tornTail       true when non-zero bytes after the last valid record were cut as a torn tail.
 * @param zeroedBytes    non-zero bytes after the recovered end of the active segment that recovery zeroed on disk
 *                       (torn records, stale or garbage bytes, unreadable blocks): never erased silently.
 * @param extendedBytes  bytes by which a segment file shorter than its segment size (truncated beyond its end)
 *                       was re-extended with zeros.
 * @param unreadableBlocks blocks that failed to read twice during recovery and were taken as damaged.
 * @param recoveryMillis wall time the log's open took.
 */
public record RecoveryReport(RecoveryMode mode, boolean cleanShutdown, long scannedBytes, long cutPosition,
    long cutOffset, long droppedRecords, boolean tornTail, long zeroedBytes, long extendedBytes, int unreadableBlocks,
    long recoveryMillis)
{
}
