package io.directlog.storage.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import io.directlog.storage.TestDirs;

/** Test directories of the fault suite, on the build's real filesystem (never tmpfs: O_DIRECT must be real). */
final class Dirs
{
    private Dirs()
    {
    }

    static Path create(final String name) throws IOException
    {
        return TestDirs.create(name);
    }

    static void delete(final Path path)
    {
        if (!Files.exists(path))
        {
            return;
        }
        try (Stream<Path> all = Files.walk(path))
        {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }
}
