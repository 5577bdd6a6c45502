package io.directlog.storage.log;

/**
 * Sparse offset and time index of one segment: an entry for the first record after each {@link #INTERVAL} bytes of
 * records, so a lookup is a binary search plus a scan of at most one interval of records. Record bytes are counted,
 * not positions: the gap after a write ({@code format.md}, "Gaps") takes no entry, so a lone producer whose every
 * record sits in its own 4 KiB block costs an entry per 4 KiB of records, not one per record.
 * <p>
 * Timestamps never go backwards within a log, so the same entries answer time queries. Every
 * {@link #TIMESTAMP_EVERY}th entry carries a timestamp: a time lookup stops at such an entry and scans at most that
 * many intervals further, which a time query (it reads 1 MiB batches from there) does not notice, while the index
 * costs 8 bytes an entry instead of 16.
 * <p>
 * Memory grows with the records, not the segment's capacity: entries live in chunks of {@link #CHUNK_ENTRIES},
 * allocated as the segment fills, the position as an int, the offset and the sampled timestamp as int deltas from
 * the chunk's first entry. A delta that does not fit an int (more than 2^31 offsets, or 24.8 days, since the
 * chunk's first entry) is stored as "unknown" and reads as {@link Long#MAX_VALUE}: lookups then never stop at it
 * and scan from an earlier entry, which is slower but still exact.
 * <p>
 * Derived data: kept in memory while the segment is open, persisted as {@code <seq>.idx} ({@link IndexFile}) for
 * rolled segments and at close, rebuilt by scanning when missing or invalid.
 * <p>
 * Single writer (the log's writer thread, or whoever builds it by a scan before publishing it); many readers.
 * Entries are written before {@link #count} is released, so readers see only complete entries.
 */
public final class SegmentIndex
{
    /** Bytes of records between entries. */
    public static final int INTERVAL = 4096;
    /** Entries per chunk. */
    public static final int CHUNK_ENTRIES = 512;
    /** Entries per timestamp sample: entries 0, 16, 32 ... carry one. */
    public static final int TIMESTAMP_EVERY = 16;

    private static final int CHUNK_SHIFT = Integer.numberOfTrailingZeros(CHUNK_ENTRIES);
    private static final int CHUNK_MASK = CHUNK_ENTRIES - 1;
    private static final int SAMPLE_SHIFT = Integer.numberOfTrailingZeros(TIMESTAMP_EVERY);
    /** A delta too large for an int: the value is unknown, and reads as Long.MAX_VALUE. */
    private static final int UNKNOWN = Integer.MAX_VALUE;

    private final Chunk[] chunks;
    private final int capacity;
    private volatile int count;
    /** Record bytes since the last entry; at least INTERVAL means the next record takes one. Single writer. */
    private long bytesSinceEntry = INTERVAL;
    private long lastRestoredTimestamp = Long.MIN_VALUE;

    /** Entries {@code k * CHUNK_ENTRIES} and on; offsets and timestamps relative to the first of them. */
    private static final class Chunk
    {
        final long baseOffset;
        final long baseTimestamp;
        final int[] positions = new int[CHUNK_ENTRIES];
        final int[] offsetDeltas = new int[CHUNK_ENTRIES];
        final int[] timestampDeltas = new int[CHUNK_ENTRIES / TIMESTAMP_EVERY];

        Chunk(final long baseOffset, final long baseTimestamp)
        {
            this.baseOffset = baseOffset;
            this.baseTimestamp = baseTimestamp;
        }
    }

    /**
     * @param segmentSize the segment's capacity (bounds the number of entries).
     */
    public SegmentIndex(final int segmentSize)
    {
        capacity = segmentSize / INTERVAL + 2;
        chunks = new Chunk[(capacity + CHUNK_ENTRIES - 1) >>> CHUNK_SHIFT];
    }

