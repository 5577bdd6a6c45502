package io.directlog.storage;

/**
 * The root of DirectLog's unchecked exceptions.
 */
public class StorageException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what happened, naming the log and the values involved.
     */
    public StorageException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened.
     * @param cause   the underlying error.
     */
    public StorageException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
