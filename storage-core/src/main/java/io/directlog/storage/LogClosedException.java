package io.directlog.storage;

/**
 * The log or its store was closed; nothing was written or read.
 */
public class LogClosedException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what was refused, naming the log.
     */
    public LogClosedException(final String message)
    {
        super(message);
    }
}
