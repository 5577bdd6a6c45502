package io.directlog.storage;

/**
 * No prepared segment is left (the preparer cannot get space). Appends fail fast; reads keep working; appends resume by themselves once the preparer succeeds again.
 */
public class LogFullException extends StorageException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what happened, naming the log and the values involved.
     */
    public LogFullException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened.
     * @param cause   the underlying error.
     */
    public LogFullException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
