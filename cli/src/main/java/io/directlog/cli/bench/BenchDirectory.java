package io.directlog.cli.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The run's own directory, {@code directlog-bench-XXXX} under --dir or the current directory, and its removal.
 * <p>
 * Everything the bench writes goes in here, so removing it can never touch the user's files. A shutdown hook
 * removes it on Ctrl-C too; that races with scenario threads still writing, so removal is best effort and keeps
 * going past files it cannot delete.
 * <p>
 * Thread-safe: {@link #close()} and the hook may run concurrently; removal is idempotent.
 */
final class BenchDirectory implements AutoCloseable
{
    static final String PREFIX = "directlog-bench-";

    private final Path path;
    private final Thread shutdownHook;

    private BenchDirectory(final Path path)
    {
        this.path = path;
        this.shutdownHook = new Thread(() -> delete(path), "directlog-bench-cleanup");
    }

    /**
     * @param parent where to create it; created when missing.
     * @return the new, empty directory, removed at exit whatever happens.
     * @throws IOException when it cannot be created.
     */
    static BenchDirectory create(final Path parent) throws IOException
    {
        Files.createDirectories(parent);
        final BenchDirectory dir = new BenchDirectory(Files.createTempDirectory(parent, PREFIX).toAbsolutePath());
        Runtime.getRuntime().addShutdownHook(dir.shutdownHook);
        return dir;
    }

    Path path()
    {
        return path;
    }

    /** Removes the directory now and forgets the hook. */
    @Override
    public void close()
    {
        try
        {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        }
        catch (final IllegalStateException ex)
        {
            // Already shutting down: the hook is running or has run.
        }
        delete(path);
    }

    /**
     * Deletes a file or a tree, best effort.
     *
     * @param root what to delete; nothing happens when it does not exist.
     */
    static void delete(final Path root)
    {
        if (!Files.exists(root))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(root))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(BenchDirectory::deleteQuietly);
        }
        catch (final IOException | UncheckedIOException ex)
        {
            // A file vanished under the walk or cannot be read: delete what can be deleted.
        }
    }

    private static void deleteQuietly(final Path p)
    {
        try
        {
            Files.deleteIfExists(p);
        }
        catch (final IOException ex)
        {
            // Best effort: a file still open by a stopped scenario; the rest still goes.
        }
    }
}
