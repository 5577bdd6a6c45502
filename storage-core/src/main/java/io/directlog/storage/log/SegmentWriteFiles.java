package io.directlog.storage.log;

import java.io.IOException;

import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;

/**
 * Opens a segment's write descriptors where the writer needs them (issue 18: descriptors follow activity): when a
 * prepared file becomes the active segment (a prepared file waits without one), at the first append after a clean
 * open or after an idle close ({@link Segment#closeWriteFilesIfSynced}), and when truncation writes into a segment.
 * One descriptor: the O_DSYNC handle shares the O_DIRECT one where the I/O layer can ({@link BlockIo#openDsync}).
 * <p>
 * Stateless; called by the segment's writer (or the opening thread before the writer knows the log).
 */
final class SegmentWriteFiles
{
    private SegmentWriteFiles()
    {
    }

    /**
     * Opens the segment's write descriptors unless they are open.
     *
     * @param io      the log's I/O layer.
     * @param segment the segment.
     * @throws IOException when the file cannot be opened (nothing was written: the caller's append fails, the log
     *                     goes on).
     */
    static void open(final BlockIo io, final Segment segment) throws IOException
    {
        if (segment.directFile() != null)
        {
            return;
        }
        final BlockFile direct = io.open(segment.path(), FileMode.DIRECT, false);
        final BlockFile dsync;
        try
        {
            dsync = io.openDsync(direct);
        }
        catch (final IOException | RuntimeException e)
        {
            RecoveryScope.closeQuietly(direct);
            throw e;
        }
        segment.writeFiles(direct, dsync);
    }
}
