package io.directlog.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Test directories on the build's real filesystem (never tmpfs: O_DIRECT alignment must be real). Every directory
 * made here is deleted when its test class ends without a failure ({@link TestDirsCleanup}); a failed class keeps
 * its directories for a look at the files.
 * <p>
 * Thread-safe.
 */
public final class TestDirs
{
    private static final List<Path> CREATED = new ArrayList<>();

    private TestDirs()
    {
    }

    /**
     * @param name prefix of the directory's name.
     * @return a new, empty directory under {@code directlog.test.dir}.
     * @throws IOException when it cannot be created.
     */
    public static Path create(final String name) throws IOException
    {
        final Path base = Path.of(System.getProperty("directlog.test.dir", "target/test-data"));
        Files.createDirectories(base);
        final Path dir = Files.createTempDirectory(base, name);
        synchronized (CREATED)
        {
            CREATED.add(dir);
        }
        return dir;
    }

    /** @return the directories made since the last call, which forgets them. */
    static List<Path> takeCreated()
    {
        synchronized (CREATED)
        {
            final List<Path> all = List.copyOf(CREATED);
            CREATED.clear();
            return all;
        }
    }

    /**
     * Deletes a directory and everything under it, as far as it can: a file a stray engine thread still writes
     * may come back, and that is no reason to fail a test that passed.
     *
     * @param dir the directory.
     */
    static void deleteQuietly(final Path dir)
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> all = Files.walk(dir))
        {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        catch (final IOException | RuntimeException e)
        {
            System.err.println("could not delete test directory " + dir + ": " + e);
        }
    }
}
