package io.directlog.storage;

/**
 * Another LogStore, in this process or another, holds the directory.
 */
public class StoreLockedException extends StorageException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what happened, naming the log and the values involved.
     */
    public StoreLockedException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened.
     * @param cause   the underlying error.
     */
    public StoreLockedException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
