package io.directlog.storage.realfs;

import io.directlog.nativeio.Extent;
import io.directlog.nativeio.NativeFile;
import io.directlog.nativeio.OpenFlags;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.io.DelegatingBlockIo;
import io.directlog.storage.spi.FileMode;
import io.directlog.storage.log.SegmentFiles;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A pass-through {@link BlockIo} that checks, with FIEMAP, every segment file at the moment it is opened for
 * writing, which is when the preparer hands it to the writer (or recovery reopens the active one). A segment
 * with an unwritten extent would lose acknowledged DIRECT writes in a crash (they read back as zeros until a
 * journal commit), so any such extent is a violation.
 */
final class FiemapCheckingBlockIo extends DelegatingBlockIo
{
    final AtomicLong segmentsChecked = new AtomicLong();
    final Queue<String> violations = new ConcurrentLinkedQueue<>();

    FiemapCheckingBlockIo(final BlockIo delegate)
    {
        super(delegate);
    }

    @Override
    public BlockFile open(final Path path, final FileMode mode, final boolean create) throws IOException
    {
        if (mode == FileMode.DIRECT && !create && SegmentFiles.sequenceOf(path.getFileName().toString()) >= 0)
        {
            final String unwritten = unwrittenExtents(path);
            segmentsChecked.incrementAndGet();
            if (unwritten != null)
            {
                violations.add(unwritten);
            }
        }
        return delegate().open(path, mode, create);
    }

    /**
     * @param path a file.
     * @return a description of its unwritten extents or holes, or null when every byte is in a written extent.
     */
    static String unwrittenExtents(final Path path) throws IOException
    {
        try (NativeFile f = NativeFile.open(path, OpenFlags.READ_ONLY))
        {
            final long size = f.size();
            final List<Extent> extents = f.extents(0, size, false);
            long covered = 0;
            final StringBuilder bad = new StringBuilder();
            for (final Extent e : extents)
            {
                if (e.logical() != covered)
                {
                    bad.append(" hole@").append(covered);
                }
                if (e.unwritten() || (e.flags() & Extent.FLAG_DELALLOC) != 0)
                {
                    bad.append(" unwritten@").append(e.logical()).append('+').append(e.length());
                }
                covered = e.logicalEnd();
            }
            if (covered < size)
            {
                bad.append(" hole@").append(covered);
            }
            return bad.length() == 0 ? null : path + ":" + bad;
        }
    }

    @Override
    public String describe()
    {
        return delegate().describe() + " (FIEMAP-checked)";
    }
}
