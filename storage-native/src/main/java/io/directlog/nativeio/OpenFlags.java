package io.directlog.nativeio;

/**
 * {@code open(2)} flags with the values of the running platform. They are not compile-time constants on purpose:
 * O_DIRECT is 0x4000 on x86-64 but 0x10000 on aarch64 (where 0x4000 is O_DIRECTORY), so a value inlined at compile
 * time on one machine would silently mean something else on another.
 *
 * <p>On an unsupported platform the fields hold the x86-64 values, but nothing will accept them since every call
 * fails with {@link UnsupportedOperationException}.
 *
 * <p>Constants only; thread-safe.
 */
public final class OpenFlags
{
    /** O_RDONLY. */
    public static final int READ_ONLY;
    /** O_WRONLY. */
    public static final int WRITE_ONLY;
    /** O_RDWR. */
    public static final int READ_WRITE;
    /** O_CREAT: create the file if missing, with the mode given to {@link NativeFile#open(java.nio.file.Path, int, int)}. */
    public static final int CREATE;
    /** O_EXCL: with {@link #CREATE}, fail with EEXIST if the file exists. */
    public static final int EXCLUSIVE;
    /** O_TRUNC. */
    public static final int TRUNCATE;
    /** O_APPEND. Note that on Linux {@code pwrite(2)} ignores the position and appends when this flag is set. */
    public static final int APPEND;
    /** O_DIRECT: bypass the page cache; buffer address, offset and length must be aligned (see {@link NativeFileSystem#directIoAlignment}). */
    public static final int DIRECT;
    /** O_DSYNC: each write returns after data and the metadata needed to read it are durable. Prefer it to {@link #SYNC}. */
    public static final int DSYNC;
    /** O_SYNC: like {@link #DSYNC} plus all metadata; on Linux it also disables the FUA write-through path for O_DIRECT. */
    public static final int SYNC;
    /** O_CLOEXEC: the descriptor is not inherited by child processes. */
    public static final int CLOEXEC;
    /** O_DIRECTORY: fail with ENOTDIR unless the path is a directory. */
    public static final int DIRECTORY;
    /** O_NOFOLLOW: fail with ELOOP if the last path component is a symbolic link. */
    public static final int NOFOLLOW;

    static
    {
        READ_ONLY = 0;
        WRITE_ONLY = 01;
        READ_WRITE = 02;
        CREATE = 0100;
        EXCLUSIVE = 0200;
        TRUNCATE = 01000;
        APPEND = 02000;
        DSYNC = 010000;
        // glibc/kernel define O_SYNC as __O_SYNC | O_DSYNC, so O_SYNC includes O_DSYNC.
        SYNC = 04010000;
        CLOEXEC = 02000000;
        if (Platform.isAarch64())
        {
            DIRECTORY = 040000;
            NOFOLLOW = 0100000;
            DIRECT = 0200000;
        }
        else
        {
            DIRECT = 040000;
            DIRECTORY = 0200000;
            NOFOLLOW = 0400000;
        }
    }

    private OpenFlags()
    {
    }
}
