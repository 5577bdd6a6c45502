package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

import io.directlog.storage.LogConfig;
import io.directlog.storage.spi.BlockIo;

/**
 * The files a new log starts with, written ahead of its first open for a batch of new logs
 * ({@link io.directlog.storage.LogStore#logs}): {@code log.config}, {@code log.meta} and an empty checkpoint (no
 * valid slot), each written and fdatasync'ed as a temp file and renamed into place, as the log's first open writes
 * them, but without the directory fsync after each rename: the caller fsyncs the log's directory once for the
 * three (and the store's directory once for all the new log directories). The log's open then finds them and
 * writes nothing but its checkpoint's first slot.
 * <p>
 * A crash part-way leaves a log directory holding some of the three files (and perhaps a {@code .tmp}), which an
 * open completes as it completes a log created one at a time: a missing file is written, a {@code .tmp} deleted.
 * <p>
 * Thread-safe (no state): the logs of a batch are written from several threads, one log per thread at a time.
 */
public final class NewLogFiles
{
    private NewLogFiles()
    {
    }

    /**
     * Writes a new log's files into its (existing, empty) directory; durable once the caller fsynced the directory.
     *
     * @param io     the I/O layer.
     * @param dir    the log's directory.
     * @param config the log's settings (its segment size becomes the log's).
     * @throws IOException when a file cannot be written.
     */
    public static void write(final BlockIo io, final Path dir, final LogConfig config) throws IOException
    {
        LogConfigFile.writeFile(io, dir, config);
        // the same identity LogLoader gives a log created by its first open
        new LogMeta(ThreadLocalRandom.current().nextLong() | 1, config.segmentSize(), System.currentTimeMillis())
            .writeFile(io, dir);
        Checkpoint.createFile(io, dir);
    }
}
