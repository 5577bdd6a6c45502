package io.directlog.nativeio;

/**
 * {@code fallocate(2)} modes (same values on every Linux architecture).
 *
 * <p>On ext4 and XFS both {@link #DEFAULT} and {@link #ZERO_RANGE} leave the range as <em>unwritten</em> extents:
 * reads return zeros, but an O_DIRECT write into them needs a journaled extent conversion before it survives a
 * crash. Only physically written zeros (followed by fdatasync) give extents that need no metadata to be read back;
 * {@link NativeFile#extents(long, long)} shows the difference.
 *
 * <p>Constants only; thread-safe.
 */
public final class FallocateMode
{
    /** Allocate blocks and extend the file size if the range ends past it. */
    public static final int DEFAULT = 0;
    /** FALLOC_FL_KEEP_SIZE: allocate but leave the file size unchanged. */
    public static final int KEEP_SIZE = 0x01;
    /** FALLOC_FL_PUNCH_HOLE: deallocate the range; must be combined with {@link #KEEP_SIZE}. */
    public static final int PUNCH_HOLE = 0x02;
    /** FALLOC_FL_ZERO_RANGE: make the range read as zeros (on ext4 by converting it to unwritten extents). */
    public static final int ZERO_RANGE = 0x10;

    private FallocateMode()
    {
    }
}
