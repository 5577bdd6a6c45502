package io.directlog.nativeio;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A failed system call: which call, on which path, at which offset and length, and the errno it set.
 * The message reads like {@code "pwrite(/data/x.log, offset=4096, length=100) failed: EINVAL (Invalid argument)"}.
 *
 * <p>An errno of 0 means the call did not fail with an errno but could not make progress (for example a
 * {@code pwrite} that wrote 0 bytes); the message then says what happened.
 *
 * <p>Immutable once thrown; thread-safe.
 */
public class NativeIoException extends IOException
{
    private static final long serialVersionUID = 1L;

    /** The system call that failed. */
    private final String call;
    /** The path it was made on; transient because {@link Path} is not serializable. */
    private final transient Path path;
    /** The errno it set, or 0. */
    private final int errno;
    /** The file offset, or -1. */
    private final long offset;
    /** The length, or -1. */
    private final long length;

    /**
     * A call that failed with an errno.
     *
     * @param call   the system call, e.g. {@code "pwrite"}.
     * @param path   the file it was made on, or null if none.
     * @param errno  the errno it set.
     * @param offset the file offset it was given, or -1 if not applicable.
     * @param length the length it was given, or -1 if not applicable.
     */
    public NativeIoException(final String call, final Path path, final int errno, final long offset, final long length)
    {
        this(call, path, errno, offset, length, Errno.name(errno) + " (" + Errno.describe(errno) + ")");
    }

    /**
     * A call that failed without an errno, or with extra detail.
     *
     * @param call   the system call, e.g. {@code "pwrite"}.
     * @param path   the file it was made on, or null if none.
     * @param errno  the errno it set, or 0 if none.
     * @param offset the file offset it was given, or -1 if not applicable.
     * @param length the length it was given, or -1 if not applicable.
     * @param detail what went wrong, placed after {@code "failed: "} in the message.
     */
    public NativeIoException(
        final String call, final Path path, final int errno, final long offset, final long length, final String detail)
    {
        super(message(call, path, offset, length, detail));
        this.call = call;
        this.path = path;
        this.errno = errno;
        this.offset = offset;
        this.length = length;
    }

    private static String message(
        final String call, final Path path, final long offset, final long length, final String detail)
    {
        final StringBuilder sb = new StringBuilder(96).append(call).append('(');
        String separator = "";
        if (path != null)
        {
            sb.append(path);
            separator = ", ";
        }
        if (offset >= 0)
        {
            sb.append(separator).append("offset=").append(offset);
            separator = ", ";
        }
        if (length >= 0)
        {
            sb.append(separator).append("length=").append(length);
        }
        return sb.append(") failed: ").append(detail).toString();
    }

    /**
     * @return the system call that failed, e.g. {@code "pwrite"}.
     */
    public String call()
    {
        return call;
    }

    /**
     * @return the path the call was made on, or null if none (or after deserialisation).
     */
    public Path path()
    {
        return path;
    }

    /**
     * @return the errno the call set, or 0 if it failed without one.
     */
    public int errno()
    {
        return errno;
    }

    /**
     * @return the symbolic name of {@link #errno()}, e.g. {@code "EINVAL"}.
     */
    public String errnoName()
    {
        return Errno.name(errno);
    }

    /**
     * @return the file offset the call was given, or -1 if not applicable.
     */
    public long offset()
    {
        return offset;
    }

    /**
     * @return the length the call was given, or -1 if not applicable.
     */
    public long length()
    {
        return length;
    }
}
