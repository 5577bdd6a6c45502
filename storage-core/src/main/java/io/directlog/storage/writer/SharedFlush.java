package io.directlog.storage.writer;

import java.util.Arrays;

import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.BlockWriteBatch;
import io.directlog.storage.spi.SequentialWriteBatch;

/**
 * Group commit across the logs of one writer thread: the logs that want a DSYNC flush in a duty cycle join it
 * ({@link #join}); at the end of the cycle ({@link #run}) their writes, each through its log's plain O_DIRECT
 * descriptor, go out together as one {@link BlockWriteBatch} (with Linux native AIO all in flight at once: the
 * device overlaps them instead of doing one after another), then, once every write has ended, one fdatasync of one
 * of the files written flushes the device's cache for all of them, and only then does each acknowledge. N logs pay
 * one device flush per cycle instead of N (an O_DSYNC write on a device without FUA is a write and a flush), and
 * about one device write's latency instead of N.
 * <p>
 * Why one fdatasync covers the other files: they share a flush domain ({@code BlockIo.flushDomain}, the block
 * device on ext4 and XFS), whose fdatasync ends in a cache flush of the whole device, and a flush makes durable
 * every write the device completed before it; the logs write only into space written and synced before (pre-zeroed
 * segments), so no file needs metadata of its own committed. Logs of different domains flush separately; a log
 * alone in its domain flushes as it did before (an O_DSYNC write, a single FUA write where the device has it).
 * <p>
 * A failed flush fails every log it covered (each fail-stops: nothing more acknowledged, never a retry); logs
 * whose write failed already failed alone; the writer's other logs are not touched.
 * <p>
 * Not thread-safe; owned by the writer thread. Allocates nothing in the steady state.
 */
final class SharedFlush
{
    private static final System.Logger LOG = System.getLogger(SharedFlush.class.getName());

    private SharedFlushMember[] members = new SharedFlushMember[16];
    private Object[] domains = new Object[16];
    private BlockFile[] written = new BlockFile[16];
    /** Each member's write in the batch. */
    private int[] slots = new int[16];
    private int size;
    /** The writes of a flush, issued together; taken from the logs' I/O layer at the first flush. */
    private BlockWriteBatch batch;
    private BlockIo batchIo;
    /** Device flushes that covered two or more logs (writer's counter, read racily). */
    private long flushes;
    /** Logs those flushes covered. */
    private long logsCovered;

    /** Adds a log that wants a DSYNC flush in this cycle; {@code domain} from {@code BlockIo.flushDomain}. */
    void join(final Object domain, final SharedFlushMember member)
    {
        if (size == members.length)
        {
            members = Arrays.copyOf(members, size * 2);
            domains = Arrays.copyOf(domains, size * 2);
            written = Arrays.copyOf(written, size * 2);
            slots = Arrays.copyOf(slots, size * 2);
        }
        members[size] = member;
        domains[size] = domain;
        size++;
    }

    /**
     * Flushes every log that joined in this cycle, one domain after another (in practice one: the store's device).
     *
     * @return the number of logs flushed.
     */
    int run()
    {
        final int count = size;
        if (count == 0)
        {
            return 0; // most duty cycles of a MEMORY or DIRECT log: nothing joined, nothing to clear
        }
        try
        {
            for (int first = 0; first < count; first++)
            {
                if (domains[first] != null)
                {
                    flushDomain(first, count);
                }
            }
        }
        finally
        {
            Arrays.fill(members, 0, count, null);
            Arrays.fill(domains, 0, count, null);
            Arrays.fill(written, 0, count, null);
            size = 0;
        }
        return count;
    }

    /** Flushes the members from {@code first} on of {@code domains[first]}, and marks them done (domain null). */
    private void flushDomain(final int first, final int count)
    {
        final Object domain = domains[first];
        int inDomain = 0;
        for (int i = first; i < count; i++)
        {
            if (domain.equals(domains[i]))
            {
                inDomain++;
            }
        }
        if (inDomain == 1)
        {
            domains[first] = null;
            try
            {
                members[first].flushAlone();
            }
            catch (final Throwable t)
            {
                fail(members[first], t);
            }
            return;
        }
        final BlockFile flushThrough = writeAll(first, count, domain);
        final Throwable failure = flushThrough == null ? null : deviceFlush(flushThrough, first, count, domain);
        for (int i = first; i < count; i++)
        {
            if (domain.equals(domains[i]))
            {
                domains[i] = null;
                if (written[i] != null)
                {
                    try
                    {
                        members[i].onSharedFlush(failure);
                    }
                    catch (final Throwable t)
                    {
                        fail(members[i], t);
                    }
                }
            }
        }
    }

