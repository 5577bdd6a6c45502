package io.directlog.storage;

/**
 * The writer's queue stayed full for the whole appendTimeout: back-pressure, nothing was written.
 */
public class AppendTimeoutException extends StorageException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what happened, naming the log and the values involved.
     */
    public AppendTimeoutException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened.
     * @param cause   the underlying error.
     */
    public AppendTimeoutException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
