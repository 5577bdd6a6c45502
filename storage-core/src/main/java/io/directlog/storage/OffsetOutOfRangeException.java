package io.directlog.storage;

/**
 * A read asked for an offset the log does not hold; the message and accessors give the valid range.
 */
public class OffsetOutOfRangeException extends StorageException
{
    private static final long serialVersionUID = 1L;

    /** The offset asked for. */
    private final long offset;
    /** The first stored offset when the read was refused. */
    private final long startOffset;
    /** The next offset to be appended when the read was refused. */
    private final long endOffset;

    /**
     * @param log         the log's name.
     * @param offset      the offset asked for.
     * @param startOffset the first stored offset.
     * @param endOffset   the next offset to be appended.
     */
    public OffsetOutOfRangeException(final String log, final long offset, final long startOffset, final long endOffset)
    {
        super("offset " + offset + " is out of range for log '" + log + "': valid offsets are [" + startOffset + ", " +
            endOffset + "]");
        this.offset = offset;
        this.startOffset = startOffset;
        this.endOffset = endOffset;
    }

    /** @return the offset asked for. */
    public long offset()
    {
        return offset;
    }

    /** @return the first stored offset when the read was refused. */
    public long startOffset()
    {
        return startOffset;
    }

    /** @return the end offset when the read was refused. */
    public long endOffset()
    {
        return endOffset;
    }
}