    /**
     * Writes the blocks of every member of {@code domain} from {@code first} on as one batch: each log adds its
     * write, the batch issues them together (in flight at once where the I/O layer can), then each log takes its
     * write's outcome. A log whose write failed is not covered by the flush ({@code written[i]} null).
     *
     * @return the last file written (the one to fdatasync), or null when no write succeeded.
     */
    private BlockFile writeAll(final int first, final int count, final Object domain)
    {
        final BlockWriteBatch batch = batchFor(members[first].io());
        try
        {
            for (int i = first; i < count; i++)
            {
                if (domain.equals(domains[i]))
                {
                    slots[i] = batch.size();
                    try
                    {
                        written[i] = members[i].addWrite(batch);
                    }
                    catch (final Throwable t)
                    {
                        written[i] = null; // not covered by the flush: that log fails alone
                        fail(members[i], t);
                    }
                }
            }
            final long started = System.nanoTime();
            Throwable whole = null;
            try
            {
                batch.writeAll();
            }
            catch (final Throwable t)
            {
                whole = t; // the batch itself broke (a BlockIo of the SPI): no write is known to be complete
            }
            final long took = System.nanoTime() - started;
            BlockFile flushThrough = null;
            for (int i = first; i < count; i++)
            {
                if (written[i] != null && domain.equals(domains[i]))
                {
                    tookWrite(i, whole != null ? whole : batch.failure(slots[i]), took);
                    flushThrough = written[i] != null ? written[i] : flushThrough;
                }
            }
            return flushThrough;
        }
        finally
        {
            batch.clear();
        }
    }

    /** Hands member {@code i} its write's outcome; a failed write leaves it out of the flush. */
    private void tookWrite(final int i, final Throwable failure, final long took)
    {
        try
        {
            if (!members[i].onWritten(failure, took))
            {
                written[i] = null; // not covered by the flush: that log failed alone
            }
        }
        catch (final Throwable t)
        {
            written[i] = null;
            fail(members[i], t);
        }
    }

    /**
     * @return this writer's batch, taken from the log's I/O layer at the first shared flush (the store's: every
     * log of a writer has the same one); the plain one if that layer cannot make one.
     */
    private BlockWriteBatch batchFor(final BlockIo io)
    {
        if (batch != null && batchIo == io)
        {
            return batch;
        }
        close();
        BlockWriteBatch made;
        try
        {
            made = io.newWriteBatch();
        }
        catch (final RuntimeException e)
        {
            LOG.log(System.Logger.Level.WARNING, "the I/O layer " + io.describe() + " made no write batch (" + e +
                "): its logs write one after another");
            made = new SequentialWriteBatch();
        }
        batch = made;
        batchIo = io;
        return made;
    }

    /** Lets go of the batch (its AIO context). Writer thread, when it stops; a later flush takes a new one. */
    void close()
    {
        final BlockWriteBatch old = batch;
        batch = null;
        batchIo = null;
        if (old != null)
        {
            try
            {
                old.close();
            }
            catch (final RuntimeException e)
            {
                LOG.log(System.Logger.Level.WARNING, "closing a write batch failed: " + e);
            }
        }
    }

    /**
     * One log's part of the flush threw (an Error included): that log fails with it, as after a failed flush, and
     * the other logs of the flush go on (one log's failure must not stop the others, nor the writer).
     */
    private static void fail(final SharedFlushMember member, final Throwable thrown)
    {
        LOG.log(System.Logger.Level.ERROR, "a log's part of a shared flush threw " + thrown + "; that log fails",
            thrown);
        try
        {
            member.onSharedFlush(thrown);
        }
        catch (final Throwable again)
        {
            LOG.log(System.Logger.Level.ERROR, "failing that log threw too: " + again, again);
        }
    }

    /** @return null after the flush, else what it threw (every log it was to cover fails with it). */
    private Throwable deviceFlush(final BlockFile file, final int first, final int count, final Object domain)
    {
        try
        {
            // fdatasync of the last file written: its device's cache flush covers every write completed before it
            file.datasync();
            flushes++;
            for (int i = first; i < count; i++)
            {
                logsCovered += written[i] != null && domain.equals(domains[i]) ? 1 : 0;
            }
            return null;
        }
        catch (final Exception | Error e)
        {
            // an Error too (from a BlockIo of the SPI): every log the flush was to cover fails, the writer goes on
            LOG.log(System.Logger.Level.DEBUG, "shared flush through " + file.path() + " failed: " + e);
            return e;
        }
    }

    long flushes()
    {
        return flushes;
    }

    long logsCovered()
    {
        return logsCovered;
    }
}
