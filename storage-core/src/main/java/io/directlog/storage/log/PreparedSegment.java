package io.directlog.storage.log;

import java.nio.file.Path;

import io.directlog.storage.spi.BlockFile;

/**
 * A segment file the preparer made ready: allocated and written through (filled with zeros by real writes, or a
 * file retention gave back, written before), fdatasync'ed, renamed to its final name, its directory fsync'ed,
 * and opened. Taking it changes no filesystem metadata.
 *
 * @param sequence the file's sequence number.
 * @param path     the file.
 * @param size     its length: the capacity of the segment made from it (a rung of the log's SegmentLadder).
 * @param direct   its O_DIRECT descriptor.
 * @param dsync    its O_DIRECT|O_DSYNC descriptor.
 * @param recycled true when only its first block was zeroed: the rest may hold stale records of this log, all
 *                 below any offset it will be given (see SegmentHeaderDescriptor#FLAG_RECYCLED).
 */
public record PreparedSegment(long sequence, Path path, int size, BlockFile direct, BlockFile dsync, boolean recycled)
{
}
