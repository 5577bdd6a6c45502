package io.directlog.cli.store;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Runs {@code dump} and {@code verify} as the command line does, keeping what they print for the test to read.
 * <p>
 * Not thread-safe: one per test.
 */
final class StoreTools
{
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    int dump(final String... args) throws Exception
    {
        return new DumpCommand(stream(out), stream(err)).run(args);
    }

    int verify(final String... args) throws Exception
    {
        return new VerifyCommand(stream(out), stream(err)).run(args);
    }

    /** @return everything printed to standard output since the last {@link #clearOut()}. */
    String out()
    {
        return out.toString(StandardCharsets.UTF_8);
    }

    String err()
    {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** Forgets what was printed to standard output, so the next command's output stands alone. */
    void clearOut()
    {
        out.reset();
    }

    private static PrintStream stream(final ByteArrayOutputStream bytes)
    {
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }
}
