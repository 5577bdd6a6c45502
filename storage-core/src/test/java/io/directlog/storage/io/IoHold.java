package io.directlog.storage.io;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One hold of an I/O call for a test: the thread making the call stops in {@link #hold}, the test learns that it
 * is there ({@link #awaitHeld}) and lets it go ({@link #release}). Bounded: a call not released within 60 s fails
 * with an IOException, as does one whose thread is interrupted while held.
 * <p>
 * Thread-safe.
 */
public final class IoHold
{
    private static final long RELEASE_WITHIN_SECONDS = 60;

    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    /**
     * Called on the I/O thread, before its call: says it is held, then waits for the release.
     *
     * @param what the call held, for the failure.
     * @throws IOException when the test did not release it in time, or the thread was interrupted.
     */
    public void hold(final String what) throws IOException
    {
        held.countDown();
        try
        {
            if (!release.await(RELEASE_WITHIN_SECONDS, TimeUnit.SECONDS))
            {
                throw new IOException("the test did not release " + what + " within " + RELEASE_WITHIN_SECONDS +
                    " s");
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while holding " + what, e);
        }
    }

    /**
     * @param seconds how long the test waits.
     * @return true when a call came to the hold within that time.
     * @throws InterruptedException when the test's thread is interrupted.
     */
    public boolean awaitHeld(final long seconds) throws InterruptedException
    {
        return held.await(seconds, TimeUnit.SECONDS);
    }

    /** Lets the held call (or the next one to come) go on; more calls change nothing. */
    public void release()
    {
        release.countDown();
    }
}
