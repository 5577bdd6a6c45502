package io.directlog.storage.spi;

/** How a {@link BlockFile}'s writes reach the device. */
public enum FileMode
{
    /** Reads only, O_DIRECT where the BlockIo is direct. */
    READ,
    /** O_DIRECT: a completed write is on the device (in its volatile cache, if it has one). */
    DIRECT,
    /** O_DIRECT|O_DSYNC: a completed write is durable (FUA, or write plus flush). */
    DIRECT_DSYNC
}
