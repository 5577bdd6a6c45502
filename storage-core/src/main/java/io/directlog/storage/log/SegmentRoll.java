package io.directlog.storage.log;

import io.directlog.storage.Durability;
import io.directlog.storage.format.SegmentHeaderDescriptor;

/**
 * The file and memory side of a roll: takes the next prepared segment file (waiting for the preparer when none is
 * ready: a counted stall), opens the segment on it with its index, a new write page and its header, and seals the
 * previous segment for readers and the syncer.
 * <p>
 * Design note: apart from {@link LogAppender} so that the appender keeps to where records go and when they are
 * written and acknowledged; what a new segment is made of is this class's.
 * <p>
 * Not thread-safe; owned by the log's writer thread.
 */
final class SegmentRoll
{
    private final LogParts parts;
    private final SegmentHost host;
    private final WritePage page;
    private final AppendCounters counters;

    SegmentRoll(final LogParts parts, final SegmentHost host, final WritePage page, final AppendCounters counters)
    {
        this.parts = parts;
        this.host = host;
        this.page = page;
        this.counters = counters;
    }

    /** Why a roll could not open the next segment (the append that needed it fails with {@link #why()}). */
    static final class Refused extends Exception
    {
        private static final long serialVersionUID = 1L;
        private final transient Throwable why;

        Refused(final Throwable why)
        {
            super(why.getMessage(), null, false, false);
            this.why = why;
        }

        Throwable why()
        {
            return why;
        }
    }

    /**
     * Opens the next segment: a prepared file of the next rung of the SegmentLadder, a growing write page from its start (the page held until now
     * becomes read cache, charged for the blocks below {@code heldEnd}, once the new one is had), the header in
     * the page (it goes to disk with the first flush). Not yet in the segment set.
     *
     * @param baseOffset its first record's offset.
     * @param heldEnd    the end of what the writer wrote into the page it held until now.
     * @param aligned    the aligned length of the record the roll is for: the segment's rung must hold it.
     * @return the segment.
     * @throws Refused when no prepared file, no descriptor or no page could be had; the file stays first in line.
     */
    Segment open(final long baseOffset, final int heldEnd, final int aligned) throws Refused
    {
        final SpareSegments spares = parts.spares();
        final PreparedSegment next;
        try
        {
            next = spares.take(aligned, counters); // a counted stall when none is ready
        }
        catch (final SpareSegments.NoPreparedSegment e)
        {
            throw new Refused(e.why());
        }
        final LogMeta meta = parts.meta();
        final int blockLength = parts.block().length();
        // a recycled file's segment zeroes the block after each write: its records never end in stale bytes
        final Segment segment = new Segment(host, next.sequence(), baseOffset, next.path(), next.size(),
            blockLength, next.recycled(), next.recycled(), -1);
        segment.index(new SegmentIndex(next.size()));
        try
        {
            SegmentWriteFiles.open(parts.context().io(), segment); // a prepared file waits without a descriptor
        }
        catch (final java.io.IOException e)
        {
            spares.putBack(next); // keep the file for later, first in line: files are taken in sequence order
            throw new Refused(e);
        }
        final Throwable noPage = page.take(segment, 0, heldEnd);
        if (noPage != null)
        {
            segment.closeWriteFiles();
            spares.putBack(next);
            throw new Refused(noPage);
        }
        SegmentHeaderDescriptor.write(page.buffer(), meta.logId(), baseOffset, next.sequence(), next.size(),
            blockLength, System.currentTimeMillis(), next.recycled() ?
            SegmentHeaderDescriptor.FLAG_RECYCLED | SegmentHeaderDescriptor.FLAG_WRITE_MARKS |
            SegmentHeaderDescriptor.FLAG_ZERO_AHEAD : 0);
        return segment;
    }

    /**
     * Seals the segment the writer leaves: its end recorded, hidden from readers until durable (but on a MEMORY
     * log), queued for the syncer. Call before the new segment becomes active.
     *
     * @param previous the segment rolled from.
     * @param end      where its records end.
     * @param endOffset the offset there.
     */
    void seal(final Segment previous, final int end, final long endOffset)
    {
        previous.seal(end, endOffset);
        final Visibility visibility = parts.visibility();
        if (visibility.visibleEndOffset() < endOffset && parts.config().get().durability() != Durability.MEMORY)
        {
            visibility.hideRolled(previous); // its end becomes visible once durable (publishVisible)
        }
        // queued for the syncer before the new segment becomes active: a syncer that sees the new active
        // segment also finds the old one here (or already synced), so its watermark's segment is synced
        parts.rolledUnsynced().add(previous);
        counters.onRoll();
    }

    /**
     * Makes the new segment the active one: in the set before any offset in it becomes visible, then active, its
     * end at its header; then a checkpoint slot names it (O_DSYNC, one per roll, before any record in it is written
     * or acknowledged), so that its file lost after the watermark is found at open, not taken for the end (issue 17,
     * defect 5). A failed slot write fail-stops the log: the append that rolled fails with it.
     *
     * @param segment    the segment {@link #open} made.
     * @param baseOffset its first record's offset.
     */
    void activate(final Segment segment, final long baseOffset)
    {
        final SegmentSet segments = parts.segments();
        segments.append(segment);
        segments.activate(segment);
        segment.publishEnd(SegmentHeaderDescriptor.LENGTH, baseOffset);
        try
        {
            parts.checkpoint().rewriteSegmentList();
        }
        catch (final java.io.IOException e)
        {
            parts.lifecycle().failStop("checkpoint write naming " + segment.path().getFileName() + " at a roll", e);
        }
    }
}
