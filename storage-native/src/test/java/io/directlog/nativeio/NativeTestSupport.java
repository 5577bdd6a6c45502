package io.directlog.nativeio;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Shared helpers: a fresh directory per test under {@code directlog.test.dir} (a real disk filesystem, never
 * tmpfs, because tmpfs accepts any O_DIRECT alignment and has no FIEMAP), and skips with a reason.
 */
final class NativeTestSupport
{
    private NativeTestSupport()
    {
    }

    static void assumeNative()
    {
        assumeTrue(NativeIo.isAvailable(), () -> "native I/O unavailable: " + NativeIo.unavailabilityCause());
    }

    static Path testRoot()
    {
        final String dir = System.getProperty("directlog.test.dir");
        final Path root = dir != null ? Paths.get(dir) : Paths.get("target", "test-data");
        try
        {
            return Files.createDirectories(root).toAbsolutePath();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    static Path newDir(final String name)
    {
        final Path dir = testRoot().resolve(name + "-" + System.nanoTime());
        try
        {
            return Files.createDirectories(dir);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    static void deleteTree(final Path dir)
    {
        if (dir == null || !Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(p ->
            {
                try
                {
                    Files.deleteIfExists(p);
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
            });
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** Skips unless O_DIRECT works in {@code dir} (some filesystems answer EINVAL). */
    static DirectIoProbe.Result assumeDirectIo(final Path dir)
    {
        assumeNative();
        final DirectIoProbe.Result result = DirectIoProbe.probe(dir);
        assumeTrue(result.supported(), () -> "O_DIRECT unsupported in " + dir + ": " + result);
        return result;
    }

    static void fill(final AlignedMemory memory, final long seed)
    {
        for (int i = 0; i < memory.size(); i++)
        {
            memory.buffer().putByte(i, (byte)((seed + i) * 0x9E3779B1L >>> 24));
        }
    }
}
