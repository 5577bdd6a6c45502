package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.TimeUnit;

import io.directlog.storage.page.PageMemory;
import io.directlog.storage.page.PagePool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CachePagePoolTest
{
    /** A page given back is free: taking one of the same size right away must not fail, whatever the cleaner does. */
    @Test
    void aReleasedPageIsAvailableAtOnce()
    {
        final int size = 1 << 20;
        try (PagePool pool = new PagePool(2L * size, 4096))
        {
            final PageMemory a = pool.tryAcquire(size);
            PageMemory b = pool.tryAcquire(size);
            assertNotNull(a);
            assertNotNull(b);
            assertNull(pool.tryAcquire(size), "budget of two pages");
            int failures = 0;
            for (int i = 0; i < 20_000; i++)
            {
                pool.release(b);
                b = pool.tryAcquire(size);
                if (b == null)
                {
                    failures++;
                    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    while (b == null && System.nanoTime() < deadline)
                    {
                        b = pool.tryAcquire(size);
                    }
                    assertNotNull(b, "the released page never came back");
                }
                assertEquals(0, b.buffer().getLong(0), "a page from the pool is zeroed");
                b.buffer().putLong(0, i + 1);
            }
            assertEquals(0, failures, failures + " of 20000 tryAcquire calls found no page right after a release");
            pool.release(a);
            pool.release(b);
        }
    }
}
