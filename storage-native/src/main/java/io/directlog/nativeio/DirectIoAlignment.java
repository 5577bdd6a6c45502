package io.directlog.nativeio;

/**
 * The alignment O_DIRECT needs for one file.
 *
 * <p>Immutable; thread-safe.
 *
 * @param memoryAlignment required alignment of the buffer address, in bytes.
 * @param offsetAlignment required alignment of file offsets and lengths, in bytes.
 * @param source          where the figures come from: {@code "statx"} (STATX_DIOALIGN, Linux 6.1+, exact for this
 *                        file), {@code "logical-block-size"} (the device's sysfs value, the historical rule) or
 *                        {@code "default"} (4096, when nothing else was known).
 */
public record DirectIoAlignment(int memoryAlignment, int offsetAlignment, String source)
{
    /** {@link #source()} when the kernel reported STATX_DIOALIGN. */
    public static final String SOURCE_STATX = "statx";
    /** {@link #source()} when the device's logical block size was used. */
    public static final String SOURCE_LOGICAL_BLOCK_SIZE = "logical-block-size";
    /** {@link #source()} when nothing was known. */
    public static final String SOURCE_DEFAULT = "default";

    /**
     * @return the larger of the two alignments: a block of this size at this alignment satisfies both.
     */
    public int maxAlignment()
    {
        return Math.max(memoryAlignment, offsetAlignment);
    }
}
