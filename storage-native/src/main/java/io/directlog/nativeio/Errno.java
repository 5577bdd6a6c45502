package io.directlog.nativeio;

import com.sun.jna.Pointer;

/**
 * Linux errno values (asm-generic numbering, shared by x86-64 and aarch64) and their names.
 *
 * <p>Constants and pure functions; thread-safe.
 */
public final class Errno
{
    /** Operation not permitted. */
    public static final int EPERM = 1;
    /** No such file or directory. */
    public static final int ENOENT = 2;
    /** Interrupted system call. */
    public static final int EINTR = 4;
    /** Input/output error. */
    public static final int EIO = 5;
    /** Bad file descriptor. */
    public static final int EBADF = 9;
    /** Resource temporarily unavailable. */
    public static final int EAGAIN = 11;
    /** Cannot allocate memory. */
    public static final int ENOMEM = 12;
    /** Permission denied. */
    public static final int EACCES = 13;
    /** File exists. */
    public static final int EEXIST = 17;
    /** Invalid cross-device link. */
    public static final int EXDEV = 18;
    /** Not a directory. */
    public static final int ENOTDIR = 20;
    /** Is a directory. */
    public static final int EISDIR = 21;
    /** Invalid argument. */
    public static final int EINVAL = 22;
    /** Too many open files. */
    public static final int EMFILE = 24;
    /** File too large. */
    public static final int EFBIG = 27;
    /** No space left on device. */
    public static final int ENOSPC = 28;
    /** Illegal seek. */
    public static final int ESPIPE = 29;
    /** Read-only file system. */
    public static final int EROFS = 30;
    /** Function not implemented. */
    public static final int ENOSYS = 38;
    /** Operation not supported (ENOTSUP is the same number on Linux). */
    public static final int EOPNOTSUPP = 95;
    /** Disk quota exceeded. */
    public static final int EDQUOT = 122;

    // Index = errno. Descriptions are glibc's strerror texts, kept here so messages do not depend on the locale
    // or on the native layer being available.
    private static final String[][] TABLE = new String[134][];

    static
    {
        put(1, "EPERM", "Operation not permitted");
        put(2, "ENOENT", "No such file or directory");
        put(3, "ESRCH", "No such process");
        put(4, "EINTR", "Interrupted system call");
        put(5, "EIO", "Input/output error");
        put(6, "ENXIO", "No such device or address");
        put(7, "E2BIG", "Argument list too long");
        put(8, "ENOEXEC", "Exec format error");
        put(9, "EBADF", "Bad file descriptor");
        put(10, "ECHILD", "No child processes");
        put(11, "EAGAIN", "Resource temporarily unavailable");
        put(12, "ENOMEM", "Cannot allocate memory");
        put(13, "EACCES", "Permission denied");
        put(14, "EFAULT", "Bad address");
        put(15, "ENOTBLK", "Block device required");
        put(16, "EBUSY", "Device or resource busy");
        put(17, "EEXIST", "File exists");
        put(18, "EXDEV", "Invalid cross-device link");
        put(19, "ENODEV", "No such device");
        put(20, "ENOTDIR", "Not a directory");
        put(21, "EISDIR", "Is a directory");
        put(22, "EINVAL", "Invalid argument");
        put(23, "ENFILE", "Too many open files in system");
        put(24, "EMFILE", "Too many open files");
        put(25, "ENOTTY", "Inappropriate ioctl for device");
        put(26, "ETXTBSY", "Text file busy");
        put(27, "EFBIG", "File too large");
        put(28, "ENOSPC", "No space left on device");
        put(29, "ESPIPE", "Illegal seek");
        put(30, "EROFS", "Read-only file system");
        put(31, "EMLINK", "Too many links");
        put(32, "EPIPE", "Broken pipe");
        put(34, "ERANGE", "Numerical result out of range");
        put(35, "EDEADLK", "Resource deadlock avoided");
        put(36, "ENAMETOOLONG", "File name too long");
        put(37, "ENOLCK", "No locks available");
        put(38, "ENOSYS", "Function not implemented");
        put(39, "ENOTEMPTY", "Directory not empty");
        put(40, "ELOOP", "Too many levels of symbolic links");
        put(61, "ENODATA", "No data available");
        put(75, "EOVERFLOW", "Value too large for defined data type");
        put(95, "EOPNOTSUPP", "Operation not supported");
        put(110, "ETIMEDOUT", "Connection timed out");
        put(116, "ESTALE", "Stale file handle");
        put(117, "EUCLEAN", "Structure needs cleaning");
        put(122, "EDQUOT", "Disk quota exceeded");
        put(125, "ECANCELED", "Operation canceled");
    }

    private Errno()
    {
    }

    private static void put(final int errno, final String name, final String description)
    {
        TABLE[errno] = new String[] {name, description};
    }

    /**
     * The symbolic name of an errno value.
     *
     * @param errno an errno value.
     * @return e.g. {@code "EINVAL"}; {@code "ERRNO_<n>"} for a value this class does not name.
     */
    public static String name(final int errno)
    {
        final String[] entry = errno >= 0 && errno < TABLE.length ? TABLE[errno] : null;
        return entry != null ? entry[0] : "ERRNO_" + errno;
    }

    /**
     * A human description of an errno value, as {@code strerror(3)} gives it in the C locale.
     *
     * @param errno an errno value.
     * <p>Values in this class's table are described from the table, so messages do not change with the process
     * locale; others are asked of {@code strerror(3)} when the native layer is available.
     *
     * @return e.g. {@code "Invalid argument"}; {@code "Unknown error <n>"} for a value nobody knows.
     */
    public static String describe(final int errno)
    {
        final String[] entry = errno >= 0 && errno < TABLE.length ? TABLE[errno] : null;
        if (entry != null)
        {
            return entry[1];
        }
        if (NativeIo.isAvailable())
        {
            // glibc >= 2.32 returns a static string for known values and a thread-local buffer otherwise.
            final long text = LibC.strerror(errno);
            if (text != 0)
            {
                return new Pointer(text).getString(0);
            }
        }
        return "Unknown error " + errno;
    }
}
