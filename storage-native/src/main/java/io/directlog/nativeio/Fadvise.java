package io.directlog.nativeio;

/**
 * {@code posix_fadvise(2)} advice values (x86-64 and aarch64; only s390 differs, and it is not supported here).
 * Advice only affects the page cache, so it has no effect on descriptors opened with {@link OpenFlags#DIRECT}.
 *
 * <p>Constants only; thread-safe.
 */
public final class Fadvise
{
    /** POSIX_FADV_NORMAL. */
    public static final int NORMAL = 0;
    /** POSIX_FADV_RANDOM: disable read-ahead. */
    public static final int RANDOM = 1;
    /** POSIX_FADV_SEQUENTIAL: double the read-ahead window. */
    public static final int SEQUENTIAL = 2;
    /** POSIX_FADV_WILLNEED: start read-ahead of the range now. */
    public static final int WILLNEED = 3;
    /** POSIX_FADV_DONTNEED: drop clean cached pages of the range (dirty pages are written back first, not waited for). */
    public static final int DONTNEED = 4;
    /** POSIX_FADV_NOREUSE: accepted by Linux; since 6.3 it lowers the pages' LRU priority. */
    public static final int NOREUSE = 5;

    private Fadvise()
    {
    }
}
