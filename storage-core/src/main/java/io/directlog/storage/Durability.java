package io.directlog.storage;

/**
 * When an append is acknowledged, and what survives what.
 * <p>
 * Every mode writes into segments that were pre-allocated, filled with zeros by real writes and
 * fdatasync'ed before the writer got them, so an O_DIRECT write into them changes no filesystem metadata.
 * <ul>
 *   <li>{@link #MEMORY}: acknowledged once copied into the segment's cache page. Written in the background
 *   after {@code flushBytes} or {@code flushInterval}. Survives nothing until then: a process crash loses at
 *   most what the flush settings let accumulate.</li>
 *   <li>{@link #DIRECT}: acknowledged once the O_DIRECT pwrite covering the record has returned. The bytes
 *   are on the device: survives a process crash and an OS crash; survives power loss only on a device without
 *   a volatile write cache (or with power-loss protection).</li>
 *   <li>{@link #DSYNC}: the same write through an O_DIRECT|O_DSYNC descriptor: one FUA write, or write plus
 *   cache flush. Survives power loss on any honest device. The default.</li>
 * </ul>
 * See {@code docs/durability.md} for the exact promises and their assumptions.
 */
public enum Durability
{
    /** Acknowledged from the cache page; flushed in the background. */
    MEMORY,
    /** Acknowledged when the O_DIRECT write has returned. */
    DIRECT,
    /** Acknowledged when the O_DIRECT|O_DSYNC write has returned. */
    DSYNC;

    /**
     * Whether this mode asks for at least as much as {@code other}.
     *
     * @param other the mode to compare with.
     * @return true when this mode's promise includes the other's.
     */
    public boolean atLeast(final Durability other)
    {
        return ordinal() >= other.ordinal();
    }
}
