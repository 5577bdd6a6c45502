package io.directlog.storage.format;

/**
 * Layout of a persisted segment index, {@code <seq>.idx}: a 64-byte header, {@code count} entries of 24 bytes,
 * then a CRC32C of everything before it; zero-padded to a whole number of I/O blocks. The index is derived data:
 * when the file is missing, short, fails its CRC or does not match its segment, the segment is scanned instead.
 * <p>
 * Stateless.
 */
public final class IndexFileDescriptor
{
    /** "DLOGIDX1" in little-endian. */
    public static final long MAGIC = 0x31584449474F4C44L;
    /** The format version. */
    public static final int VERSION = 1;
    /** The header's length. */
    public static final int HEADER_LENGTH = 64;
    /** One entry: offset (8), timestamp (8), position (4), reserved (4). */
    public static final int ENTRY_LENGTH = 24;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    public static final int COUNT_OFFSET = 12;
    public static final int LOG_ID_OFFSET = 16;
    public static final int SEQUENCE_OFFSET = 24;
    public static final int BASE_OFFSET_OFFSET = 32;
    public static final int END_OFFSET_OFFSET = 40;
    public static final int END_POSITION_OFFSET = 48;
    public static final int SEGMENT_SIZE_OFFSET = 52;
    public static final int MAX_TIMESTAMP_OFFSET = 56;

    private IndexFileDescriptor()
    {
    }

    /**
     * @param count entries.
     * @return where the CRC lies.
     */
    public static int crcOffset(final int count)
    {
        return HEADER_LENGTH + count * ENTRY_LENGTH;
    }

    /**
     * @param count entries.
     * @param block the I/O block size.
     * @return the file's length.
     */
    public static int fileLength(final int count, final int block)
    {
        final int used = crcOffset(count) + 4;
        return (used + block - 1) / block * block;
    }
}
