package io.directlog.nativeio;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * glibc functions bound with JNA direct mapping ({@link Native#register}): each call is a JNI call with no
 * reflection or argument boxing, which is several times cheaper than an interface-mapped {@code Library}.
 *
 * <p>Pointers and {@code size_t}/{@code ssize_t}/{@code off_t} are {@code long}, which is right only on LP64 ABIs
 * (x86-64 and aarch64 Linux); {@link NativeIo} refuses to load this class anywhere else. Paths are NUL-terminated
 * {@code byte[]} so that the file-name encoding is chosen by {@link NativeIo#pathBytes}, not by JNA.
 *
 * <p>Failures return -1 and leave errno in {@link Native#getLastError()}, which JNA captures right after the call
 * on the calling thread; read it before making any other native call. {@code posix_memalign} and
 * {@code posix_fadvise} instead return the error number.
 *
 * <p>{@code open}, {@code ioctl} and {@code syscall} are variadic in C. Calling them through a fixed prototype is
 * correct on the x86-64 SysV and aarch64 Linux ABIs for integer arguments (Apple's aarch64 ABI would differ, and is
 * not supported).
 *
 * <p>Stateless; thread-safe.
 */
final class LibC
{
    static final int AT_FDCWD = -100;
    static final int AT_EMPTY_PATH = 0x1000;
    static final int AT_SYMLINK_NOFOLLOW = 0x100;

    static final int STATX_TYPE = 0x1;
    static final int STATX_MODE = 0x2;
    static final int STATX_INO = 0x100;
    static final int STATX_SIZE = 0x200;
    static final int STATX_BLOCKS = 0x400;
    static final int STATX_BASIC_STATS = 0x7ff;
    static final int STATX_DIOALIGN = 0x2000;

    /** _IOWR('f', 11, struct fiemap): the same on every architecture with the generic ioctl encoding. */
    static final long FS_IOC_FIEMAP = 0xC020660BL;
    static final int FIEMAP_FLAG_SYNC = 0x1;

    static final int F_GETFL = 3;

    static final int PROT_READ = 0x1;
    static final int PROT_WRITE = 0x2;
    static final int MAP_PRIVATE = 0x02;
    static final int MAP_ANONYMOUS = 0x20;
    static final long MAP_FAILED = -1L;
    /** Private anonymous memory given back this way reads as zero again (Linux madvise(2); same value on BSDs). */
    static final int MADV_DONTNEED = 4;
    /**
     * Faults a range of private anonymous memory in as if written, without changing a byte (Linux 5.14 and later;
     * older kernels answer EINVAL).
     */
    static final int MADV_POPULATE_WRITE = 23;

    static
    {
        Native.register(LibC.class, NativeLibrary.getInstance(com.sun.jna.Platform.C_LIBRARY_NAME));
    }

    private LibC()
    {
    }

    static native int open(byte[] path, int flags, int mode);

    static native int close(int fd);

    static native long pwrite(int fd, long buf, long count, long offset);

    static native long pread(int fd, long buf, long count, long offset);

    static native int fsync(int fd);

    static native int fdatasync(int fd);

    static native int syncfs(int fd);

    static native int sync_file_range(int fd, long offset, long nbytes, int flags);

    static native int fallocate(int fd, int mode, long offset, long len);

    static native int ftruncate(int fd, long length);

    static native int posix_fadvise(int fd, long offset, long len, int advice);

    static native int statx(int dirfd, byte[] path, int flags, int mask, long statxbuf);

    static native int statfs(byte[] path, long buf);

    static native int fstatfs(int fd, long buf);

    static native int ioctl(int fd, long request, long arg);

    static native int fcntl(int fd, int cmd, int arg);

    static native int rename(byte[] oldpath, byte[] newpath);

    static native int renameat(int olddirfd, byte[] oldpath, int newdirfd, byte[] newpath);

    static native int unlink(byte[] path);

    static native int getpid();

    /** glibc's wrapper: 0 on success. {@code mask} is a cpu_set_t of {@code cpusetsize} bytes. */
    static native int sched_setaffinity(int pid, long cpusetsize, long[] mask);

    /** glibc's wrapper: 0 on success; the mask gets the thread's allowed CPUs. */
    static native int sched_getaffinity(int pid, long cpusetsize, long[] mask);

    static native long strerror(int errnum);

    static native int posix_memalign(long[] memptr, long alignment, long size);

    static native void free(long ptr);

    static native long memset(long ptr, int c, long n);

    static native long mmap(long addr, long length, int prot, int flags, int fd, long offset);

    static native int munmap(long addr, long length);

    static native int madvise(long addr, long length, int advice);

    /**
     * {@code long syscall(long number, ...)}, variadic in C, bound with five integer arguments (see the class
     * comment): for system calls glibc has no wrapper of (Linux native AIO). Unused trailing arguments are ignored
     * by the kernel.
     */
    static native long syscall(long number, long a1, long a2, long a3, long a4, long a5);
}
