package io.directlog.cli.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The pre-zeroed 256 MiB file raw-seq-1m writes and raw-seq-read-1m reads; made by whichever runs first and kept
 * until the run ends, so running both costs one preparation.
 * <p>
 * Stateless; thread-safe.
 */
final class SequentialFile
{
    static final long SIZE_BYTES = 256L << 20;
    static final int BLOCK_BYTES = 1 << 20;

    private SequentialFile()
    {
    }

    /**
     * @param context the run.
     * @return the file, pre-zeroed and synced.
     * @throws IOException when it cannot be made.
     */
    static Path ensure(final BenchContext context) throws IOException
    {
        final Path file = context.sharedDirectory().resolve("sequential-256m.dat");
        if (!Files.exists(file) || Files.size(file) != SIZE_BYTES)
        {
            context.progress("pre-zeroing " + (SIZE_BYTES >> 20) + " MiB");
            PreZeroedFile.create(file, SIZE_BYTES, context.directIo().alignment());
        }
        return file;
    }
}
