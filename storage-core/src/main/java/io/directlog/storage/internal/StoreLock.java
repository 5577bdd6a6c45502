package io.directlog.storage.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.directlog.storage.StorageException;
import io.directlog.storage.StoreLockedException;
import org.agrona.CloseHelper;

/**
 * A store directory held by one open store: no other store of this JVM (a set of held paths, checked before any
 * file is touched) and no other process (an OS lock on {@value #LOCK_FILE}) opens it until {@link #release}.
 * <p>
 * Thread-safe: acquired by the opening thread; released once, by the store's close or by a failed open, whichever
 * comes first (a second release does nothing).
 */
final class StoreLock
{
    private static final System.Logger LOG = System.getLogger(StoreLock.class.getName());
    private static final Set<Path> LOCKED_IN_THIS_JVM = ConcurrentHashMap.newKeySet();
    static final String LOCK_FILE = "store.lock";

    private final Path directory;
    private final FileChannel channel;
    private final FileLock lock;
    private boolean released;

    private StoreLock(final Path directory, final FileChannel channel, final FileLock lock)
    {
        this.directory = directory;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Creates the directory when missing and locks it.
     *
     * @param directory the store's directory, absolute and normalised.
     * @return the held lock.
     * @throws StoreLockedException when this process or another holds it.
     * @throws StorageException     when the directory cannot be created or locked, naming why.
     */
    static StoreLock acquire(final Path directory)
    {
        if (!LOCKED_IN_THIS_JVM.add(directory))
        {
            throw new StoreLockedException("store directory " + directory + " is already open in this process");
        }
        FileChannel channel = null;
        try
        {
            checkDirectoryUsable(directory);
            Files.createDirectories(directory);
            channel = FileChannel.open(directory.resolve(LOCK_FILE), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
            final FileLock lock;
            try
            {
                lock = channel.tryLock();
            }
            catch (final OverlappingFileLockException e)
            {
                throw new StoreLockedException("store directory " + directory + " is locked in this process");
            }
            if (lock == null)
            {
                throw new StoreLockedException("store directory " + directory + " is locked by another process");
            }
            return new StoreLock(directory, channel, lock);
        }
        catch (final IOException | RuntimeException e)
        {
            LOCKED_IN_THIS_JVM.remove(directory);
            CloseHelper.quietClose(channel); // already failing
            if (e instanceof RuntimeException)
            {
                throw (RuntimeException)e;
            }
            throw new StorageException("cannot open store " + directory + ": " + IoErrorText.describe((IOException)e),
                e);
        }
    }

    /** A path that cannot hold a store fails with what is wrong with it, not with the JDK's bare file name. */
    private static void checkDirectoryUsable(final Path directory)
    {
        for (Path p = directory; p != null; p = p.getParent())
        {
            if (Files.exists(p))
            {
                if (!Files.isDirectory(p))
                {
                    throw new StorageException("cannot open store " + directory + ": " +
                        (p.equals(directory) ? "it is" : p + " is") + " a regular file, not a directory");
                }
                return;
            }
        }
    }

    /** Releases the OS lock (a failure is logged: closing the channel drops it anyway) and the path in this JVM. */
    void release()
    {
        synchronized (this)
        {
            if (released)
            {
                return;
            }
            released = true;
        }
        try
        {
            lock.release();
            channel.close();
        }
        catch (final IOException e)
        {
            LOG.log(System.Logger.Level.WARNING, "cannot release lock of " + directory, e);
        }
        finally
        {
            LOCKED_IN_THIS_JVM.remove(directory);
        }
    }

    /** A failed open gives the directory up without a word: the open's own exception says what went wrong. */
    void abandon()
    {
        synchronized (this)
        {
            if (released)
            {
                return;
            }
            released = true;
        }
        LOCKED_IN_THIS_JVM.remove(directory);
        CloseHelper.quietClose(channel); // already failing
    }
}
