package io.directlog.nativeio;

/**
 * {@code sync_file_range(2)} flags. The call starts or waits for write-back of dirty pages; it writes no metadata
 * and sends no device cache flush, so it is never a durability guarantee, only a way to smooth write-back.
 *
 * <p>Constants only; thread-safe.
 */
public final class SyncFileRange
{
    /** SYNC_FILE_RANGE_WAIT_BEFORE: wait for write-back already in flight on the range. */
    public static final int WAIT_BEFORE = 1;
    /** SYNC_FILE_RANGE_WRITE: start write-back of dirty pages in the range. */
    public static final int WRITE = 2;
    /** SYNC_FILE_RANGE_WAIT_AFTER: wait for the write-back started by this call. */
    public static final int WAIT_AFTER = 4;

    private SyncFileRange()
    {
    }
}
