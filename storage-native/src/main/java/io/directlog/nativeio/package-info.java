/**
 * Linux system calls for Java storage code: open/pread/pwrite/fdatasync on raw file descriptors, O_DIRECT,
 * {@code fallocate}, FIEMAP, {@code statx}/{@code statfs}, aligned off-heap memory, block-device facts from sysfs,
 * and errno turned into {@link io.directlog.nativeio.NativeIoException}.
 *
 * <p>The package is a leaf library ("libc for Java storage"): it knows nothing of logs, segments or records, so any
 * project can use it alone. Nothing in here may depend on {@code storage-core} or anything above it.
 *
 * <p>Everything goes through a package-private class of JNA direct-mapped natives. Whether that layer can be used
 * is decided once, by {@link io.directlog.nativeio.NativeIo}; when it cannot (another OS or CPU, no libc, or the
 * {@value io.directlog.nativeio.NativeIo#DISABLE_PROP_NAME} property), every facade method throws
 * {@link java.lang.UnsupportedOperationException} with the cause, never a linkage error.
 */
package io.directlog.nativeio;
