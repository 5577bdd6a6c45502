package io.directlog.storage.log;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The store manifest's record of a log ({@link LogFacts}) as the checkpoint slot its clean close wrote, and the
 * restore of a lost checkpoint from it (issue 17). A checkpoint file that is missing or has no valid slot names
 * no segment list, so a first segment lost with it looks like retention's work and a lost newest one like the
 * end. After a clean close the manifest names the same list, start and end: the open writes the clean close's
 * slot again from it, and then checks the files against it exactly as against a checkpoint that was never lost
 * ({@link SegmentListCheck}). Written to disk rather than held in memory, so that an open the mode refuses is
 * refused again by the next one, which finds no manifest (the registry removed it before this load).
 * <p>
 * Only what is provably current is used: the facts reach a load only while the manifest was valid at the store's
 * open and the log has not been loaded since, and the registry removes the manifest durably before any log's
 * files change, so a log used after its clean close leaves no manifest to stand in. As a second guard (files put
 * back from elsewhere, or written by a build that did not know the manifest), the segment headers left must be
 * the manifest's: every one in its list at its base offset, none after its last. Otherwise nothing is restored
 * and the log opens as before, its files scanned as after a crash (a WARNING says why).
 * <p>
 * Not thread-safe: one open, on the opening thread.
 */
final class ManifestCheckpoint extends RecoveryStep
{
    ManifestCheckpoint(final RecoveryScope scope)
    {
        super(scope);
    }

    /** @return the checkpoint slot the clean close recorded in {@code facts} wrote (no segment after the end's). */
    static Checkpoint.State cleanState(final LogFacts facts)
    {
        final List<LogFacts.SegmentFacts> s = facts.segments();
        final LogFacts.SegmentFacts first = s.isEmpty() ? null : s.get(0);
        final LogFacts.SegmentFacts last = s.isEmpty() ? null : s.get(s.size() - 1);
        return new Checkpoint.State(facts.checkpointGeneration(), facts.endSequence(), facts.endPosition(),
            facts.endOffset(), facts.lastRecordPosition(), facts.lastRecordOffset(), true, false,
            first == null ? facts.endOffset() : first.baseOffset(), first == null ? -1 : first.sequence(),
            s.size(), last == null ? -1 : last.sequence(), last == null ? -1 : last.baseOffset(), 0);
    }

    /**
     * Restores a lost checkpoint from the manifest's facts, when the files left agree with them.
     *
     * @param opened the checkpoint as opened, with no valid slot (closed here when it is replaced).
     * @param facts  what the manifest records of the log.
     * @param meta   the log's identity.
     * @param used   the segment files with a valid header of this log, by sequence.
     * @return the checkpoint to recover with: {@code opened}, or the restored one.
     * @throws IOException when the restored checkpoint cannot be written or read back.
     */
    Checkpoint restore(final Checkpoint opened, final LogFacts facts, final LogMeta meta, final List<Segment> used)
        throws IOException
    {
        final String lost = "log '" + name + "': the checkpoint " + (opened.existed() ? "has no valid slot" :
            "is missing");
        final String stale = disagreement(facts, meta, used);
        if (stale != null)
        {
            LOG.log(System.Logger.Level.WARNING, lost + ", and the store manifest does not describe the files " +
                "left (" + stale + "): nothing names the segment list, the log is scanned as after a crash");
            return opened;
        }
        final Checkpoint.State state = cleanState(facts);
        opened.close();
        Checkpoint.restore(io, dir, meta.logId(), state);
        LOG.log(System.Logger.Level.WARNING, lost + ": written again from the store manifest of the last clean " +
            "close (end offset " + state.offset() + " in segment " + state.sequence() + ", start offset " +
            state.startOffset() + ", " + state.segmentCount() + " segment(s) from " + state.firstSequence() +
            "); the segment files are checked against it");
        return Checkpoint.open(io, dir, meta.logId());
    }

    /** @return how the files left differ from the manifest's facts, beyond files lost from its list; or null. */
    private static String disagreement(final LogFacts facts, final LogMeta meta, final List<Segment> used)
    {
        if (facts.logId() != meta.logId())
        {
            return "it names log id 0x" + Long.toHexString(facts.logId()) + ", log.meta 0x" +
                Long.toHexString(meta.logId());
        }
        final List<LogFacts.SegmentFacts> known = facts.segments();
        final long last = known.isEmpty() ? -1 : known.get(known.size() - 1).sequence();
        if (last != facts.endSequence())
        {
            return "its end is in segment " + facts.endSequence() + ", its last segment is " + last;
        }
        final Map<Long, Long> bases = new HashMap<>();
        known.forEach(s -> bases.put(s.sequence(), s.baseOffset()));
        for (final Segment s : used)
        {
            final Long base = bases.get(s.sequence());
            if (base == null)
            {
                return "segment file " + s.path().getFileName() + " (base offset " + s.baseOffset() + ") is not in " +
                    "its list of " + known.size() + (s.sequence() > last ? ": written after it" : "");
            }
            if (base != s.baseOffset())
            {
                return "segment file " + s.path().getFileName() + " starts at offset " + s.baseOffset() +
                    ", the manifest says " + base;
            }
        }
        return null;
    }
}
