package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Path;

import io.directlog.storage.LogConfig;

/**
 * How a log is opened: recovery finds what its files hold ({@link LogLoader}, or {@link KnownLogLoader} from the
 * store manifest), the {@link DefaultLog} is built from that, then started (its checkpoint marked not clean, its
 * spare files registered with the preparer); a log whose start fails is closed again.
 * <p>
 * Stateless; thread-safe (the store opens one log at a time per name).
 */
public final class LogOpening
{
    private LogOpening()
    {
    }

    /**
     * Opens or creates the log in {@code dir}, recovering its tail.
     *
     * @param name    the log's name.
     * @param dir     its directory.
     * @param context what it shares with the store.
     * @param config  its settings (the segment size of an existing log wins).
     * @return the open log.
     * @throws IOException when its files cannot be read or written.
     */
    public static DefaultLog open(final String name, final Path dir, final LogContext context, final LogConfig config)
        throws IOException
    {
        return started(name, dir, context, new LogLoader(name, dir, context, config).load());
    }

    /**
     * Opens a log the store manifest describes, from what it records ({@link KnownLogLoader}: no {@code log.meta},
     * segment header or checkpoint read); when its files do not match that, from its files as {@link #open} does.
     *
     * @param facts what the manifest records of the log.
     * @see #open
     */
    public static DefaultLog openKnown(final String name, final Path dir, final LogContext context,
        final LogConfig config, final LogFacts facts) throws IOException
    {
        RecoveredLog found = new KnownLogLoader(name, dir, context, config, facts).load();
        if (found == null)
        {
            found = new LogLoader(name, dir, context, config, facts).load(); // facts stand in for a lost checkpoint
        }
        return started(name, dir, context, found);
    }

    /** Builds the log from what recovery found and starts it; one whose start fails is closed again. */
    private static DefaultLog started(final String name, final Path dir, final LogContext context,
        final RecoveredLog found) throws IOException
    {
        final DefaultLog log = new DefaultLog(name, dir, context, found);
        try
        {
            log.start(found);
        }
        catch (final IOException | RuntimeException e)
        {
            try
            {
                log.close();
            }
            catch (final RuntimeException closeFailure)
            {
                e.addSuppressed(closeFailure); // it goes with the start's failure, not in its place
            }
            throw e;
        }
        return log;
    }
}
