package io.directlog.storage;

/**
 * The root of DirectLog's unchecked exceptions: every error the engine raises about a store, a log or their files
 * is one. Misuse of an argument or of the API's contract gets the JDK's {@link NullPointerException},
 * {@link IllegalArgumentException} or {@link IllegalStateException}. The whole tree, and when each is thrown, is in
 * the "Exceptions" section of docs/config.md.
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
