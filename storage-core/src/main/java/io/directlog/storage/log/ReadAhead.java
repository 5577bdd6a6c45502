package io.directlog.storage.log;

import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Pages rolled segments in ahead of sequential readers, on one background thread per store.
 * <p>
 * A page-in here is progressive ({@link SegmentPageIn#pageInProgressively}): the page is published first and read
 * in 1 MiB chunks, so a reader that reaches the segment reads its first MiBs while the rest loads and asks for the
 * next segment at once; the one thread then goes from one segment to the next without the device going idle.
 * <p>
 * Why: a cold replay that pages a segment in only when the reader reaches it leaves the device idle while the
 * reader checks the CRC32C of the segment it has, and then the reader idle while the next one is read. Reading the
 * next segment meanwhile overlaps the two, so the replay runs at the device's speed rather than at the sum of both.
 * <p>
 * A segment is queued at most once at a time, and the segments read-ahead holds (queued, loading, or paged in and
 * not yet reached by a reader) stay within the read-ahead bytes (plus one segment) for the whole store; a request
 * beyond, or a full queue, is dropped (the reader then reads the segment from disk itself, as it would without
 * read-ahead).
 * <p>
 * Why paged-in segments count until a reader reaches them (issue 21's catch-up through the broker): one consumer
 * of 16 partitions reads 1 MiB of each in turn, and with only the queue bounded the thread paged in the next 64 MiB
 * of every partition, 1 GiB against a 512 MiB budget, so each page-in evicted a page another partition's reader had
 * not reached yet, and that one was paged in again: the disk read 300-590 MB/s for 52 MB/s delivered, bandwidth
 * the writer's DSYNC appends then waited for. Thread-safe.
 */
public final class ReadAhead implements AutoCloseable
{
    private static final int QUEUE_CAPACITY = 64;

    private final long bytes;
    private final ThreadPoolExecutor executor;
    /** Segments queued or being paged in now, across all logs. */
    private final Set<Segment> pending = ConcurrentHashMap.newKeySet();
    /** Segments read-ahead holds: queued, loading, or paged in and not yet reached by a reader. */
    private final Set<Segment> held = ConcurrentHashMap.newKeySet();
    private final LongAdder requests = new LongAdder();

    /**
     * @param bytes bytes of segments to keep paged in ahead of a sequential reader; 0 turns read-ahead off.
     */
    public ReadAhead(final long bytes)
    {
        this.bytes = bytes;
        this.executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(QUEUE_CAPACITY), r ->
            {
                final Thread t = new Thread(r, "directlog-read-ahead");
                t.setDaemon(true);
                return t;
            }, new ThreadPoolExecutor.AbortPolicy());
    }

    /** @return bytes to keep paged in ahead of a sequential reader; 0 when off. */
    public long bytes()
    {
        return bytes;
    }

    /** @return segments queued for read-ahead so far. */
    public long requests()
    {
        return requests.sum();
    }

    /**
     * Queues a page-in of {@code segment} unless one is queued or running already.
     *
     * @param segment the segment.
     * @param path    its log's read path, which pages it in; exceptions are dropped (the reader meets and reports
     *                them itself).
     */
    void request(final Segment segment, final ReadPath path)
    {
        // the read-ahead bytes bound the whole store's queue, not each log's: with 16 logs read round-robin the one
        // thread fell far behind its queue, and the segments it paged in late had mostly been read from disk by the
        // reader already, or were evicted by later page-ins before the reader got there (issue 21's catch-up)
        if (heldBytes() > bytes || !pending.add(segment))
        {
            return;
        }
        held.add(segment);
        try
        {
            executor.execute(() ->
            {
                try
                {
                    path.pageInAhead(segment);
                }
                catch (final RuntimeException ignore)
                {
                    // a race with close or retention, or an I/O error: a reader that reaches the segment retries
                    // the page-in and reports what it meets
                }
                finally
                {
                    pending.remove(segment);
                    if (segment.page() == null)
                    {
                        held.remove(segment); // nothing paged in (read from disk already, gone, no room)
                    }
                }
            });
            requests.increment();
        }
        catch (final RejectedExecutionException e)
        {
            held.remove(segment);
            pending.remove(segment); // queue full or closed: the reader reads from disk on its own
        }
    }

    /**
     * A reader reached {@code segment} (any read of it): read-ahead no longer holds it, and its share of the
     * read-ahead bytes goes to the segments after it.
     *
     * @param segment the segment a read found its offset in.
     */
    void reached(final Segment segment)
    {
        if (!held.isEmpty())
        {
            held.remove(segment);
        }
    }

    /** @return bytes of the segments read-ahead holds, after dropping those evicted or deleted before a reader came. */
    long heldBytes()
    {
        long sum = 0;
        for (final Segment s : held)
        {
            if (s.isDeleted() || (s.page() == null && !pending.contains(s)))
            {
                held.remove(s);
                continue;
            }
            sum += s.capacity();
        }
        return sum;
    }

    /**
     * Stops the thread and waits for a page-in in progress: the page memory it reads into must outlive the read.
     */
    @Override
    public void close()
    {
        executor.shutdownNow();
        try
        {
            if (!executor.awaitTermination(30, TimeUnit.SECONDS))
            {
                throw new IllegalStateException("read-ahead thread did not stop within 30 s");
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
