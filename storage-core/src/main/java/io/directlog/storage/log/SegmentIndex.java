package io.directlog.storage.log;

/**
 * Sparse offset and time index of one segment: an entry for the first record that starts at or after each
 * {@link #INTERVAL} bytes, so a lookup is a binary search plus a scan of at most one interval.
 * Timestamps never go backwards within a log, so the same entries answer time queries.
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

    private final long[] offsets;
    private final int[] positions;
    private final long[] timestamps;
    private volatile int count;
    private int nextBoundary;

    /**
     * @param segmentSize the segment's capacity (bounds the number of entries).
     */
    public SegmentIndex(final int segmentSize)
    {
        final int capacity = segmentSize / INTERVAL + 2;
        offsets = new long[capacity];
        positions = new int[capacity];
        timestamps = new long[capacity];
    }

    /**
     * Adds an entry if the record at {@code position} starts a new interval. Single writer.
     *
     * @param offset    the record's base offset.
     * @param position  its position in the segment.
     * @param timestamp its timestamp.
     */
    public void onRecord(final long offset, final int position, final long timestamp)
    {
        if (position >= nextBoundary)
        {
            final int n = count;
            if (n < offsets.length)
            {
                offsets[n] = offset;
                positions[n] = position;
                timestamps[n] = timestamp;
                count = n + 1; // release: the entry's fields before the count
            }
            nextBoundary = (position / INTERVAL + 1) * INTERVAL;
        }
    }

    /**
     * Drops entries at or above a position (after a truncation). Single writer.
     *
     * @param position the new end of the segment's records.
     */
    public void truncateTo(final int position)
    {
        int n = count;
        while (n > 0 && positions[n - 1] >= position)
        {
            n--;
        }
        count = n;
        nextBoundary = n == 0 ? 0 : (positions[n - 1] / INTERVAL + 1) * INTERVAL;
    }

    /**
     * Appends an entry read from a persisted index (entries in increasing order). Single writer, before publishing.
     *
     * @param offset    the record's base offset.
     * @param position  its position.
     * @param timestamp its timestamp.
     * @return false when the entry is out of order or the index is full (the persisted index is then not used).
     */
    public boolean restore(final long offset, final int position, final long timestamp)
    {
        final int n = count;
        if (n >= offsets.length || (n > 0 && (positions[n - 1] >= position || offsets[n - 1] >= offset ||
            timestamps[n - 1] > timestamp)))
        {
            return false;
        }
        offsets[n] = offset;
        positions[n] = position;
        timestamps[n] = timestamp;
        count = n + 1;
        nextBoundary = (position / INTERVAL + 1) * INTERVAL;
        return true;
    }

    /**
     * @param i an entry below {@link #count()}.
     * @return its offset.
     */
    public long offsetAt(final int i)
    {
        return offsets[i];
    }

    /**
     * @param i an entry below {@link #count()}.
     * @return its position.
     */
    public int positionAt(final int i)
    {
        return positions[i];
    }

    /**
     * @param i an entry below {@link #count()}.
     * @return its timestamp.
     */
    public long timestampAt(final int i)
    {
        return timestamps[i];
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
        return i < 0 ? -1 : positions[i];
    }

    /**
     * @param offset an offset.
     * @return the offset of the entry found by {@link #floorPosition(long)}.
     */
    public long floorOffset(final long offset)
    {
        final int i = floorIndexByOffset(offset);
        return i < 0 ? -1 : offsets[i];
    }

    /**
     * @param timestamp epoch ms.
     * @return the position of the last entry whose timestamp is below {@code timestamp}, or of the first entry:
     * the first record at or after the timestamp lies at or after it.
     */
    public int floorPositionForTimestamp(final long timestamp)
    {
        final int n = count;
        int lo = 0;
        int hi = n - 1;
        int found = n > 0 ? 0 : -1;
        while (lo <= hi)
        {
            final int mid = (lo + hi) >>> 1;
            if (timestamps[mid] < timestamp)
            {
                found = mid;
                lo = mid + 1;
            }
            else
            {
                hi = mid - 1;
            }
        }
        return found < 0 ? -1 : positions[found];
    }

    /**
     * @param timestamp epoch ms.
     * @return the offset of the entry {@link #floorPositionForTimestamp(long)} finds, or -1.
     */
    public long floorOffsetForTimestamp(final long timestamp)
    {
        final int n = count;
        int lo = 0;
        int hi = n - 1;
        int found = n > 0 ? 0 : -1;
        while (lo <= hi)
        {
            final int mid = (lo + hi) >>> 1;
            if (timestamps[mid] < timestamp)
            {
                found = mid;
                lo = mid + 1;
            }
            else
            {
                hi = mid - 1;
            }
        }
        return found < 0 ? -1 : offsets[found];
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
            if (offsets[mid] <= offset)
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
