package io.directlog.storage.page;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Growing pages: a segment's address range charged against the budget in chunks (issue 18). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PagePoolGrowingTest
{
    private static final int SEGMENT = 64 << 20;
    private static final int CHUNK = 64 << 10;

    @Test
    void manyGrowingPagesFitWhereOneSegmentSizedPageWouldNot()
    {
        try (PagePool pool = new PagePool(16L * CHUNK, 4096))
        {
            final PageMemory[] pages = new PageMemory[16];
            for (int i = 0; i < pages.length; i++)
            {
                pages[i] = pool.tryAcquireGrowing(SEGMENT, CHUNK);
                assertNotNull(pages[i], "page " + i);
                assertEquals(SEGMENT, pages[i].size());
                assertEquals(CHUNK, pages[i].charge());
            }
            assertEquals(16L * CHUNK, pool.usedBytes());
            assertNull(pool.tryAcquireGrowing(SEGMENT, CHUNK), "the budget is all charged");
            assertNull(pool.tryAcquire(SEGMENT), "a fixed page of the segment's size never fitted");
            for (final PageMemory p : pages)
            {
                pool.release(p);
            }
            assertEquals(0, pool.allocatedBytes());
        }
    }

    @Test
    void growChargesOnlyTheDifferenceAndFailsWhenTheBudgetIsFull()
    {
        try (PagePool pool = new PagePool(4L * CHUNK, 4096))
        {
            final PageMemory a = pool.tryAcquireGrowing(SEGMENT, CHUNK);
            final PageMemory b = pool.tryAcquireGrowing(SEGMENT, CHUNK);

            assertTrue(pool.tryGrow(a, 3 * CHUNK));
            assertEquals(3 * CHUNK, a.charge());
            assertEquals(4L * CHUNK, pool.usedBytes());
            assertTrue(pool.tryGrow(a, 2 * CHUNK), "a smaller charge is already covered");
            assertEquals(3 * CHUNK, a.charge(), "a charge never shrinks while held");

            assertFalse(pool.tryGrow(b, 2 * CHUNK), "no room left");
            assertEquals(CHUNK, b.charge());

            pool.release(a);
            assertEquals(CHUNK, pool.usedBytes(), "the release gave back all three chunks");
            assertTrue(pool.tryGrow(b, 4 * CHUNK));
            pool.release(b);
            assertEquals(0, pool.allocatedBytes());
        }
    }

    @Test
    void aGrowingPageIsZeroBeyondWhatWasWrittenAndKeepsItsAddress()
    {
        try (PagePool pool = new PagePool(SEGMENT, 4096))
        {
            final PageMemory page = pool.tryAcquireGrowing(SEGMENT, CHUNK);
            final long address = page.buffer().addressOffset();
            page.buffer().setMemory(0, CHUNK, (byte)5);
            assertTrue(pool.tryGrow(page, SEGMENT));
            assertEquals(address, page.buffer().addressOffset(), "growing moves nothing: O_DIRECT offsets stay valid");
            assertEquals(5, page.buffer().getByte(CHUNK - 1));
            for (int i = CHUNK; i < SEGMENT; i += 1 << 20)
            {
                assertEquals(0, page.buffer().getByte(i), "byte " + i);
            }
            pool.release(page);
        }
    }

    @Test
    void freeFixedPagesGoBackToTheOsToMakeRoomForAGrowingPage()
    {
        try (PagePool pool = new PagePool(2L << 20, 4096))
        {
            final PageMemory fixed = pool.tryAcquire(2 << 20);
            pool.release(fixed); // free, kept by the pool for reuse
            assertEquals(2L << 20, pool.allocatedBytes());

            final PageMemory growing = pool.tryAcquireGrowing(SEGMENT, CHUNK);

            assertNotNull(growing, "the free fixed page made room");
            assertEquals(CHUNK, pool.allocatedBytes());
            pool.release(growing);
        }
    }

    /**
     * A released fixed page is zeroed by the cleaner, in no queue meanwhile: a growing page that asks for its memory
     * just then must get it (the cleaner stops and frees the page), not be refused with a free page in the pool.
     */
    @RepeatedTest(5)
    void aFreeFixedPageInTheCleanersHandsMakesRoomForAGrowingPageToGrow()
    {
        try (PagePool pool = new PagePool(SEGMENT, 4096))
        {
            final PageMemory growing = pool.tryAcquireGrowing(SEGMENT, CHUNK);
            final PageMemory fixed = pool.tryAcquire(SEGMENT - CHUNK);
            assertNotNull(fixed);
            pool.release(fixed);
            // 63.9 MiB to zero: catch the cleaner holding it (it may be done before a slow test thread looks)
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!pool.cleanerHoldsAPage() && !pool.allFreePagesZeroed() && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }

            assertTrue(pool.tryGrow(growing, 2 * CHUNK), "the free fixed page made room");
            assertEquals(2 * CHUNK, pool.allocatedBytes(), "the fixed page was given back to the OS");
            final PageMemory again = pool.tryAcquire(SEGMENT - CHUNK);
            assertNull(again, "no room for the fixed page while the growing one holds two chunks");
            pool.release(growing);
        }
    }

    @Test
    void badChargesAreRejectedWithTheValues()
    {
        try (PagePool pool = new PagePool(SEGMENT, 4096))
        {
            assertTrue(assertThrows(IllegalArgumentException.class, () -> pool.tryAcquireGrowing(SEGMENT, 1000))
                .getMessage().contains("charge 1000"));
            assertThrows(IllegalArgumentException.class, () -> pool.tryAcquireGrowing(CHUNK, 2 * CHUNK));
            final PageMemory fixed = pool.tryAcquire(CHUNK);
            assertTrue(assertThrows(IllegalArgumentException.class, () -> pool.tryGrow(fixed, CHUNK))
                .getMessage().contains("fixed page"));
            final PageMemory growing = pool.tryAcquireGrowing(SEGMENT, CHUNK);
            assertThrows(IllegalArgumentException.class, () -> pool.tryGrow(growing, SEGMENT + 4096));
            pool.release(growing);
            pool.release(fixed);
        }
    }

    @Test
    void aGrowingPageReleasedAfterCloseIsFreed()
    {
        final PagePool pool = new PagePool(SEGMENT, 4096);
        final PageMemory page = pool.tryAcquireGrowing(SEGMENT, CHUNK);
        pool.close();

        pool.release(page);

        assertTrue(page.isFreed());
        assertEquals(0, pool.allocatedBytes());
    }

    @Test
    void aChargeCountsFromItsStartAndStaysWithinThePage()
    {
        try (PagePool pool = new PagePool(SEGMENT, 4096))
        {
            final PageMemory page = pool.tryAcquireGrowing(SEGMENT, SEGMENT - 2 * CHUNK, CHUNK);
            assertEquals(SEGMENT - 2 * CHUNK, page.chargedFrom());
            assertEquals(SEGMENT - CHUNK, page.chargedEnd());
            assertEquals(CHUNK, pool.usedBytes());

            assertTrue(pool.tryGrow(page, 2 * CHUNK));
            assertEquals(SEGMENT, page.chargedEnd());
            assertThrows(IllegalArgumentException.class, () -> pool.tryGrow(page, 3 * CHUNK), "beyond the page");
            assertTrue(assertThrows(IllegalArgumentException.class,
                () -> pool.tryAcquireGrowing(SEGMENT, 100, CHUNK)).getMessage().contains("charge start 100"));
            pool.release(page);
            assertEquals(0, pool.allocatedBytes());
        }
    }

    @Test
    void growingPagesOfSmallSegmentsAreResidentOnlyWhereWritten() throws Exception
    {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.directlog.nativeio.NativeIo.isAvailable() &&
            java.nio.file.Files.exists(java.nio.file.Path.of("/proc/self/status")), "needs native memory and /proc");
        final int segment = 1 << 20; // below the size where plain allocations become mappings
        final int pages = 256;
        try (PagePool pool = new PagePool((long)pages * CHUNK, 4096))
        {
            final long before = residentBytes();
            final PageMemory[] held = new PageMemory[pages];
            for (int i = 0; i < pages; i++)
            {
                held[i] = pool.tryAcquireGrowing(segment, CHUNK);
                held[i].buffer().putLong(0, i); // the header block is written, as a roll does
            }
            final long grown = residentBytes() - before;
            for (final PageMemory p : held)
            {
                pool.release(p);
            }
            assertTrue(grown < 64L << 20, pages + " pages of 1 MiB, one block written in each, made " + grown +
                " bytes resident (256 MiB if they were allocated and zeroed in full)");
        }
    }

    private static long residentBytes() throws java.io.IOException
    {
        for (final String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status")))
        {
            if (line.startsWith("VmRSS:"))
            {
                return Long.parseLong(line.substring(6).trim().split("\\s+")[0]) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
