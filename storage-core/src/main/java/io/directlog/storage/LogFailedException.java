package io.directlog.storage;

/**
 * The log hit a write or sync error and stopped (fail-stop); also when the engine's own code for the log threw,
 * or the writer thread serving it ended (the message names the thread and the cause). Sticky: every later append
 * fails with it until the log is reopened, which recovers. Records acknowledged before the error stay readable.
 */
public class LogFailedException extends StorageException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what happened, naming the log and the values involved.
     */
    public LogFailedException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened.
     * @param cause   the underlying error.
     */
    public LogFailedException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
