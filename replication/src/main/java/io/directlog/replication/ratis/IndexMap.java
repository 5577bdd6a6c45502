package io.directlog.replication.ratis;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

import io.directlog.storage.Log;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;

/**
 * Raft index to DirectLog offset, for the batches of one partition.
 * <p>
 * Two halves split at {@code coveredFrom}: the batches at or above that offset are all in an in-memory map (written
 * by this process, or kept since); those below it are found by a binary search over the log, whose frames carry
 * their Raft index (FrameDescriptor) and whose indexes grow with offsets. Nothing is persisted beside the log, so
 * a restart finds the map exactly as durable as the batches.
 * <p>
 * Thread-safe for lookups against one mutator: {@link #put}, {@link #removeFrom} and {@link #forgetBefore} are
 * called by the state machine under its own lock (Ratis calls write and truncate in log order).
 */
final class IndexMap
{
    /**
     * Where one batch is.
     *
     * @param raftIndex   the Raft entry's index.
     * @param baseOffset  the batch's first offset.
     * @param recordCount how many records it holds.
     * @param leaderEpoch the entry's term.
     */
    record Position(long raftIndex, long baseOffset, int recordCount, int leaderEpoch)
    {
        long nextOffset()
        {
            return baseOffset + recordCount;
        }
    }

    private final Log log;
    private final ConcurrentSkipListMap<Long, Position> recent = new ConcurrentSkipListMap<>();
    private volatile long coveredFrom;
    /**
     * The last batch a lookup found in the log. After a restart Ratis applies every committed entry again, in
     * order, and each apply looks its batch up: the next one is usually the batch right after this, one read
     * instead of a binary search of ~log2(batches) reads (issue 22: a restarted node's replay). A hint, re-read
     * from the log each time; truncation drops it.
     */
    private volatile Position lastFound;

    IndexMap(final Log log)
    {
        this.log = log;
        this.coveredFrom = log.endOffset();
    }

    void put(final Position position)
    {
        recent.put(position.raftIndex(), position);
    }

    /** @return the batch of exactly this Raft entry, or null when the entry carried none (or is unknown). */
    Position lookup(final long raftIndex)
    {
        final Position p = recent.get(raftIndex);
        if (p != null || (!recent.isEmpty() && raftIndex >= recent.firstKey()))
        {
            return p;
        }
        Position found = ceilingAfterHint(raftIndex);
        if (found == null)
        {
            found = searchCeiling(raftIndex);
        }
        if (found != null && found.raftIndex() == raftIndex)
        {
            lastFound = found;
            return found;
        }
        return null;
    }

    /**
     * @return the first batch at or above raftIndex when it is the one right after the last found (batches' Raft
     *         indexes grow with their offsets, so that batch is the ceiling), else null: search.
     */
    private Position ceilingAfterHint(final long raftIndex)
    {
        final Position hint = lastFound;
        if (hint == null || hint.raftIndex() >= raftIndex || hint.nextOffset() >= coveredFrom)
        {
            return null;
        }
        try
        {
            final Position next = at(hint.nextOffset());
            return next.raftIndex() >= raftIndex ? next : null;
        }
        catch (final RuntimeException e)
        {
            return null; // the log moved under the hint (truncated): the search decides
        }
    }

    /** @return the first batch whose Raft index is at or above raftIndex, or null. */
    Position ceiling(final long raftIndex)
    {
        final Position older = searchCeiling(raftIndex);
        if (older != null)
        {
            return older;
        }
        final Map.Entry<Long, Position> e = recent.ceilingEntry(raftIndex);
        return e == null ? null : e.getValue();
    }

    /** @return the last batch whose Raft index is at or below raftIndex, or null. */
    Position floor(final long raftIndex)
    {
        final Map.Entry<Long, Position> e = recent.floorEntry(raftIndex);
        return e != null ? e.getValue() : searchFloor(raftIndex);
    }

    /** @return the last batch written, or null for an empty log. */
    Position last()
    {
        final Map.Entry<Long, Position> e = recent.lastEntry();
        return e != null ? e.getValue() : searchFloor(Long.MAX_VALUE);
    }

    /** Forgets the batches of Raft index at or above raftIndex; the log now ends at newEndOffset. */
    void removeFrom(final long raftIndex, final long newEndOffset)
    {
        lastFound = null;
        recent.tailMap(raftIndex, true).clear();
        if (newEndOffset < coveredFrom)
        {
            coveredFrom = newEndOffset;
        }
    }

    /**
     * Drops in-memory positions below raftIndex (they are found in the log from then on). Only for batches whose
     * appends have completed, so that the log shows them.
     */
    void forgetBefore(final long raftIndex)
    {
        final ConcurrentNavigableMap<Long, Position> head = recent.headMap(raftIndex, false);
        if (head.isEmpty())
        {
            return;
        }
        final long newCoveredFrom = head.lastEntry().getValue().nextOffset();
        // Raise the boundary before removing: a lookup in between finds the batch in one half or the other.
        coveredFrom = newCoveredFrom;
        final Iterator<Long> it = head.keySet().iterator();
        while (it.hasNext())
        {
            it.next();
            it.remove();
        }
    }

    int inMemorySize()
    {
        return recent.size();
    }

    private Position searchCeiling(final long raftIndex)
    {
        long lo = log.startOffset();
        long hi = coveredFrom - 1;
        Position best = null;
        while (lo <= hi)
        {
            final Position p = at(lo + (hi - lo) / 2);
            if (p.raftIndex() >= raftIndex)
            {
                best = p;
                hi = p.baseOffset() - 1;
            }
            else
            {
                lo = p.nextOffset();
            }
        }
        return best;
    }

    private Position searchFloor(final long raftIndex)
    {
        long lo = log.startOffset();
        long hi = coveredFrom - 1;
        Position best = null;
        while (lo <= hi)
        {
            final Position p = at(lo + (hi - lo) / 2);
            if (p.raftIndex() <= raftIndex)
            {
                best = p;
                lo = p.nextOffset();
            }
            else
            {
                hi = p.baseOffset() - 1;
            }
        }
        return best;
    }

    /** Reads the frame header of the batch holding offset. */
    Position at(final long offset)
    {
        try (RecordBatch batch = log.read(offset, 1))
        {
            final Iterator<Record> it = batch.iterator();
            if (!it.hasNext())
            {
                throw new IllegalStateException(log.name() + ": offset " + offset + " is not readable");
            }
            final Record r = it.next();
            if (r.payloadLength() < FrameDescriptor.HEADER_LENGTH)
            {
                throw new IllegalStateException(log.name() + ": record at " + r.offset() + " has " +
                    r.payloadLength() + " bytes, less than a frame header: not a replicated partition's log");
            }
            final ByteBuffer header = ByteBuffer.allocate(FrameDescriptor.HEADER_LENGTH);
            r.payload().getBytes(0, header, FrameDescriptor.HEADER_LENGTH);
            return new Position(header.getLong(FrameDescriptor.RAFT_INDEX_OFFSET), r.offset(), r.recordCount(),
                header.getInt(FrameDescriptor.LEADER_EPOCH_OFFSET));
        }
    }
}
