package io.directlog.replication.ratis;

import java.util.Map;
import java.util.TreeMap;

import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * The batches a replica wrote last, by Raft index, so that as leader it sends them to its followers from memory.
 * Ratis's log cache holds no batches here ({@code statemachine.data.caching.enabled}, see
 * {@link RatisReplicationNode}), so without this every entry sent to every follower is a {@link
 * PartitionStateMachine#read}: a hop to the read pool, a wait until the leader's own append is durable, a read
 * back from DirectLog and a copy. Entries not here (older, evicted, or written before a restart) still take that
 * path.
 * <p>
 * Bounded by bytes: the oldest go first. The batches are the cleared bytes the entry carried (the same bytes
 * {@link PartitionStateMachine#read} rebuilds from the log), held as arrays nobody writes to after they are added.
 * <p>
 * Thread-safe: Ratis's write path adds, the leader's appenders get, truncation removes; one monitor.
 */
final class RecentBatches
{
    private final long maxBytes;
    /** Guarded by this. */
    private final TreeMap<Long, Cached> byIndex = new TreeMap<>();
    /** Sum of the cached batches' sizes. Guarded by this. */
    private long bytes;

    private record Cached(long term, ByteString batch)
    {
    }

    /**
     * @param maxBytes the most batch bytes held; 0 holds nothing (every follower read goes to the log).
     */
    RecentBatches(final long maxBytes)
    {
        if (maxBytes < 0)
        {
            throw new IllegalArgumentException("maxBytes must not be negative; got " + maxBytes);
        }
        this.maxBytes = maxBytes;
    }

    /**
     * Keeps the batch of the entry just written; entries at or past its index (a tail Raft replaced) are dropped.
     *
     * @param index the entry's Raft index.
     * @param term  the entry's term.
     * @param batch the entry's batch, never modified afterwards.
     */
    synchronized void put(final long index, final long term, final ByteString batch)
    {
        if (maxBytes == 0)
        {
            return;
        }
        removeFromLocked(index);
        if (batch.size() > maxBytes)
        {
            return;
        }
        byIndex.put(index, new Cached(term, batch));
        bytes += batch.size();
        while (bytes > maxBytes)
        {
            bytes -= byIndex.pollFirstEntry().getValue().batch().size();
        }
    }

    /**
     * @param index a Raft index.
     * @param term  the term of the entry at that index.
     * @return the batch of that entry, or null when it is not held (or is held for another term).
     */
    synchronized ByteString get(final long index, final long term)
    {
        final Cached c = byIndex.get(index);
        return c != null && c.term() == term ? c.batch() : null;
    }

    /** Drops the entries at or past the index (Raft truncated them). */
    synchronized void removeFrom(final long index)
    {
        removeFromLocked(index);
    }

    private void removeFromLocked(final long index)
    {
        final Map<Long, Cached> tail = byIndex.tailMap(index, true);
        for (final Cached c : tail.values())
        {
            bytes -= c.batch().size();
        }
        tail.clear();
    }

    /** @return the batch bytes held now. */
    synchronized long bytes()
    {
        return bytes;
    }
}
