package io.directlog.storage.log;

import io.directlog.storage.LogClosedException;
import io.directlog.storage.LogFailedException;

/**
 * Where one log is in its life: open, closing (no more appends), closed (no more reads), or failed (fail-stop:
 * every later append fails with the same sticky exception). Every part of the log reads it; the flags only ever
 * go one way.
 * <p>
 * Thread-safe: volatile flags; {@link #beginClose()} is the one place two threads race, and it is synchronized.
 */
final class LogLifecycle
{
    private static final System.Logger LOG = System.getLogger(DefaultLog.class.getName());

    private final String name;
    private final LogContext context;
    private final LogEventSink events;
    private volatile boolean closing;
    private volatile boolean closed;
    private volatile Throwable failure;
    private volatile boolean failureLogged;

    LogLifecycle(final String name, final LogContext context, final LogEventSink events)
    {
        this.name = name;
        this.context = context;
        this.events = events;
    }

    /** @return true once close() began: the log takes no more appends. */
    boolean isClosing()
    {
        return closing;
    }

    /** @return true once the writer closed the log: reads fail. */
    boolean isClosed()
    {
        return closed;
    }

    /** Writer, at the end of its close. */
    void markClosed()
    {
        closed = true;
    }

    /** @return the sticky failure, or null. */
    Throwable failure()
    {
        return failure;
    }

    /** @return true for the first caller only: that one closes the log. */
    synchronized boolean beginClose()
    {
        if (closing)
        {
            return false;
        }
        closing = true;
        return true;
    }

    /** @return why an append is refused now (closed or failed), or null. */
    Throwable refusal()
    {
        if (closing)
        {
            return new LogClosedException("log '" + name + "' is closed");
        }
        final Throwable failed = failure;
        if (failed != null)
        {
            return failed;
        }
        return null;
    }

    /** @throws LogClosedException once the writer closed the log. */
    void checkOpenForRead()
    {
        if (closed)
        {
            throw new LogClosedException("log '" + name + "' is closed");
        }
    }

    /** @return true on the writer thread this log is pinned to. */
    boolean isWriterThread()
    {
        return Thread.currentThread() == context.writer().thread();
    }

    /**
     * Fail-stop: every pending and later append fails with the same sticky exception; nothing more is
     * acknowledged; records already durable stay readable. Writing again needs a reopen, which recovers.
     */
    void failStop(final String what, final Throwable cause)
    {
        if (failure == null)
        {
            final LogFailedException e = new LogFailedException("log '" + name + "' stopped after a failed " + what +
                ": " + cause.getMessage() + " (reopen the store to recover)", cause);
            failure = e;
            events.failStopped();
            context.writer().wakeUp();
            if (Thread.currentThread() != context.writer().thread())
            {
                logFailure(e);
            }
        }
    }

    void logFailure(final Throwable e)
    {
        if (!failureLogged)
        {
            failureLogged = true;
            if (Thread.currentThread() == context.writer().thread())
            {
                // never on the writer: formatting and printing a stack trace (a blocking stderr pipe, the console
                // handler's lock held by another thread) took over 100 ms on a loaded machine while appends still
                // queued behind the failure waited to be failed
                final Thread logger = new Thread(() -> LOG.log(System.Logger.Level.ERROR, e.getMessage(),
                    e.getCause()), "directlog-failure-log");
                logger.setDaemon(true);
                logger.start();
                return;
            }
            LOG.log(System.Logger.Level.ERROR, e.getMessage(), e.getCause());
        }
    }
}
