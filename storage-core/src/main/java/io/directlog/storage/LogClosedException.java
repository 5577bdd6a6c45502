package io.directlog.storage;

/**
 * The log or its store was closed; nothing was written or read. A {@link StorageException} like every error the
 * engine raises about a store's state (see the "Exceptions" section of docs/config.md); get a working handle
 * again with {@link LogStore#log(String)}.
 */
public class LogClosedException extends StorageException
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
