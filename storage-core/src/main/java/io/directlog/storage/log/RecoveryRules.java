package io.directlog.storage.log;

import io.directlog.storage.RecoveryMode;
import io.directlog.storage.format.RecordDescriptor;
import io.directlog.storage.format.SegmentHeaderDescriptor;

/**
 * Every decision recovery takes by {@link RecoveryMode}, in one place and without I/O: the loader finds what is
 * on disk, asks here what that means, and acts (refuses the open, cuts, drops, reuses). So the rules can be read,
 * and tested, apart from the files.
 * <p>
 * In short: TOLERATE_TORN_TAIL cuts damage beyond the durable watermark when it can be a torn write, and refuses
 * anything else; ABSOLUTE_CONSISTENCY refuses any damage and takes nothing on trust; TRUNCATE_AT_CORRUPTION cuts
 * at the first damage wherever it is, gives up lost segments, and counts what it dropped.
 * <p>
 * Immutable.
 */
final class RecoveryRules
{
    /** What to do with damage found at a segment's end of records. */
    enum DamageVerdict
    {
        /** Damage below the durable watermark: corruption. */
        REFUSE_BELOW_WATERMARK,
        /** Any damage: ABSOLUTE_CONSISTENCY opens nothing damaged. */
        REFUSE_ANY_DAMAGE,
        /** Bytes of a file are missing (it is short): a lost part of a file, not a torn write. */
        REFUSE_LOST_FILE_PART,
        /** Valid records follow the damage with no unwritten sector between: corruption, not a torn tail. */
        REFUSE_VALID_RECORDS_AFTER,
        /** Cut there and count everything after it as dropped (TRUNCATE_AT_CORRUPTION). */
        CUT_AND_COUNT,
        /** A torn tail beyond the watermark: cut, and count only valid survivors of the torn write. */
        CUT_TORN_TAIL
    }

    /**
     * Damage where a segment's records end.
     *
     * @param belowWatermark   it lies below the durable watermark.
     * @param bytesMissing     the file is shorter than its segment and its records reach its last block.
     * @param validAfter       valid records of this log follow it in the segment.
     * @param recycledSegment  the segment was made from a recycled file (stale bytes after its end are expected).
     * @param looksTorn        some sector of the damaged span reads as never written (see LogLoader.looksTorn).
     */
    record Damage(boolean belowWatermark, boolean bytesMissing, boolean validAfter, boolean recycledSegment,
        boolean looksTorn)
    {
    }

    private final RecoveryMode mode;

    RecoveryRules(final RecoveryMode mode)
    {
        if (mode == null)
        {
            throw new NullPointerException("mode must not be null");
        }
        this.mode = mode;
    }

    /** @return the mode these rules follow. */
    RecoveryMode mode()
    {
        return mode;
    }

    /** @return true when damage the open found is cut and counted rather than refused (TRUNCATE_AT_CORRUPTION). */
    boolean cutsCorruption()
    {
        return mode == RecoveryMode.TRUNCATE_AT_CORRUPTION;
    }

    /**
     * Segment files the checkpoint names are missing, or have no header (or an invalid one) with records after
     * them, or the checkpoint's watermark names no segment file.
     *
     * @return true when the open goes on without them (the range reported), false when it is refused.
     */
    boolean givesUpLostSegments()
    {
        return mode == RecoveryMode.TRUNCATE_AT_CORRUPTION;
    }

