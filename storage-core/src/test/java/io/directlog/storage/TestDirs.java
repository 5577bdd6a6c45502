package io.directlog.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Test directories on the build's real filesystem (never tmpfs: O_DIRECT alignment must be real). */
final class TestDirs
{
    private TestDirs()
    {
    }

    static Path create(final String name) throws IOException
    {
        final Path base = Path.of(System.getProperty("directlog.test.dir", "target/test-data"));
        Files.createDirectories(base);
        return Files.createTempDirectory(base, name);
    }
}
