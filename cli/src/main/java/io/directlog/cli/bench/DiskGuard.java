package io.directlog.cli.bench;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Stops a many-logs scenario before it fills the disk. An engine that prepares segment files ahead of every log
 * (today: two of 64 MiB each, written through with zeros) needs 193 MB a log, so 1,000 logs would ask for 193 GB;
 * the scenario must fail with a clear reason rather than take the machine's free space from everyone else.
 * <p>
 * The guard reads the filesystem's free space (one statfs, cheap enough to call between logs) and trips when the
 * scenario's filesystem lost more than a cap since the guard was made: a quarter of the free space then, at most
 * {@link #MAX_CAP_BYTES}. Writes by other processes count against the cap too, which errs on the safe side.
 * <p>
 * Thread-safe (immutable).
 */
final class DiskGuard
{
    /** The most a scenario may take from the filesystem: 16 GiB. */
    static final long MAX_CAP_BYTES = 16L << 30;

    private final FileStore store;
    private final long usableAtStart;
    private final long capBytes;

    private DiskGuard(final FileStore store, final long usableAtStart, final long capBytes)
    {
        this.store = store;
        this.usableAtStart = usableAtStart;
        this.capBytes = capBytes;
    }

    /**
     * @param directory where the scenario writes.
     * @return a guard whose cap is a quarter of the free space now, at most {@link #MAX_CAP_BYTES}.
     * @throws IOException when the filesystem cannot be asked.
     */
    static DiskGuard forDirectory(final Path directory) throws IOException
    {
        final FileStore store = Files.getFileStore(directory);
        final long usable = store.getUsableSpace();
        return new DiskGuard(store, usable, Math.min(MAX_CAP_BYTES, usable / 4));
    }

    /** @return the bytes the scenario may take from the filesystem. */
    long capBytes()
    {
        return capBytes;
    }

    /**
     * @param doing what the scenario is doing, for the message: "opening log 17 of 1000".
     * @throws DiskCapExceededException when the filesystem lost more than the cap since the guard was made.
     * @throws IOException              when the filesystem cannot be asked.
     */
    void check(final String doing) throws IOException
    {
        final long taken = usableAtStart - store.getUsableSpace();
        if (taken > capBytes)
        {
            throw new DiskCapExceededException(String.format(Locale.ROOT,
                "stopped while %s: the filesystem lost %.1f GB since the scenario started, more than its cap of " +
                    "%.1f GB (a quarter of the free space, at most 16 GiB)", doing, taken / 1e9, capBytes / 1e9));
        }
    }

    /** The guard tripped. */
    static final class DiskCapExceededException extends IOException
    {
        private static final long serialVersionUID = 1L;

        DiskCapExceededException(final String message)
        {
            super(message);
        }
    }
}