    /**
     * The newest segment file's header is invalid: a torn first write (the file is re-zeroed and reused as a
     * prepared segment), unless something says records were there.
     *
     * @param coveredByWatermark the checkpoint's watermark lies in that segment or a later one.
     * @param validRecordsAfter  valid records of this log follow the header (the verdict for false is known
     *                           before the file is read: a refusal then needs no scan).
     * @return REFUSE_ANY_DAMAGE, REFUSE_BELOW_WATERMARK or REFUSE_VALID_RECORDS_AFTER to refuse the open;
     *     CUT_AND_COUNT to reuse the file and count the records after the header as dropped; CUT_TORN_TAIL to
     *     reuse it with nothing to count.
     */
    DamageVerdict judgeBadNewestHeader(final boolean coveredByWatermark, final boolean validRecordsAfter)
    {
        if (mode == RecoveryMode.ABSOLUTE_CONSISTENCY)
        {
            return DamageVerdict.REFUSE_ANY_DAMAGE;
        }
        if (mode == RecoveryMode.TOLERATE_TORN_TAIL && coveredByWatermark)
        {
            return DamageVerdict.REFUSE_BELOW_WATERMARK;
        }
        if (!validRecordsAfter)
        {
            return DamageVerdict.CUT_TORN_TAIL;
        }
        return mode == RecoveryMode.TOLERATE_TORN_TAIL ? DamageVerdict.REFUSE_VALID_RECORDS_AFTER :
            DamageVerdict.CUT_AND_COUNT;
    }

    /** @return true when a headerless file below segments holding records (a hole) refuses the open. */
    boolean refusesHole()
    {
        return mode == RecoveryMode.ABSOLUTE_CONSISTENCY;
    }

    /**
     * @param damage what was found.
     * @return what to do with it.
     */
    DamageVerdict judge(final Damage damage)
    {
        if (damage.belowWatermark())
        {
            return mode == RecoveryMode.TRUNCATE_AT_CORRUPTION ? DamageVerdict.CUT_AND_COUNT :
                DamageVerdict.REFUSE_BELOW_WATERMARK;
        }
        if (mode == RecoveryMode.ABSOLUTE_CONSISTENCY)
        {
            return DamageVerdict.REFUSE_ANY_DAMAGE;
        }
        if (mode == RecoveryMode.TOLERATE_TORN_TAIL && damage.bytesMissing())
        {
            return DamageVerdict.REFUSE_LOST_FILE_PART;
        }
        if (mode == RecoveryMode.TOLERATE_TORN_TAIL && damage.validAfter() && !damage.recycledSegment() &&
            !damage.looksTorn())
        {
            return DamageVerdict.REFUSE_VALID_RECORDS_AFTER;
        }
        return mode == RecoveryMode.TRUNCATE_AT_CORRUPTION ? DamageVerdict.CUT_AND_COUNT :
            DamageVerdict.CUT_TORN_TAIL;
    }

    /**
     * @param validAfter      valid records of this log follow the damage.
     * @param recycledSegment the segment was made from a recycled file.
     * @return true when {@link #judge} may depend on {@link Damage#looksTorn()}, so that it is worth finding out.
     */
    boolean asksIfTorn(final boolean validAfter, final boolean recycledSegment)
    {
        return mode == RecoveryMode.TOLERATE_TORN_TAIL && validAfter && !recycledSegment;
    }

    /**
     * After a crash, whether the lost bytes past a short file's end make the dropped range open-ended: they may
     * have held records beyond the watermark, and how many cannot be known.
     *
     * @param cleanCheckpoint the checkpoint was written by a clean close.
     * @param cutHere         the log was cut in this segment.
     */
    boolean lostFileEndIsUnbounded(final boolean cleanCheckpoint, final boolean cutHere)
    {
        return !cleanCheckpoint && mode == RecoveryMode.TRUNCATE_AT_CORRUPTION && cutHere;
    }

    /**
     * @param clean the open found a clean close.
     * @return true when every record up to the checkpoint's watermark counts as existing (so as dropped when not
     *     found): the watermark was durable.
     */
    boolean countsDroppedUpToWatermark(final boolean clean)
    {
        return mode == RecoveryMode.TRUNCATE_AT_CORRUPTION && !clean;
    }

