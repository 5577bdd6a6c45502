package io.directlog.benchmarks.nativeio;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Platform;

/**
 * The same calls as {@link DirectLibC} through JNA interface mapping: a dynamic proxy that boxes the arguments
 * into an {@code Object[]}, looks up the {@code Function} and converts each argument by reflection on every call.
 * <p>
 * Thread-safe (JNA library proxies are).
 */
interface InterfaceLibC extends Library
{
    /** The loaded proxy. */
    InterfaceLibC INSTANCE = Native.load(Platform.C_LIBRARY_NAME, InterfaceLibC.class);

    /**
     * @param value an int.
     * @return its absolute value.
     */
    int abs(int value);

    /** @return the process id (a real system call since glibc 2.25 dropped its cache). */
    int getpid();

    /**
     * @param fd  a descriptor.
     * @param cmd F_GETFL.
     * @param arg ignored.
     * @return the descriptor's flags.
     */
    int fcntl(int fd, int cmd, int arg);

    /**
     * @param fd     a descriptor.
     * @param buf    native address.
     * @param count  bytes.
     * @param offset file offset.
     * @return bytes written or -1.
     */
    long pwrite(int fd, long buf, long count, long offset);
}
