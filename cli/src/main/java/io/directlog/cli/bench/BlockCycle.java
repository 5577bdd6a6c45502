package io.directlog.cli.bench;

/**
 * Positions of fixed-size blocks going round a region: 0, block, 2 * block, ... then 0 again.
 * <p>
 * Not thread-safe; one per measuring thread.
 */
final class BlockCycle
{
    private final long regionBytes;
    private final long blockBytes;
    private long next;

    /**
     * @param regionBytes the region's size; a multiple of blockBytes.
     * @param blockBytes  the size of each block.
     */
    BlockCycle(final long regionBytes, final long blockBytes)
    {
        if (blockBytes <= 0 || regionBytes < blockBytes || regionBytes % blockBytes != 0)
        {
            throw new IllegalArgumentException("region " + regionBytes + " must be a positive multiple of block " +
                blockBytes);
        }
        this.regionBytes = regionBytes;
        this.blockBytes = blockBytes;
    }

    /** @return the next block's position. */
    long nextPosition()
    {
        final long position = next;
        next = position + blockBytes == regionBytes ? 0 : position + blockBytes;
        return position;
    }
}
