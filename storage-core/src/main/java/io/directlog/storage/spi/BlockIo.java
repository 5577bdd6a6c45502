package io.directlog.storage.spi;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The block-I/O interface the engine writes through: files opened for direct I/O, positional writes and reads
 * from native memory, and the directory operations whose durability matters (create, rename, delete, fsync of
 * the directory).
 * <p>
 * The engine's own implementations are internal: O_DIRECT through storage-native, and the fallback where
 * O_DIRECT is unavailable (buffered writes, every DIRECT or DSYNC flush followed by fdatasync); its tests add a
 * simulated device for crash and fault injection. All engine I/O goes through here, so nothing the engine does
 * bypasses a fault model. An application sets its own with {@code StoreConfig.Builder.blockIo}, typically a
 * wrapper that injects faults or counts calls; it must keep the contract of every method, or acknowledged records
 * can be lost.
 * <p>
 * Thread-safe.
 */
public interface BlockIo
{
    /**
     * Opens a file.
     *
     * @param path   the file.
     * @param mode   how writes reach the device.
     * @param create create the file if it does not exist.
     * @return the open file.
     * @throws IOException when the file cannot be opened.
     */
    BlockFile open(Path path, FileMode mode, boolean create) throws IOException;

    /**
     * Opens a file already open as {@link FileMode#DIRECT} for writes durable at completion, as
     * {@link FileMode#DIRECT_DSYNC} does. An implementation may share {@code direct}'s descriptor (Linux
     * {@code pwritev2(RWF_DSYNC)}), so a file written both ways costs one descriptor; closing one handle leaves
     * the other usable.
     *
     * @param direct the file open as DIRECT.
     * @return a handle whose writes are durable at completion.
     * @throws IOException when it cannot be opened.
     */
    default BlockFile openDsync(final BlockFile direct) throws IOException
    {
        return open(direct.path(), FileMode.DIRECT_DSYNC, false);
    }

    /**
     * Renames a file; durable only after {@link #syncDirectory(Path)}.
     *
     * @param from the existing file.
     * @param to   its new name.
     * @throws IOException when the rename fails.
     */
    void rename(Path from, Path to) throws IOException;

    /**
     * Deletes a file if it exists; durable only after {@link #syncDirectory(Path)}.
     *
     * @param path the file.
     * @throws IOException when the delete fails.
     */
    void delete(Path path) throws IOException;

    /**
     * Lists a directory's regular files.
     *
     * @param dir the directory.
     * @return its files, in no order.
     * @throws IOException when the directory cannot be read.
     */
    List<Path> list(Path dir) throws IOException;

    /**
     * Creates a directory and its parents if missing, and makes the new entries durable.
     *
     * @param dir the directory.
     * @throws IOException when it cannot be created.
     */
    void createDirectories(Path dir) throws IOException;

    /**
     * Creates one directory whose parent exists, without making its entry durable: that takes a
     * {@link #syncDirectory} of the parent, which a caller creating many directories there does once for all.
     * The default creates it durably at once.
     *
     * @param dir the directory.
     * @throws IOException when it cannot be created (also when it exists).
     */
    default void createDirectoryUnsynced(final Path dir) throws IOException
    {
        createDirectories(dir);
    }

    /**
     * fsyncs a directory, making creates, renames and deletes in it durable.
     *
     * @param dir the directory.
     * @throws IOException when the sync fails.
     */
    void syncDirectory(Path dir) throws IOException;

    /** @return the alignment of positions, lengths and memory addresses for direct I/O, in bytes. */
    int alignment();

    /**
     * The smallest block the engine aligns files, writes and memory to, whatever the device reports: the memory
     * page size, so that pages from the pool are page-aligned and a 512-byte-sector device still gets 4 KiB writes.
     */
    int MIN_BLOCK_ALIGNMENT = 4096;

    /** @return the alignment the engine uses with this I/O layer: {@link #alignment()}, at least 4 KiB. */
    default int blockAlignment()
    {
        return Math.max(MIN_BLOCK_ALIGNMENT, alignment());
    }

    /** @return true when writes bypass the page cache (O_DIRECT). */
    boolean isDirect();

    /**
     * Which files one {@link BlockFile#datasync()} makes durable together: the writer thread of several logs
     * writes each log's blocks through its plain {@link FileMode#DIRECT} file, then calls {@code datasync()} on one
     * of those files only, and acknowledges every log's DSYNC appends after it. Return a key only when that holds:
     * for two files whose directories have equal keys, a datasync of either must make durable every write to the
     * other that completed before it, when that write went into already written space inside the file's size (an
     * overwrite that needs no metadata). On Linux, ext4 and XFS do: their fdatasync ends in a cache flush of the
     * whole block device even when the file has nothing to commit, the same flush an O_DSYNC write ends in on a
     * device without FUA. Keys are compared with {@code equals}.
     * <p>
     * The default, null, makes every DSYNC flush its own O_DSYNC write: always correct, one device flush per log.
     *
     * @param dir a log's directory.
     * @return a key naming what one datasync flushes (the block device), or null when this I/O layer cannot promise
     * it for files in {@code dir}.
     * @throws IOException when the directory cannot be examined (the caller treats it as null).
     */
    default Object flushDomain(final Path dir) throws IOException
    {
        return null;
    }

    /**
     * A batch for the writes one writer thread issues together before one {@link BlockFile#datasync()} covers them
     * (see {@link #flushDomain}): the writer takes one when it first needs it, keeps it, and closes it when it stops.
     * The default, a {@link SequentialWriteBatch}, writes through each file's {@link BlockFile#write} in turn; an
     * implementation that can keep several writes in flight at once may return its own.
     *
     * @return a new batch, owned by the calling thread.
     */
    default BlockWriteBatch newWriteBatch()
    {
        return new SequentialWriteBatch();
    }

    /** @return a short description for logs and {@code deviceInfo()}. */
    String describe();

    /**
     * Whether a regular file exists. The engine asks through here, never the filesystem directly, so a simulated
     * or fault-injecting device sees every file operation.
     *
     * @param path a file.
     * @return true when it exists.
     * @throws IOException when it cannot be checked.
     */
    default boolean exists(final Path path) throws IOException
    {
        try
        {
            return list(path.getParent()).contains(path);
        }
        catch (final java.nio.file.NoSuchFileException e)
        {
            return false;
        }
    }

    /**
     * @param dir a directory.
     * @return its subdirectories (an empty list when it does not exist).
     * @throws IOException when it cannot be listed.
     */
    default List<Path> listDirectories(final Path dir) throws IOException
    {
        final List<Path> out = new java.util.ArrayList<>();
        if (!java.nio.file.Files.isDirectory(dir))
        {
            return out;
        }
        try (java.util.stream.Stream<Path> stream = java.nio.file.Files.list(dir))
        {
            stream.filter(java.nio.file.Files::isDirectory).forEach(out::add);
        }
        return out;
    }
}
