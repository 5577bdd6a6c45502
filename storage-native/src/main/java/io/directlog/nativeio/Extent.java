package io.directlog.nativeio;

/**
 * One extent of a file as {@code ioctl(FS_IOC_FIEMAP)} reports it.
 *
 * <p>The flag that matters for this project is {@link #FLAG_UNWRITTEN}: such an extent is allocated but reads as
 * zeros, and an O_DIRECT write into it becomes readable after a crash only once the journaled "unwritten to
 * written" conversion is committed (by fdatasync or the periodic journal commit).
 *
 * <p>Immutable; thread-safe.
 *
 * @param logical  byte offset in the file.
 * @param physical byte offset on the device (0 when {@link #FLAG_UNKNOWN}).
 * @param length   length in bytes.
 * @param flags    FIEMAP_EXTENT_* flags.
 */
public record Extent(long logical, long physical, long length, int flags)
{
    /** FIEMAP_EXTENT_LAST: the last extent of the file. */
    public static final int FLAG_LAST = 0x1;
    /** FIEMAP_EXTENT_UNKNOWN: the location is not known yet. */
    public static final int FLAG_UNKNOWN = 0x2;
    /** FIEMAP_EXTENT_DELALLOC: delayed allocation, not yet on disk (also sets UNKNOWN). */
    public static final int FLAG_DELALLOC = 0x4;
    /** FIEMAP_EXTENT_ENCODED: data is compressed or otherwise encoded. */
    public static final int FLAG_ENCODED = 0x8;
    /** FIEMAP_EXTENT_UNWRITTEN: allocated but not written (preallocated); reads as zeros. */
    public static final int FLAG_UNWRITTEN = 0x800;
    /** FIEMAP_EXTENT_MERGED: the filesystem merged block-sized pieces into this extent. */
    public static final int FLAG_MERGED = 0x1000;
    /** FIEMAP_EXTENT_SHARED: the space is shared with another file (reflink or snapshot). */
    public static final int FLAG_SHARED = 0x2000;

    /**
     * @return whether {@link #FLAG_UNWRITTEN} is set.
     */
    public boolean unwritten()
    {
        return (flags & FLAG_UNWRITTEN) != 0;
    }

    /**
     * @return whether {@link #FLAG_LAST} is set.
     */
    public boolean last()
    {
        return (flags & FLAG_LAST) != 0;
    }

    /**
     * @return whether {@link #FLAG_SHARED} is set.
     */
    public boolean shared()
    {
        return (flags & FLAG_SHARED) != 0;
    }

    /**
     * @return the byte offset just past this extent in the file.
     */
    public long logicalEnd()
    {
        return logical + length;
    }
}