    /**
     * Adds an entry if {@link #INTERVAL} bytes of records went by since the last one. Single writer.
     *
     * @param offset    the record's base offset.
     * @param position  its position in the segment.
     * @param timestamp its timestamp.
     * @param length    its length in the segment (aligned; the gap after it not included).
     */
    public void onRecord(final long offset, final int position, final long timestamp, final int length)
    {
        if (bytesSinceEntry >= INTERVAL)
        {
            final int n = count;
            if (n < capacity)
            {
                put(n, offset, position, timestamp);
            }
            bytesSinceEntry = 0;
        }
        bytesSinceEntry += length;
    }

    /**
     * Gives the next record an entry whatever the bytes since the last one: the first record of a write page taken
     * in the middle of the segment, so that a reader of it (or of a later record) finds an entry at or above the
     * page's first byte and reads the page, not the disk, which does not hold what the writer has not flushed yet.
     * Single writer.
     */
    public void entryAtNextRecord()
    {
        bytesSinceEntry = INTERVAL;
    }

    private void put(final int n, final long offset, final int position, final long timestamp)
    {
        final int k = n >>> CHUNK_SHIFT;
        final int i = n & CHUNK_MASK;
        Chunk chunk = chunks[k];
        if (i == 0)
        {
            // a chunk's first entry sets its bases: a fresh chunk also after a truncation, whose new entries may lie
            // below the old bases
            chunk = new Chunk(offset, timestamp);
            chunks[k] = chunk;
        }
        chunk.positions[i] = position;
        chunk.offsetDeltas[i] = delta(offset - chunk.baseOffset);
        if ((i & (TIMESTAMP_EVERY - 1)) == 0)
        {
            chunk.timestampDeltas[i >>> SAMPLE_SHIFT] = delta(timestamp - chunk.baseTimestamp);
        }
        count = n + 1; // release: the entry's fields (and a new chunk) before the count
    }

    private static int delta(final long delta)
    {
        return delta >= 0 && delta < UNKNOWN ? (int)delta : UNKNOWN;
    }

    /**
     * Drops entries at or above a position (after a truncation). Single writer.
     *
     * @param position the new end of the segment's records.
     */
    public void truncateTo(final int position)
    {
        int n = count;
        while (n > 0 && positionAt(n - 1) >= position)
        {
            n--;
        }
        count = n;
        bytesSinceEntry = INTERVAL; // the next record takes an entry: how far the last one lies back is not known
    }

    /**
     * Appends an entry read from a persisted index (entries in increasing order). Single writer, before publishing.
     *
     * @param offset    the record's base offset.
     * @param position  its position.
     * @param timestamp its timestamp, or an upper bound of it ({@link #timestampBound}).
     * @return false when the entry is out of order or the index is full (the persisted index is then not used).
     */
    public boolean restore(final long offset, final int position, final long timestamp)
    {
        final int n = count;
        if (n >= capacity || (n > 0 && (positionAt(n - 1) >= position || offsetAt(n - 1) >= offset ||
            lastRestoredTimestamp > timestamp)))
        {
            return false;
        }
        put(n, offset, position, timestamp);
        lastRestoredTimestamp = timestamp;
        bytesSinceEntry = INTERVAL;
        return true;
    }

    /**
     * @param i an entry below {@link #count()}.
     * @return its offset, or {@link Long#MAX_VALUE} when too far from its chunk's first entry to be kept.
     */
    public long offsetAt(final int i)
    {
        final Chunk chunk = chunks[i >>> CHUNK_SHIFT];
        final int delta = chunk.offsetDeltas[i & CHUNK_MASK];
        return delta == UNKNOWN ? Long.MAX_VALUE : chunk.baseOffset + delta;
    }

    /**
     * @param i an entry below {@link #count()}.
     * @return its position.
     */
    public int positionAt(final int i)
    {
        return chunks[i >>> CHUNK_SHIFT].positions[i & CHUNK_MASK];
    }

