package io.directlog.storage.log;

import java.nio.file.Path;

/**
 * A segment file the preparer made ready: allocated and written through (filled with zeros by real writes, or a
 * file retention gave back, written before), fdatasync'ed, renamed to its final name, its directory fsync'ed.
 * Taking it changes no filesystem metadata. It holds no descriptor while it waits (issue 18: a store of many logs
 * would hold one per spare): the roll opens it ({@link SegmentWriteFiles}).
 *
 * @param sequence the file's sequence number.
 * @param path     the file.
 * @param size     its length: the capacity of the segment made from it (a rung of the log's SegmentLadder).
 * @param recycled true when only its first block was zeroed: the rest may hold stale records of this log, all
 *                 below any offset it will be given (see SegmentHeaderDescriptor#FLAG_RECYCLED).
 */
public record PreparedSegment(long sequence, Path path, int size, boolean recycled)
{
}
