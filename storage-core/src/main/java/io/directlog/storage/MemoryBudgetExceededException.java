package io.directlog.storage;

/**
 * The store's memory budget cannot give a log the write page it needs; the message names the budget, the pages in use and the segment size.
 */
public class MemoryBudgetExceededException extends StorageException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what happened, naming the log and the values involved.
     */
    public MemoryBudgetExceededException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened.
     * @param cause   the underlying error.
     */
    public MemoryBudgetExceededException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
