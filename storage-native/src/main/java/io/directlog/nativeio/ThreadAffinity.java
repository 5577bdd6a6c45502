package io.directlog.nativeio;

/**
 * Which CPUs the calling thread may run on: sched_getaffinity and sched_setaffinity with pid 0, which on Linux
 * mean the calling thread, not the process.
 * <p>
 * Stateless; thread-safe (each call concerns its own thread).
 */
public final class ThreadAffinity
{
    private static final long CPU_SET_BYTES = (CpuSet.MAX_CPU + 1) / Byte.SIZE;

    private ThreadAffinity()
    {
    }

    /**
     * @return the CPUs the calling thread may run on.
     * @throws NativeIoException when sched_getaffinity fails.
     * @throws UnsupportedOperationException when the native layer is unavailable.
     */
    public static CpuSet currentThread() throws NativeIoException
    {
        NativeIo.ensureAvailable();
        final long[] words = new long[(int)(CPU_SET_BYTES / Long.BYTES)];
        if (LibC.sched_getaffinity(0, CPU_SET_BYTES, words) != 0)
        {
            throw new NativeIoException("sched_getaffinity", null, NativeIo.errno(), -1, -1);
        }
        return CpuSet.fromWords(words);
    }

    /**
     * Restricts the calling thread to {@code cpus}.
     *
     * @param cpus where it may run; not empty.
     * @throws NativeIoException when sched_setaffinity fails (EINVAL: none of the CPUs is online or allowed by the
     *                           process's cpuset).
     * @throws IllegalArgumentException when {@code cpus} is empty.
     * @throws UnsupportedOperationException when the native layer is unavailable.
     */
    public static void pinCurrentThread(final CpuSet cpus) throws NativeIoException
    {
        if (cpus.isEmpty())
        {
            throw new IllegalArgumentException("cannot pin a thread to an empty CPU set");
        }
        NativeIo.ensureAvailable();
        if (LibC.sched_setaffinity(0, CPU_SET_BYTES, cpus.toWords()) != 0)
        {
            final int errno = NativeIo.errno();
            throw new NativeIoException("sched_setaffinity", null, errno, -1, -1, Errno.name(errno) + " (" +
                Errno.describe(errno) + ") pinning a thread to CPUs " + cpus);
        }
    }
}
