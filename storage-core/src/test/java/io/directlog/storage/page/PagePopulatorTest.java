package io.directlog.storage.page;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.directlog.nativeio.AlignedMemory;
import io.directlog.nativeio.NativeIo;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The populate-ahead of growing write pages ({@link PagePopulator}, {@link PageMemory#populate}): what a grow
 * charges is faulted in off the writer's thread, no byte changes, a trim gives the populated part past the charge
 * back, and a populate of a page already released touches nothing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PagePopulatorTest
{
    private static final int SEGMENT = 64 << 20;
    private static final int CHUNK = 64 << 10;
    private static final int GROWN = 32 << 20;

    @BeforeEach
    void nativeMemoryAndProc()
    {
        assumeTrue(NativeIo.isAvailable() && Files.exists(Path.of("/proc/self/status")),
            "needs native memory and /proc");
    }

    @Test
    void aGrowIsFaultedInAheadAndTheBytesStayAsWritten() throws Exception
    {
        try (PagePool pool = new PagePool(SEGMENT, 4096))
        {
            final PageMemory page = pool.tryAcquireGrowing(SEGMENT, CHUNK);
            page.buffer().setMemory(0, CHUNK, (byte)5); // the records copied before the grow
            final long before = residentBytes();

            assertTrue(pool.tryGrow(page, GROWN));
            awaitPopulated(pool);

            assumeTrue(AlignedMemory.populateSupported(), "the kernel has no MADV_POPULATE_WRITE (before 5.14)");
            final long after = residentBytes();
            assertTrue(after - before >= GROWN / 2, "resident " + before + " -> " + after + " after a grow to " +
                GROWN + " bytes: not faulted in ahead of the writer");
            assertEquals(GROWN, pool.usedBytes(), "the budget counts the charge, as without populate");
            for (int i = 0; i < CHUNK; i += 4096)
            {
                assertEquals(0x0505050505050505L, page.buffer().getLong(i), "written byte " + i);
            }
            for (int i = CHUNK; i < SEGMENT; i += 4096)
            {
                assertEquals(0, page.buffer().getLong(i), "byte " + i + " was never written and must read zero");
            }
            pool.release(page);
            assertEquals(0, pool.allocatedBytes());
        }
    }

    @Test
    void aTrimGivesBackWhatWasPopulatedPastTheNewCharge() throws Exception
    {
        try (PagePool pool = new PagePool(SEGMENT, 4096))
        {
            final PageMemory page = pool.tryAcquireGrowing(SEGMENT, CHUNK);
            assertTrue(pool.tryGrow(page, GROWN));
            awaitPopulated(pool);
            assumeTrue(AlignedMemory.populateSupported(), "the kernel has no MADV_POPULATE_WRITE (before 5.14)");
            page.buffer().setMemory(0, 2 * CHUNK, (byte)7); // what the writer wrote before it let go
            final long populated = residentBytes();

            pool.trim(page, 2 * CHUNK);

            final long trimmed = residentBytes();
            assertTrue(populated - trimmed >= GROWN / 2, "resident " + populated + " -> " + trimmed +
                ": the populated bytes past the trimmed charge are still resident and no longer charged");
            assertEquals(2L * CHUNK, pool.usedBytes());
            assertEquals(7, page.buffer().getByte(2 * CHUNK - 1), "the bytes held are kept");
            assertEquals(0, page.buffer().getLong(2 * CHUNK), "past the charge it reads zero");
            pool.release(page);
        }
    }

    @Test
    void aPopulateOfAReleasedPageTouchesNothing() throws Exception
    {
        try (PagePool pool = new PagePool(2L * SEGMENT, 4096))
        {
            final PageMemory released = pool.tryAcquireGrowing(SEGMENT, CHUNK);
            assertTrue(pool.tryGrow(released, SEGMENT));
            awaitPopulated(pool);
            pool.release(released); // unmapped: its addresses may go to the next mapping
            final PageMemory next = pool.tryAcquireGrowing(SEGMENT, CHUNK);
            final long before = residentBytes();

            released.populate(0, SEGMENT, 1 << 20); // a request served late, after its page went

            final long after = residentBytes();
            assertTrue(after - before < SEGMENT / 4, "resident " + before + " -> " + after +
                ": a populate of a released page made memory resident (another mapping's, or an unmapped range)");
            assertEquals(CHUNK, pool.usedBytes());
            pool.release(next);
        }
    }

    @Test
    void pagesReleasedWhileTheirGrowIsPopulatedLeaveTheBudgetExact() throws Exception
    {
        try (PagePool pool = new PagePool(4L * SEGMENT, 4096))
        {
            for (int round = 0; round < 50; round++)
            {
                final PageMemory page = pool.tryAcquireGrowing(SEGMENT, CHUNK);
                assertTrue(pool.tryGrow(page, 8 << 20));
                page.buffer().putLong(CHUNK, round); // the writer copies into what is being populated
                assertEquals(round, page.buffer().getLong(CHUNK));
                assertEquals(0, page.buffer().getLong(CHUNK + 4096));
                pool.release(page); // at once: the populator may still hold it, or not have started
            }
            awaitPopulated(pool);
            assertEquals(0, pool.allocatedBytes());
            assertEquals(0, pool.usedBytes());
        }
    }

    private static void awaitPopulated(final PagePool pool) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!pool.populatorIdle())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("the populator did not serve its requests within 20 s");
            }
            Thread.yield();
        }
    }

    private static long residentBytes() throws java.io.IOException
    {
        for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
        {
            if (line.startsWith("VmRSS:"))
            {
                return Long.parseLong(line.substring(6).trim().split("\\s+")[0]) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
