package io.directlog.cli.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/**
 * dump and verify report progress on stderr only for stores of at least {@link Progress#THRESHOLD_BYTES} (issue
 * 19: "progress on stderr for stores larger than a few hundred MiB"), and always end such a store with a total.
 * The once-a-second lines in between depend on the clock and are not asserted.
 */
class ProgressTest
{
    @Test
    void aLargeStoreEndsWithTheBytesRead()
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final Progress progress = new Progress(new PrintStream(err, true, StandardCharsets.UTF_8), "verify",
            Progress.THRESHOLD_BYTES);
        progress.advance(Progress.THRESHOLD_BYTES / 2);
        progress.advance(Progress.THRESHOLD_BYTES / 2);
        progress.finish();
        final String text = err.toString(StandardCharsets.UTF_8);
        assertEquals("verify: 256 MiB read", text.lines().reduce((a, b) -> b).orElse(""), text);
    }

    @Test
    void aSmallStorePrintsNothing()
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final Progress progress = new Progress(new PrintStream(err, true, StandardCharsets.UTF_8), "dump",
            Progress.THRESHOLD_BYTES - 1);
        progress.advance(Progress.THRESHOLD_BYTES - 1);
        progress.finish();
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }
}
