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
 * @param droppedRecords offsets dropped by {@link RecoveryMode#TRUNCATE_AT_CORRUPTION} as far as recovery could see
 *                       (valid records found after the cut, in the same segment and in later segments); 0 for a
 *                       torn tail, whose records were never acknowledged.
 * @param tornTail       true when non-zero bytes after the last valid record were cut as a torn tail.
 * @param recoveryMillis wall time the log's open took.
 */
public record RecoveryReport(RecoveryMode mode, boolean cleanShutdown, long scannedBytes, long cutPosition,
    long cutOffset, long droppedRecords, boolean tornTail, long recoveryMillis)
{
}
