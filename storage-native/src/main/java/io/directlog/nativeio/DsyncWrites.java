package io.directlog.nativeio;

/**
 * Writes that are durable at completion through a descriptor opened without O_DSYNC: {@code pwritev2} with
 * {@code RWF_DSYNC}, so one O_DIRECT descriptor per file serves both plain and O_DSYNC writes (half the
 * descriptors of a file written both ways). Where the C library lacks pwritev2 or the kernel the flag (ENOSYS,
 * EOPNOTSUPP), {@link #isSupported()} turns false once, and callers open an O_DSYNC descriptor instead.
 * <p>
 * Each thread that writes this way keeps one 16-byte {@code struct iovec} in native memory for its life (never
 * freed: writer threads are few and live as long as the process's stores), so a write allocates nothing.
 * <p>
 * Thread-safe.
 */
public final class DsyncWrites
{
    private static final int IOVEC_LENGTH = 16;
    private static volatile boolean supported = probe();
    private static final ThreadLocal<org.agrona.concurrent.UnsafeBuffer> IOVEC = ThreadLocal.withInitial(() ->
        new org.agrona.concurrent.UnsafeBuffer(AlignedMemory.allocate(IOVEC_LENGTH, 16).address(), IOVEC_LENGTH));

    private DsyncWrites()
    {
    }

    /** @return true while pwritev2 with RWF_DSYNC is believed to work here (false after one refused it). */
    public static boolean isSupported()
    {
        return supported;
    }

    private static boolean probe()
    {
        if (!NativeIo.isAvailable() || Boolean.getBoolean("directlog.nativeio.noPwritev2"))
        {
            return false;
        }
        try
        {
            Class.forName(LibCWritev2.class.getName(), true, DsyncWrites.class.getClassLoader());
            return true;
        }
        catch (final LinkageError | ClassNotFoundException e)
        {
            return false;
        }
    }

    /** @return this thread's iovec (address at 0, length at 8). */
    static org.agrona.concurrent.UnsafeBuffer iovec()
    {
        return IOVEC.get();
    }

    /** The kernel or C library refused it: from now on callers use an O_DSYNC descriptor. */
    static void markUnsupported()
    {
        supported = false;
    }
}
