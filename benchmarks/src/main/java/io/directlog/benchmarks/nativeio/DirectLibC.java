package io.directlog.benchmarks.nativeio;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;

/**
 * The benchmark's own direct-mapped bindings ({@code storage-native}'s are package-private). Same shape as there:
 * static natives, {@code long} for pointers and sizes (LP64 only).
 * <p>
 * Stateless; thread-safe.
 */
final class DirectLibC
{
    static
    {
        Native.register(DirectLibC.class, NativeLibrary.getInstance(Platform.C_LIBRARY_NAME));
    }

    private DirectLibC()
    {
    }

    static native int abs(int value);

    static native int getpid();

    static native int fcntl(int fd, int cmd, int arg);

    static native long pwrite(int fd, long buf, long count, long offset);
}
