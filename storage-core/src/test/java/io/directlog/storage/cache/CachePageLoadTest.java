package io.directlog.storage.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.page.PagePool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A progressive page-in's progress as readers see it: a reader waits only until the bytes it needs are loaded,
 * learns of a page-in that stopped instead of waiting for it, and never waits past its bound.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CachePageLoadTest
{
    private static final int SIZE = 64 << 10;
    private final PagePool pool = new PagePool(2L * SIZE, 4096);
    private final ExecutorService readers = Executors.newFixedThreadPool(2);

    @AfterEach
    void close()
    {
        readers.shutdownNow();
        pool.close();
    }

    private CachePage loadingPage()
    {
        final CachePage page = new CachePage(pool.tryAcquire(SIZE), new FixedOwner(1), false);
        page.startLoading();
        return page;
    }

    @Test
    void aPageNotLoadingIsLoadedThroughout()
    {
        final CachePage page = new CachePage(pool.tryAcquire(SIZE), new FixedOwner(1), false);
        assertEquals(Integer.MAX_VALUE, page.loadedEnd());
        assertEquals(Integer.MAX_VALUE, page.awaitLoaded(SIZE, 0));
    }

    @Test
    void aPageInThatStartsPastTheStartHoldsNothingBelowIt()
    {
        final CachePage page = new CachePage(pool.tryAcquire(SIZE), new FixedOwner(1), false);
        page.startLoading(16384); // a sequential reader read the first 16 KiB from disk already
        assertEquals(16384, page.validFrom(), "readers of the bytes below go to disk");
        assertTrue(page.fromDisk(), "its bytes came from disk: readers check them");
        assertEquals(16384, page.loadedEnd());
        assertEquals(-1, page.awaitLoaded(20480, 0), "nothing above the start is loaded yet");
        page.loadedTo(24576);
        assertEquals(24576, page.awaitLoaded(20480, 0));
    }

    @Test
    void aReaderWaitsUntilItsBytesAreLoadedAndNoLonger() throws Exception
    {
        final CachePage page = loadingPage();
        final CountDownLatch waiting = new CountDownLatch(1);
        final Future<Integer> reader = readers.submit(() ->
        {
            waiting.countDown();
            return page.awaitLoaded(8192, TimeUnit.SECONDS.toNanos(30));
        });
        assertTrue(waiting.await(10, TimeUnit.SECONDS));
        page.loadedTo(4096); // not enough for the reader: it goes on waiting
        assertEquals(4096, page.awaitLoaded(4096, 0), "bytes below the loaded end are there at once");
        page.loadedTo(12288);
        assertEquals(12288, reader.get(10, TimeUnit.SECONDS));
        page.loadedTo(Integer.MAX_VALUE);
        assertEquals(Integer.MAX_VALUE, page.awaitLoaded(SIZE, 0));
    }

    @Test
    void aPageInThatStopsReleasesItsReaders() throws Exception
    {
        final CachePage page = loadingPage();
        page.loadedTo(4096);
        final CountDownLatch waiting = new CountDownLatch(1);
        final Future<Integer> reader = readers.submit(() ->
        {
            waiting.countDown();
            return page.awaitLoaded(8192, TimeUnit.SECONDS.toNanos(30));
        });
        assertTrue(waiting.await(10, TimeUnit.SECONDS));
        page.loadFailed();
        assertEquals(-1, reader.get(10, TimeUnit.SECONDS), "the reader reads from disk instead");
        assertEquals(4096, page.awaitLoaded(4096, 0), "what was loaded before the stop stays usable");
    }

    @Test
    void aWaitIsBounded()
    {
        final CachePage page = loadingPage();
        final long start = System.nanoTime();
        assertEquals(-1, page.awaitLoaded(4096, TimeUnit.MILLISECONDS.toNanos(50)));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(50), "returned before its bound");
    }
}
