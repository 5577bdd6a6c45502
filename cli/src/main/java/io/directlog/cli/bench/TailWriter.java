package io.directlog.cli.bench;

import org.agrona.concurrent.UnsafeBuffer;

import io.directlog.storage.AppendCallback;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;

/**
 * The writer thread of the tail scenarios: appends {@link EngineTailReadScenario#RECORD_BYTES}-byte MEMORY records,
 * each stamped in its first 8 bytes with the time its latency counts from, until the phases stop. Its subclass says
 * when each record is sent and what its stamp is. The first failure, thrown or handed to the callback, fails the run.
 * <p>
 * Runs on its own thread; the callback runs on the engine's.
 */
abstract class TailWriter implements Runnable, AppendCallback
{
    protected final Log log;
    protected final Phases phases;
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[EngineTailReadScenario.RECORD_BYTES]);

    TailWriter(final Log log, final Phases phases)
    {
        this.log = log;
        this.phases = phases;
    }

    /** Appends until {@link Phases#stopped()}, each record through {@link #append(long)}. */
    protected abstract void appendUntilStopped();

    /** Appends one record stamped with {@code stamp}, a {@link System#nanoTime()}; acknowledged to this callback. */
    protected final void append(final long stamp)
    {
        payload.putLong(0, stamp);
        log.append(payload, 0, EngineTailReadScenario.RECORD_BYTES, Durability.MEMORY, this);
    }

    @Override
    public final void run()
    {
        try
        {
            appendUntilStopped();
        }
        catch (final Throwable t)
        {
            phases.fail(t);
        }
    }

    @Override
    public final void onComplete(final long offset, final Throwable error)
    {
        if (error != null)
        {
            phases.fail(error);
        }
    }
}