    /**
     * An upper bound of entry {@code i}'s timestamp, for persisting: its own for a sampled entry, else the next
     * sample's, else {@code maxTimestamp}. A time lookup that stops only at entries whose bound is below the
     * target never stops past the first record at or after it.
     *
     * @param i            an entry below {@link #count()}.
     * @param maxTimestamp the latest timestamp in the segment.
     * @return the bound; {@link Long#MAX_VALUE} when unknown.
     */
    public long timestampBound(final int i, final long maxTimestamp)
    {
        final int sample = (i + TIMESTAMP_EVERY - 1) >>> SAMPLE_SHIFT;
        return (sample << SAMPLE_SHIFT) < count ? sampleTimestamp(sample) : maxTimestamp;
    }

    /** @return the timestamp of sampled entry {@code sample * TIMESTAMP_EVERY}, or Long.MAX_VALUE when unknown. */
    private long sampleTimestamp(final int sample)
    {
        final int entry = sample << SAMPLE_SHIFT;
        final Chunk chunk = chunks[entry >>> CHUNK_SHIFT];
        final int delta = chunk.timestampDeltas[(entry & CHUNK_MASK) >>> SAMPLE_SHIFT];
        return delta == UNKNOWN ? Long.MAX_VALUE : chunk.baseTimestamp + delta;
    }

    /** @return the number of entries. */
    public int count()
    {
        return count;
    }

    /**
     * @param offset an offset within the segment.
     * @return the position of the last indexed record at or before it, or -1 when none is indexed.
     */
    public int floorPosition(final long offset)
    {
        final int i = floorIndexByOffset(offset);
        return i < 0 ? -1 : positionAt(i);
    }

    /**
     * @param offset an offset.
     * @return the offset of the entry found by {@link #floorPosition(long)}.
     */
    public long floorOffset(final long offset)
    {
        final int i = floorIndexByOffset(offset);
        return i < 0 ? -1 : offsetAt(i);
    }

    /**
     * @param offset an offset within the segment.
     * @return the position of the entry after the one {@link #floorPosition(long)} finds, or -1 when there is none:
     * the record holding {@code offset} starts before it (unless that entry's offset is unknown), which bounds how
     * far a read from disk must reach.
     */
    public int nextEntryPosition(final long offset)
    {
        final int i = floorIndexByOffset(offset) + 1;
        return i < count ? positionAt(i) : -1;
    }

    /**
     * @param timestamp epoch ms.
     * @return the position of a sampled entry whose timestamp is below {@code timestamp} (the last such when all are
     * known), or of the first entry: the first record at or after the timestamp lies at or after it.
     */
    public int floorPositionForTimestamp(final long timestamp)
    {
        final int i = floorIndexByTimestamp(timestamp);
        return i < 0 ? -1 : positionAt(i);
    }

    /**
     * @param timestamp epoch ms.
     * @return the offset of the entry {@link #floorPositionForTimestamp(long)} finds, or -1.
     */
    public long floorOffsetForTimestamp(final long timestamp)
    {
        final int i = floorIndexByTimestamp(timestamp);
        return i < 0 ? -1 : offsetAt(i);
    }

    /**
     * A sampled entry whose timestamp is below {@code timestamp} (the last such when every value is known), or the
     * first entry; -1 when empty. Unknown values read as Long.MAX_VALUE, so the search never settles on one: it may
     * settle on an earlier sample, which is still a floor.
     */
    private int floorIndexByTimestamp(final long timestamp)
    {
        final int n = count;
        int lo = 0;
        int hi = ((n + TIMESTAMP_EVERY - 1) >>> SAMPLE_SHIFT) - 1;
        int found = 0;
        while (lo <= hi)
        {
            final int mid = (lo + hi) >>> 1;
            if (sampleTimestamp(mid) < timestamp)
            {
                found = mid;
                lo = mid + 1;
            }
            else
            {
                hi = mid - 1;
            }
        }
        return n > 0 ? found << SAMPLE_SHIFT : -1;
    }

    private int floorIndexByOffset(final long offset)
    {
        final int n = count;
        int lo = 0;
        int hi = n - 1;
        int found = -1;
        while (lo <= hi)
        {
            final int mid = (lo + hi) >>> 1;
            if (offsetAt(mid) <= offset)
            {
                found = mid;
                lo = mid + 1;
            }
            else
            {
                hi = mid - 1;
            }
        }
        return found;
    }
}
