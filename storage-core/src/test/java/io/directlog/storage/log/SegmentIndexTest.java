package io.directlog.storage.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import io.directlog.storage.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The chunked index against a brute-force list of the records it was fed: every floor it returns is a true floor
 * (an indexed record at or before the target), and the nearest one whenever the deltas fit.
 */
@ExtendWith(TestSeed.class)
class SegmentIndexTest
{
    private static final int SEGMENT = 64 << 20;
    private static final long DAY_MS = 86_400_000L;

    private record Rec(long offset, int position, long timestamp, int length)
    {
    }

    @Test
    void floorsMatchABruteForceScan()
    {
        rounds(TestSeed.seed() ^ 7, false);
    }

    @Test
    void deltasBeyondAnIntStayExact()
    {
        rounds(TestSeed.seed() ^ 11, true);
    }

    /** 20 random segments; with huge deltas some entries are unknown, so floors are exact but not the nearest. */
    private static void rounds(final long seed, final boolean huge)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        for (int round = 0; round < 20; round++)
        {
            final List<Rec> records = records(random, huge);
            check(feed(records), records, random, !huge);
        }
    }

    @Test
    void memoryGrowsWithEntriesNotCapacity()
    {
        final SegmentIndex index = new SegmentIndex(SEGMENT);
        index.onRecord(0, 64, 1, SegmentIndex.INTERVAL);
        assertEquals(1, index.count());
        // one chunk holds CHUNK_ENTRIES entries; the index of a segment with one record allocates one chunk
        for (int i = 1; i < SegmentIndex.CHUNK_ENTRIES + 1; i++)
        {
            index.onRecord(i, 64 + i * SegmentIndex.INTERVAL, 1 + i, SegmentIndex.INTERVAL);
        }
        assertEquals(SegmentIndex.CHUNK_ENTRIES + 1, index.count());
        assertEquals(SegmentIndex.CHUNK_ENTRIES, index.offsetAt(SegmentIndex.CHUNK_ENTRIES));
        assertEquals(64 + SegmentIndex.CHUNK_ENTRIES * SegmentIndex.INTERVAL,
            index.positionAt(SegmentIndex.CHUNK_ENTRIES));
    }

    @Test
    void gapsTakeNoEntries()
    {
        // a lone producer: 100 B records, each written alone, so each starts a 4 KiB block
        final SegmentIndex index = new SegmentIndex(SEGMENT);
        final int records = 4096;
        for (int i = 0; i < records; i++)
        {
            index.onRecord(i, 4096 + i * 4096, 1000 + i, 128);
        }
        assertEquals(records * 128 / SegmentIndex.INTERVAL, index.count());
        assertEquals(4096 + 2 * 32 * 4096, index.floorPosition(64 + 5));
        assertEquals(4096 + 3 * 32 * 4096, index.nextEntryPosition(64 + 5));
    }

    @Test
    void truncationThenLowerOffsetsInAReusedChunk()
    {
        final SegmentIndex index = new SegmentIndex(SEGMENT);
        final int entries = SegmentIndex.CHUNK_ENTRIES * 2 + 10;
        for (int i = 0; i < entries; i++)
        {
            index.onRecord(1000L + i * 100L, 64 + i * SegmentIndex.INTERVAL, 5000L + i * 10L, SegmentIndex.INTERVAL);
        }
        // cut back to the first entry of the second chunk, then index records with fresh, lower-than-before values
        final int cut = 64 + SegmentIndex.CHUNK_ENTRIES * SegmentIndex.INTERVAL;
        index.truncateTo(cut);
        assertEquals(SegmentIndex.CHUNK_ENTRIES, index.count());
        final long lastKept = index.offsetAt(SegmentIndex.CHUNK_ENTRIES - 1);
        for (int i = 0; i < 10; i++)
        {
            index.onRecord(lastKept + 1 + i, cut + i * SegmentIndex.INTERVAL, 1L + i, SegmentIndex.INTERVAL);
        }
        assertEquals(SegmentIndex.CHUNK_ENTRIES + 10, index.count());
        assertEquals(lastKept + 1, index.offsetAt(SegmentIndex.CHUNK_ENTRIES));
        assertEquals(1L, index.timestampBound(SegmentIndex.CHUNK_ENTRIES, Long.MAX_VALUE));
        assertEquals(cut + 9 * SegmentIndex.INTERVAL, index.floorPosition(lastKept + 100));
    }

    @Test
    void restoreRefusesOutOfOrderEntries()
    {
        final SegmentIndex index = new SegmentIndex(SEGMENT);
        assertTrue(index.restore(10, 64, 100));
        assertFalse(index.restore(10, 8192, 100), "offset not increasing");
        assertFalse(index.restore(11, 64, 100), "position not increasing");
        assertFalse(index.restore(11, 8192, 99), "timestamp going back");
        assertTrue(index.restore(11, 8192, 100));
        assertEquals(2, index.count());
    }

    /** Records in increasing offset, position and timestamp order, a few per interval or one every few. */
    private static List<Rec> records(final SplittableRandom random, final boolean huge)
    {
        final List<Rec> records = new ArrayList<>();
        long offset = random.nextLong(1L << 40);
        long timestamp = 1_700_000_000_000L + random.nextLong(DAY_MS);
        int position = 64;
        final int limit = random.nextInt(1 << 20, SEGMENT);
        final int gapEvery = 1 + random.nextInt(4); // 1: every record ends its write, as with a lone producer
        while (position < limit)
        {
            final int length = 64 + 8 * random.nextInt(random.nextBoolean() ? 25 : 2_500);
            records.add(new Rec(offset, position, timestamp, length));
            offset += huge && random.nextInt(300) == 0 ? (1L << 31) + random.nextLong(1L << 33) : 1 + random.nextInt(3);
            timestamp += huge && random.nextInt(300) == 0 ? 25 * DAY_MS + random.nextLong(DAY_MS) : random.nextInt(3);
            position += length;
            if (random.nextInt(gapEvery) == 0)
            {
                position = (position / 4096 + 1) * 4096; // a gap: the next record starts at the next block
            }
        }
        return records;
    }

    private static SegmentIndex feed(final List<Rec> records)
    {
        final SegmentIndex index = new SegmentIndex(SEGMENT);
        for (final Rec r : records)
        {
            index.onRecord(r.offset(), r.position(), r.timestamp(), r.length());
        }
        return index;
    }

    /**
     * Floors by offset and by timestamp for random targets: always a true floor among the records; the nearest
     * indexed one when {@code nearest} (every delta fit).
     */
    private static void check(final SegmentIndex index, final List<Rec> records, final SplittableRandom random,
        final boolean nearest)
    {
        final Rec first = records.get(0);
        final Rec last = records.get(records.size() - 1);
        final Map<Integer, Rec> byPosition = new HashMap<>();
        records.forEach(r -> byPosition.put(r.position(), r));
        final List<Rec> indexed = new ArrayList<>();
        for (int i = 0; i < index.count(); i++)
        {
            indexed.add(byPosition.get(index.positionAt(i)));
        }
        for (int q = 0; q < 2000; q++)
        {
            final Rec target = records.get(random.nextInt(records.size()));
            final long offset = target.offset() + (random.nextBoolean() ? 0 : 1);
            final int position = index.floorPosition(offset);
            final Rec floor = byPosition(byPosition, position);
            assertTrue(floor.offset() <= offset, "floor " + floor + " above offset " + offset);
            assertEquals(floor.offset(), index.floorOffset(offset));
            if (nearest)
            {
                assertEquals(nearest(indexed, offset), floor);
                // at most one interval of record bytes (gaps not counted) lies between the entry and the record
                final int t = records.indexOf(byPosition(byPosition, recordHolding(records, offset).position()));
                long bytes = 0;
                for (int r = records.indexOf(floor); r < t; r++)
                {
                    bytes += records.get(r).length();
                }
                assertTrue(bytes < SegmentIndex.INTERVAL, bytes + " record bytes between entry and record");
                final int next = index.nextEntryPosition(offset);
                assertTrue(next < 0 || records.get(t).position() < next, "next entry " + next + " before the record");
            }

            final long ts = first.timestamp() + random.nextLong(last.timestamp() - first.timestamp() + 2);
            final int tsPosition = index.floorPositionForTimestamp(ts);
            final Rec tsFloor = byPosition(byPosition, tsPosition);
            // the first record at or after ts lies at or after the floor
            final Rec firstAtOrAfter = records.stream().filter(r -> r.timestamp() >= ts).findFirst().orElse(null);
            if (firstAtOrAfter != null)
            {
                assertTrue(tsFloor.position() <= firstAtOrAfter.position(), "timestamp floor " + tsFloor +
                    " after the first record at or after " + ts + ": " + firstAtOrAfter);
            }
            assertTrue(tsFloor == first || tsFloor.timestamp() < ts, "timestamp floor " + tsFloor + " for " + ts);
            if (nearest && firstAtOrAfter != null)
            {
                final long between = indexed.stream().filter(r -> r.position() > tsFloor.position() &&
                    r.position() <= firstAtOrAfter.position()).count();
                assertTrue(between <= SegmentIndex.TIMESTAMP_EVERY, between + " entries between time floor and record");
            }
        }
        // persisted bounds: never below an entry's timestamp, and the known ones never decreasing
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < index.count(); i++)
        {
            final long bound = index.timestampBound(i, last.timestamp());
            if (bound == Long.MAX_VALUE)
            {
                continue; // unknown: IndexFile leaves such entries out
            }
            assertTrue(bound >= indexed.get(i).timestamp(), "bound " + bound + " of entry " + i);
            assertTrue(bound >= previous, "known bounds decrease at entry " + i);
            previous = bound;
        }
        assertEquals(-1, index.floorPosition(first.offset() - 1));
    }

    private static Rec recordHolding(final List<Rec> records, final long offset)
    {
        Rec holding = null;
        for (final Rec r : records)
        {
            if (r.offset() > offset)
            {
                break;
            }
            holding = r;
        }
        return holding;
    }

    private static Rec byPosition(final Map<Integer, Rec> byPosition, final int position)
    {
        final Rec r = byPosition.get(position);
        if (r == null)
        {
            throw new AssertionError("position " + position + " is not a record's");
        }
        return r;
    }

    private static Rec nearest(final List<Rec> indexed, final long offset)
    {
        Rec best = null;
        for (final Rec r : indexed)
        {
            if (r.offset() <= offset)
            {
                best = r;
            }
        }
        return best;
    }
}
