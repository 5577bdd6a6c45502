package io.directlog.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileStore;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Where benchmark data lives, and the smoke switch.
 * <p>
 * The base directory is {@value #DIR_PROP_NAME}, else the environment variable {@code DIRECTLOG_BENCH_DIR}, else
 * {@value #DIR_DEFAULT}. It must be on the filesystem being measured: a tmpfs base would measure memory, so
 * {@link #create(String)} warns when it finds one. Each trial makes its own directory below the base and deletes
 * it in its tear-down.
 * <p>
 * Thread-safe (stateless).
 */
public final class BenchDirs
{
    /** System property naming the base directory. */
    public static final String DIR_PROP_NAME = "directlog.bench.dir";
    /** The default base, relative to the working directory. */
    public static final String DIR_DEFAULT = "./target/bench-data";
    /** System property that turns smoke mode on: small data sets, so each benchmark runs in about a second. */
    public static final String SMOKE_PROP_NAME = "directlog.bench.smoke";

    private BenchDirs()
    {
    }

    /** @return the base directory for benchmark data. */
    public static Path base()
    {
        String dir = System.getProperty(DIR_PROP_NAME);
        if (dir == null || dir.isEmpty())
        {
            dir = System.getenv("DIRECTLOG_BENCH_DIR");
        }
        return Paths.get(dir == null || dir.isEmpty() ? DIR_DEFAULT : dir).toAbsolutePath().normalize();
    }

    /** @return true when {@value #SMOKE_PROP_NAME} is set: data sets shrink to a few MiB. */
    public static boolean smoke()
    {
        return Boolean.getBoolean(SMOKE_PROP_NAME);
    }

    /**
     * Picks the full or the smoke size.
     *
     * @param full  the size of a real run.
     * @param smoke the size in smoke mode.
     * @return one of them.
     */
    public static long choose(final long full, final long smoke)
    {
        return smoke() ? smoke : full;
    }

    /**
     * Creates a fresh directory for one trial.
     *
     * @param prefix names the suite.
     * @return the new, empty directory.
     */
    public static Path create(final String prefix)
    {
        try
        {
            final Path base = Files.createDirectories(base());
            final Path dir = Files.createTempDirectory(base, prefix + "-");
            final FileStore store = Files.getFileStore(dir);
            if ("tmpfs".equals(store.type()) || "ramfs".equals(store.type()))
            {
                System.err.println("WARNING: benchmark data in " + dir + " is on " + store.type() +
                    ": durable writes measure memory, not a device. Set -D" + DIR_PROP_NAME + "=<dir on disk>.");
            }
            return dir;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create a benchmark directory under " + base(), ex);
        }
    }

    /**
     * Deletes a directory tree; quiet when it is already gone.
     *
     * @param dir the tree's root, or null.
     */
    public static void delete(final Path dir)
    {
        if (dir == null || !Files.exists(dir))
        {
            return;
        }
        try
        {
            Files.walkFileTree(dir, new SimpleFileVisitor<>()
            {
                @Override
                public FileVisitResult visitFile(final Path file, final BasicFileAttributes attrs) throws IOException
                {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(final Path d, final IOException ex) throws IOException
                {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot delete benchmark data in " + dir, ex);
        }
    }
}
