package io.directlog.storage;

/**
 * Opening found damage that is not a torn tail; the message names the log, segment file, position and offset.
 */
public class CorruptLogException extends StorageException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what happened, naming the log and the values involved.
     */
    public CorruptLogException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened.
     * @param cause   the underlying error.
     */
    public CorruptLogException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
