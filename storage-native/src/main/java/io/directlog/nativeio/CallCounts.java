package io.directlog.nativeio;

/**
 * A snapshot of how many times each counted system call was made by this process through this package, since
 * class loading. Each EINTR retry counts as a call, because each is a trip into the kernel.
 *
 * <p>Immutable; thread-safe.
 *
 * @param pwrite    {@code pwrite(2)} calls
 * @param pread     {@code pread(2)} calls
 * @param fdatasync {@code fdatasync(2)} calls
 * @param fsync     {@code fsync(2)} calls
 * @param fallocate {@code fallocate(2)} calls
 * @param open      {@code open(2)} calls
 * @param close     {@code close(2)} calls
 */
public record CallCounts(long pwrite, long pread, long fdatasync, long fsync, long fallocate, long open, long close)
{
    /**
     * The per-call difference {@code this - earlier}, handy in tests that count the calls one operation made.
     *
     * @param earlier an earlier snapshot.
     * @return the counts made between {@code earlier} and this snapshot.
     */
    public CallCounts minus(final CallCounts earlier)
    {
        return new CallCounts(
            pwrite - earlier.pwrite,
            pread - earlier.pread,
            fdatasync - earlier.fdatasync,
            fsync - earlier.fsync,
            fallocate - earlier.fallocate,
            open - earlier.open,
            close - earlier.close);
    }
}
