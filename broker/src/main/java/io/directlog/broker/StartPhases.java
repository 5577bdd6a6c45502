package io.directlog.broker;

/**
 * How long each phase of a broker's start took, in order: a cluster node restarts after every kill of the fault
 * suite, and which phase dominates (store recovery, Raft groups, partitions, listening) decides what to make faster.
 * <p>
 * Not thread-safe: the starting thread marks; others read the text once the broker has started.
 */
final class StartPhases
{
    private final StringBuilder done = new StringBuilder();
    private final long first = System.nanoTime();
    private long last = first;

    /** Ends the phase that began at the previous mark (or at construction). */
    void mark(final String phase)
    {
        final long now = System.nanoTime();
        done.append(phase).append("_ms=").append((now - last) / 1_000_000).append(' ');
        last = now;
    }

    /** @return {@code phase_ms=N ...} for every phase marked, then {@code total_ms=N}. */
    @Override
    public String toString()
    {
        return done + "total_ms=" + (last - first) / 1_000_000;
    }
}
