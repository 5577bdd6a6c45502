package io.directlog.nativeio;

/**
 * Native memory could not be allocated ({@code posix_memalign} failed). Unchecked, like {@link OutOfMemoryError},
 * but an exception so that callers may catch it and shed load without the JVM treating the heap as exhausted.
 *
 * <p>Immutable once thrown; thread-safe.
 */
public class NativeMemoryException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** The error number returned by the allocator. */
    private final int errno;

    /**
     * @param message what was asked for.
     * @param errno   the error number returned by the allocator.
     */
    public NativeMemoryException(final String message, final int errno)
    {
        super(message + ": " + Errno.name(errno) + " (" + Errno.describe(errno) + ")");
        this.errno = errno;
    }

    /**
     * @return the error number the allocator returned (ENOMEM or EINVAL).
     */
    public int errno()
    {
        return errno;
    }
}
