package io.directlog.replication;

/**
 * A replicated append or read that failed.
 * <p>
 * {@link #retriable()} tells a caller whether trying again (possibly on another node) can succeed: a leader that is
 * not ready yet, or that stepped down, is retriable; a corrupt entry is not. A retriable failure of an append leaves
 * its outcome unknown: the batch may still be committed.
 */
public class ReplicationException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** Whether trying again can succeed. */
    private final boolean retriable;

    /**
     * @param message   what failed.
     * @param retriable whether trying again can succeed.
     * @param cause     the underlying failure, or null.
     */
    public ReplicationException(final String message, final boolean retriable, final Throwable cause)
    {
        super(message, cause);
        this.retriable = retriable;
    }

    /** @return whether trying again can succeed. */
    public boolean retriable()
    {
        return retriable;
    }
}
