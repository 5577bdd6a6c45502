package io.directlog.storage.log;

import io.directlog.storage.spi.BlockIo;

/**
 * The direct-I/O block one log writes and reads in: 4096 bytes, or the device's larger logical block. Flushes
 * start and end on it, reads of disk align to it, and no written block is ever written again.
 */
final class IoBlock
{
    /** The smallest block the engine uses, whatever a device reports: the page size of the hosts it runs on. */
    static final int MIN_BLOCK_LENGTH = 4096;

    private final int length;

    private IoBlock(final int length)
    {
        this.length = length;
    }

    /** @return the block for {@code io}: {@link #MIN_BLOCK_LENGTH} or its larger alignment. */
    static IoBlock of(final BlockIo io)
    {
        return new IoBlock(Math.max(MIN_BLOCK_LENGTH, io.alignment()));
    }

    /** @return the block length in bytes. */
    int length()
    {
        return length;
    }

    /** @return the start of the block holding {@code position}. */
    int down(final int position)
    {
        return position / length * length;
    }

    /** @return {@code position} rounded up to a block boundary. */
    int up(final int position)
    {
        return (position + length - 1) / length * length;
    }
}
