package io.directlog.nativeio;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * {@code pwritev2(2)} (glibc 2.26, Linux 4.6; {@code RWF_DSYNC} since Linux 4.7), bound apart from {@link LibC}: a
 * C library without the symbol fails this class's registration only, and {@link DsyncWrites} falls back.
 * <p>
 * Thread-safe: static natives.
 */
final class LibCWritev2
{
    /** Per-write O_DSYNC: the write is durable as on a descriptor opened with O_DSYNC. */
    static final int RWF_DSYNC = 0x2;

    static
    {
        Native.register(LibCWritev2.class, NativeLibrary.getInstance(com.sun.jna.Platform.C_LIBRARY_NAME));
    }

    private LibCWritev2()
    {
    }

    static native long pwritev2(int fd, long iov, int iovcnt, long offset, int flags);
}
