package io.directlog.storage;

/**
 * A record larger than a segment can hold; nothing was written.
 */
public class RecordTooLargeException extends StorageException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what happened, naming the log and the values involved.
     */
    public RecordTooLargeException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened.
     * @param cause   the underlying error.
     */
    public RecordTooLargeException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
