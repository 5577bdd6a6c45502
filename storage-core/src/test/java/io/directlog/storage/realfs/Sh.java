package io.directlog.storage.realfs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a system command with a deadline and captures its output; the real-filesystem tests' only shell. */
final class Sh
{
    private static final long TIMEOUT_SECONDS = 60;

    private Sh()
    {
    }

    /** The outcome of one command. */
    record Result(int exitCode, String output)
    {
        Result orThrow(final List<String> command)
        {
            if (exitCode != 0)
            {
                throw new IllegalStateException(String.join(" ", command) + " exited " + exitCode + ": " + output);
            }
            return this;
        }
    }

    /** Runs a command; throws when it exits non-zero. */
    static String run(final String... command)
    {
        return exec(command).orThrow(List.of(command)).output().trim();
    }

    /** Runs a command and returns its exit code and output, whatever the code. */
    static Result exec(final String... command)
    {
        try
        {
            final Path out = Files.createTempFile("sh", ".out");
            try
            {
                final Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(out.toFile()).start();
                if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS))
                {
                    p.destroyForcibly();
                    throw new IllegalStateException(String.join(" ", command) + " timed out");
                }
                return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
            }
            finally
            {
                Files.deleteIfExists(out);
            }
        }
        catch (final IOException e)
        {
            throw new IllegalStateException(String.join(" ", command) + ": " + e, e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + String.join(" ", command), e);
        }
    }

    /** @return true when the tool is on the PATH. */
    static boolean has(final String tool)
    {
        for (final String dir : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":"))
        {
            if (Files.isExecutable(Path.of(dir, tool)))
            {
                return true;
            }
        }
        return Files.isExecutable(Path.of("/usr/sbin", tool)) || Files.isExecutable(Path.of("/sbin", tool));
    }
}
