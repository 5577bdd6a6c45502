package io.directlog.storage.page;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

import io.directlog.nativeio.AlignedMemory;

/**
 * Faults in the newly charged part of growing write pages ahead of their writers, on a thread of its own: a writer
 * that copies records into memory it has never touched takes a page fault, the kernel's zeroing of the page and its
 * memory-cgroup charge on its own thread, one per 4 KiB (one per append at DIRECT and DSYNC, where each append takes
 * a block of its own). {@link PageMemory#populate} does it here with {@code madvise(MADV_POPULATE_WRITE)}, which
 * changes no byte, so it may race the writer copying into the same range.
 * <p>
 * Design note: only what the pool has charged is populated (the charge is the budget's, so resident memory stays
 * within it), and only growth past a page's first chunk: a log that holds a few records keeps the footprint of what
 * it wrote. Where the kernel has no such advice (before Linux 5.14) nothing is done: writing zeros instead would
 * race the writer.
 * <p>
 * Thread-safe; owned by its {@link PagePool}.
 */
final class PagePopulator implements AutoCloseable
{
    /**
     * Bytes populated at a time under the page's lock (what a free or trim of the page waits for at most), the
     * thread yielding after each: at DIRECT and DSYNC every append takes a 4 KiB block, so many producers use page
     * memory fast, and a doubled chunk faulted in back to back held a core for milliseconds while the writer, woken
     * by its device, waited for one (docs/benchmarks.md, issue 16's ninth run).
     */
    private static final int PIECE = 64 << 10;

    private record Request(PageMemory page, int from, int to)
    {
    }

    private final LinkedBlockingQueue<Request> requests = new LinkedBlockingQueue<>();
    /** Requests asked for and not yet served. */
    private final AtomicInteger pending = new AtomicInteger();
    private final Thread thread;
    private volatile boolean closed;

    PagePopulator()
    {
        thread = new Thread(this::run, "directlog-page-populator");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Asks for {@code [from, to)} of a growing page to be faulted in; returns at once.
     *
     * @param page a growing page, charged up to {@code to} now.
     * @param from the first byte not charged before.
     * @param to   the page's charged end.
     */
    void ahead(final PageMemory page, final int from, final int to)
    {
        if (!closed && AlignedMemory.populateSupported())
        {
            pending.incrementAndGet();
            requests.add(new Request(page, from, to));
        }
    }

    /** @return true when every request asked for so far has been served (tests wait for it). */
    boolean idle()
    {
        return pending.get() == 0;
    }

    private void run()
    {
        while (!closed)
        {
            final Request r;
            try
            {
                r = requests.take();
            }
            catch (final InterruptedException e)
            {
                return;
            }
            try
            {
                r.page().populate(r.from(), r.to(), PIECE);
            }
            finally
            {
                pending.decrementAndGet();
            }
        }
    }

    /** Stops the thread; requests not served are dropped (their writers take their own page faults). */
    @Override
    public void close()
    {
        closed = true;
        thread.interrupt();
        try
        {
            thread.join(10_000);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        requests.clear();
    }
}
