package io.directlog.storage.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * Where a read-ahead page-in starts (issue 21): after the whole chunks a sequential reader already read from disk,
 * so that no byte the reader had is read off the device again, and not at all when less than a chunk is left.
 */
class SegmentPageInStartTest
{
    private static final int CHUNK = SegmentPageIn.PAGE_IN_CHUNK;
    private static final int END = 8 * CHUNK;

    @Test
    void aSegmentNoReaderReadFromDiskIsPagedInFromItsStart()
    {
        assertEquals(0, SegmentPageIn.unreadFrom(0, END));
    }

    @Test
    void aPageInStartsAtTheChunkTheReaderIsIn()
    {
        assertEquals(0, SegmentPageIn.unreadFrom(CHUNK - 4096, END), "part of the first chunk: all of it again");
        assertEquals(3 * CHUNK, SegmentPageIn.unreadFrom(3 * CHUNK + 4096, END));
        assertEquals(3 * CHUNK, SegmentPageIn.unreadFrom(3 * CHUNK, END));
    }

    @Test
    void aSegmentTheReaderReadNearlyToItsEndIsNotPagedIn()
    {
        assertEquals(-1, SegmentPageIn.unreadFrom(END, END));
        final int shortEnd = 7 * CHUNK + 100_000; // a segment rolled before it was full
        assertEquals(-1, SegmentPageIn.unreadFrom(7 * CHUNK + 4096, shortEnd), "less than a chunk is left");
        assertEquals(7 * CHUNK, SegmentPageIn.unreadFrom(7 * CHUNK + 4096, END), "a whole chunk is left");
    }
}
