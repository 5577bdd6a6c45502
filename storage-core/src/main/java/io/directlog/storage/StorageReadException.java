package io.directlog.storage;

/**
 * A read failed with an I/O error; the writer is unaffected.
 */
public class StorageReadException extends StorageException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what happened, naming the log and the values involved.
     */
    public StorageReadException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened.
     * @param cause   the underlying error.
     */
    public StorageReadException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
