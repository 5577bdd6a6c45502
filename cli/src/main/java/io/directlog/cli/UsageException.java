package io.directlog.cli;

/**
 * The command line is wrong; the message says what and how to fix it, and is shown without a stack trace.
 */
public class UsageException extends Exception
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong, in the user's terms.
     */
    public UsageException(final String message)
    {
        super(message);
    }
}
