package io.directlog.storage.log;

import java.io.IOException;

import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.BlockWriteBatch;
import io.directlog.storage.writer.SharedFlushMember;

/**
 * One log's part in its writer's shared flush (see {@code SharedFlush} in the writer package): whether the log
 * takes part, and its side of each step. A log takes part when its I/O layer names a flush domain for its
 * directory ({@code BlockIo.flushDomain}: the block device on ext4 and XFS), asked once, at its first DSYNC flush;
 * not on the buffered fallback (an fdatasync of one file leaves another's page cache dirty), not on a
 * copy-on-write filesystem, and not when {@value #SHARED_FLUSH_PROP_NAME} is false.
 * <p>
 * Not thread-safe; owned by the log's writer thread.
 */
final class SharedFlushTurn implements SharedFlushMember
{
    /** System property: false makes every DSYNC flush of every log its own O_DSYNC write. */
    static final String SHARED_FLUSH_PROP_NAME = "directlog.writer.sharedFlush";
    private static final System.Logger LOG = System.getLogger(SharedFlushTurn.class.getName());

    private final LogParts parts;
    private final LogAppender appender;
    private Object domain;
    private boolean domainKnown;

    SharedFlushTurn(final LogParts parts, final LogAppender appender)
    {
        this.parts = parts;
        this.appender = appender;
    }

    /**
     * Offers the log's DSYNC flush to the writer's shared flush of this duty cycle.
     *
     * @return true when the writer took it (the log must not flush now); false: the log flushes alone, now.
     */
    boolean tryJoin()
    {
        if (!domainKnown)
        {
            domain = lookUpDomain(parts);
            domainKnown = true;
        }
        return domain != null && parts.context().writer().joinSharedFlush(domain, this);
    }

    /**
     * @return the flush domain of the log's directory when its files may share an fdatasync with other logs' (the
     * writer's shared flush, the syncer's round), or null: this log's flushes stay its own.
     */
    static Object lookUpDomain(final LogParts parts)
    {
        final LogContext context = parts.context();
        if (!Boolean.parseBoolean(System.getProperty(SHARED_FLUSH_PROP_NAME, "true")) || !context.io().isDirect() ||
            context.copyOnWrite())
        {
            return null;
        }
        try
        {
            return context.io().flushDomain(parts.dir());
        }
        catch (final IOException | RuntimeException e)
        {
            // the safe way: this log's DSYNC flushes stay its own O_DSYNC writes
            LOG.log(System.Logger.Level.WARNING, "log '" + parts.name() + "' flushes alone: its directory's " +
                "device could not be told: " + e);
            return null;
        }
    }

    @Override
    public BlockIo io()
    {
        return parts.context().io();
    }

    @Override
    public BlockFile addWrite(final BlockWriteBatch batch)
    {
        final BlockFile file = appender.addSharedWrite(batch);
        if (file == null)
        {
            appender.drainOnFailure(parts.lifecycle().failure()); // failed before its write: its appends fail now
        }
        return file;
    }

    @Override
    public boolean onWritten(final Throwable failure, final long nanos)
    {
        return appender.onSharedWrite(failure, nanos);
    }

    @Override
    public void onSharedFlush(final Throwable failure)
    {
        final LogLifecycle lifecycle = parts.lifecycle();
        if (failure != null)
        {
            lifecycle.failStop("fdatasync shared by the logs of writer " + parts.context().writer().roleName() +
                " (the device flush covering this log's write)", failure);
        }
        if (lifecycle.failure() != null)
        {
            appender.drainOnFailure(lifecycle.failure());
            return;
        }
        appender.completeFlush(true);
    }

    @Override
    public void flushAlone()
    {
        appender.flush();
    }
}
