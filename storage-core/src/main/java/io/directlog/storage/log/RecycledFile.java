package io.directlog.storage.log;

import java.nio.file.Path;

/**
 * A segment file given back to the preparer, under its {@code recycle-*.tmp} name.
 *
 * @param path        the file.
 * @param reuseAsIs   true when only its header block needs zeroing: every record in it lies below the log's start
 *                    offset (retention dropped it), so no segment made from it can take one of them for its own;
 *                    false when it must be zero-filled like a new file (truncation, recovery, a crash's spare).
 */
record RecycledFile(Path path, boolean reuseAsIs)
{
}
