package io.directlog.storage.log;

import java.nio.file.Path;

import io.directlog.storage.io.BlockFile;

/**
 * A segment file the preparer made ready: allocated, filled with zeros by real writes, fdatasync'ed, renamed
 * to its final name, its directory fsync'ed, and opened. Taking it changes no filesystem metadata.
 *
 * @param sequence the file's sequence number.
 * @param path     the file.
 * @param direct   its O_DIRECT descriptor.
 * @param dsync    its O_DIRECT|O_DSYNC descriptor.
 */
public record PreparedSegment(long sequence, Path path, BlockFile direct, BlockFile dsync)
{
}
