package io.directlog.cli.store;

import java.io.PrintStream;

/**
 * Progress of a long read on stderr, for stores larger than {@link #THRESHOLD_BYTES}: at most one line a second,
 * so that an operator sees a verify of a large store is moving. Quiet for small stores and when disabled.
 * <p>
 * Not thread-safe; used by the command's thread.
 */
final class Progress
{
    /** Stores smaller than this read in a few seconds: no progress lines. */
    static final long THRESHOLD_BYTES = 256L << 20;

    private final PrintStream err;
    private final String what;
    private final long total;
    private final boolean enabled;
    private long done;
    private long lastPrint = System.nanoTime();

    Progress(final PrintStream err, final String what, final long total)
    {
        this.err = err;
        this.what = what;
        this.total = total;
        this.enabled = err != null && total >= THRESHOLD_BYTES;
    }

    void advance(final long bytes)
    {
        done += bytes;
        if (enabled && System.nanoTime() - lastPrint >= 1_000_000_000L)
        {
            lastPrint = System.nanoTime();
            err.printf("%s: %d of %d MiB read (%d%%)%n", what, done >> 20, total >> 20, total == 0 ? 100 : done * 100 / total);
        }
    }

    void finish()
    {
        if (enabled)
        {
            err.printf("%s: %d MiB read%n", what, done >> 20);
        }
    }
}
