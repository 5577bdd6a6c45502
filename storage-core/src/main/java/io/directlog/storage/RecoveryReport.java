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
 * @param cutOffset      where the recovered records end (the offset at the cut, or the end found): the log's end
 *                       offset after recovery, except after a hole (below).
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
 * @param droppedFromOffset the lowest offset recovery dropped (with {@code droppedToOffset}, the range that holds
 *                       every dropped offset: records after a cut, segments dropped after damage, or a lost first
 *                       segment whose range {@link RecoveryMode#TRUNCATE_AT_CORRUPTION} gave up), or -1 when
 *                       nothing was dropped.
 * @param droppedToOffset the offset after the highest one dropped, or -1 when nothing was dropped. Offsets in the
 *                       range are never given to new records: a log whose every segment was dropped restarts at its
 *                       old end.
 *                       <p>
 *                       A hole: when the records end below an offset a dropped record may have held (with
 *                       {@link RecoveryMode#TRUNCATE_AT_CORRUPTION} the offset the checkpoint names as durable; in
 *                       every mode that drops records, {@link RecoveryMode#TOLERATE_TORN_TAIL}'s torn tail included,
 *                       the end of valid records found after the cut below or beyond the watermark), the log goes on
 *                       at that offset ({@link Log#endOffset()}), not at {@code cutOffset}: the offsets between, this range,
 *                       belong to no record, and a new segment's header records them. Where lost bytes may have
 *                       held records beyond every offset recovery knows of (after a crash, the newest segment's file
 *                       cut short or lost: how far its records reached is unknown, and {@code droppedRecords} counts
 *                       only what is known), the hole goes up to a bound: the highest base that segment can have plus
 *                       the most offsets a segment can hold (docs/durability.md). A read at an offset in the hole
 *                       returns the records from its end (the batch's first offset is above the one asked for);
 *                       {@link Log#truncateTo} an offset in it truncates at its end. {@link Long#MAX_VALUE} only
 *                       where no such bound could be put (not expected).
 */
public record RecoveryReport(RecoveryMode mode, boolean cleanShutdown, long scannedBytes, long cutPosition,
    long cutOffset, long droppedRecords, boolean tornTail, long zeroedBytes, long extendedBytes, int unreadableBlocks,
    long recoveryMillis, long droppedFromOffset, long droppedToOffset)
{
    /**
     * A report whose dropped offsets, if any, follow the end: {@code [cutOffset, cutOffset + droppedRecords)}.
     *
     * @param mode             the recovery mode in force.
     * @param cleanShutdown    true when the log was closed cleanly.
     * @param scannedBytes     segment bytes read and checked.
     * @param cutPosition      the cut position, or -1.
     * @param cutOffset        the end offset after recovery.
     * @param droppedRecords   offsets dropped after the cut.
     * @param tornTail         true when a torn tail was cut.
     * @param zeroedBytes      non-zero bytes zeroed after the end.
     * @param extendedBytes    bytes a short segment file was extended by.
     * @param unreadableBlocks blocks taken as damaged after read errors.
     * @param recoveryMillis   wall time of the open.
     */
    public RecoveryReport(final RecoveryMode mode, final boolean cleanShutdown, final long scannedBytes,
        final long cutPosition, final long cutOffset, final long droppedRecords, final boolean tornTail,
        final long zeroedBytes, final long extendedBytes, final int unreadableBlocks, final long recoveryMillis)
    {
        this(mode, cleanShutdown, scannedBytes, cutPosition, cutOffset, droppedRecords, tornTail, zeroedBytes,
            extendedBytes, unreadableBlocks, recoveryMillis, droppedRecords > 0 ? cutOffset : -1,
            droppedRecords > 0 ? cutOffset + droppedRecords : -1);
    }
}