    /**
     * Where appends go on after a recovery dropped records, in every mode: offsets are never given to a second
     * record (issue 17), so never below any offset a dropped record may have held, acknowledged or not (a record
     * found after the cut may have been acknowledged, DSYNC or DIRECT, and read, before the crash). The highest of:
     * <ul>
     * <li>where the recovered records end;</li>
     * <li>the offset the checkpoint names as durable;</li>
     * <li>the end of the farthest dropped record found (after the damage in the cut segment, a write mark's end in
     *     a recycled one, in dropped segments), whether below or beyond the watermark;</li>
     * <li>where the dropped range is open-ended (after a crash, bytes of the newest segment lost: its file cut
     *     short, deleted, or the watermark's file gone), nothing says how far the lost records reached, only where
     *     their segment started at the highest ({@code lostBase}) and how big it could be: the most offsets a
     *     segment can hold is {@link #mostOffsetsIn}, so that is the bound, however far above the last record seen.
     *     </li>
     * </ul>
     * A truncation in progress gives up the offsets from its point by design ({@code Log.truncateTo}: a follower
     * takes the leader's records there): nothing at or above {@code truncatedAt} counts. The inputs differ by mode,
     * not the rule: TRUNCATE_AT_CORRUPTION drops what the others refuse (damage below the watermark, lost files,
     * open-ended drops), so there the checkpoint's end and the bound count; TOLERATE_TORN_TAIL drops only a torn
     * tail, and goes on at the cut only when nothing valid is known after it (a plain torn tail), else after the
     * farthest record found (a hole, as here); ABSOLUTE_CONSISTENCY drops nothing.
     *
     * @param recordsEnd  where the recovered records end.
     * @param durableEnd  the offset the checkpoint names as durable, or -1 (none).
     * @param droppedEnd  the end of the farthest dropped record found, or -1.
     * @param lostBase    the highest base offset the segment whose bytes were lost can have, or -1 when nothing
     *                    lost is unknown.
     * @param segmentSize the log's segment size (the largest rung).
     * @param truncatedAt the point of a truncation the checkpoint says was in progress, or -1.
     * @return the offset appends go on at: {@code recordsEnd}, or above it after a hole in the offsets.
     */
    long continueAt(final long recordsEnd, final long durableEnd, final long droppedEnd, final long lostBase,
        final int segmentSize, final long truncatedAt)
    {
        long at = Math.max(durableEnd, droppedEnd);
        if (lostBase >= 0)
        {
            at = Math.max(at, saturatedAdd(lostBase, mostOffsetsIn(segmentSize)));
        }
        if (truncatedAt >= 0)
        {
            at = Math.min(at, truncatedAt);
        }
        return Math.max(recordsEnd, at);
    }

    /**
     * The most offsets a segment of {@code size} bytes can hold: a record per 32-byte header after the segment
     * header, each a producer batch of up to {@link Integer#MAX_VALUE} records (the API bounds a batch's count by
     * nothing smaller). Under 2^57 for the largest segment, so the bound stays far from overflowing.
     */
    static long mostOffsetsIn(final int size)
    {
        final long records = Math.max(0, size - SegmentHeaderDescriptor.LENGTH) /
            RecordDescriptor.HEADER_LENGTH;
        return records * Integer.MAX_VALUE;
    }

    private static long saturatedAdd(final long a, final long b)
    {
        final long sum = a + b;
        return sum < a ? Long.MAX_VALUE : sum;
    }

    /**
     * Whether a file given back (retention) or found spare (after a clean close) may be reused without zeroing
     * it all: not when the log zeroes recycled files, nor under ABSOLUTE_CONSISTENCY, which must see every byte
     * after the end zero (a recycled segment's recovery takes its stale bytes on trust).
     *
     * @param zeroRecycledSegments the log's setting.
     */
    boolean reusesFilesAsIs(final boolean zeroRecycledSegments)
    {
        return !zeroRecycledSegments && mode != RecoveryMode.ABSOLUTE_CONSISTENCY;
    }
}
