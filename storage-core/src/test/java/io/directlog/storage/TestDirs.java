package io.directlog.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Test directories on the build's real filesystem (never tmpfs: O_DIRECT alignment must be real). */
public final class TestDirs
{
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
        return Files.createTempDirectory(base, name);
    }
}
