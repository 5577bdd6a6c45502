package io.directlog.storage.writer;

import java.util.concurrent.atomic.AtomicLong;

import io.directlog.storage.AppendCallback;
import org.agrona.BitUtil;

/**
 * Runs user completions ({@link AppendCallback}s) so that what they throw never reaches the thread running them:
 * a writer thread that let a callback's exception through would end, and every log it serves would hang. What a
 * callback throws is counted here (and in the parent: a log's guard counts into its writer's, which lives as long
 * as the store, so the store-wide count never goes down) and logged, at the first error and then at powers of two
 * so that a callback failing on every append does not flood the log.
 * <p>
 * Everything is caught, {@link Error}s included: a {@code StackOverflowError} from a recursive callback or an
 * {@code AssertionError} from a test must not stop the engine either.
 * <p>
 * Thread-safe: callbacks run on writer threads and on callers' threads (appends refused before queueing).
 */
public final class CallbackGuard
{
    private static final System.Logger LOG = System.getLogger(CallbackGuard.class.getName());

    private final String owner;
    private final CallbackGuard parent;
    /** The writer thread whose interrupt a callback must not leave set (the parent's), or null. */
    private final Thread writer;
    private final AtomicLong errors = new AtomicLong();
    /** Callbacks that left the writer thread interrupted (cleared), for the log line's count. */
    private final AtomicLong interrupts = new AtomicLong();

    /**
     * @param owner  what the callbacks belong to, for the log message ("log 'orders'").
     * @param parent a guard that counts this one's errors too (its writer's), or null.
     */
    public CallbackGuard(final String owner, final CallbackGuard parent)
    {
        this(owner, parent, parent != null ? parent.writer : null);
    }

    /** A writer's own guard: {@code writer} is its thread. */
    CallbackGuard(final String owner, final CallbackGuard parent, final Thread writer)
    {
        this.owner = owner;
        this.parent = parent;
        this.writer = writer;
    }

    /**
     * Calls {@code callback}; catches, counts and logs what it throws.
     *
     * @param callback the completion.
     * @param offset   the offset it is given.
     * @param error    the error it is given, or null.
     */
    public void complete(final AppendCallback callback, final long offset, final Throwable error)
    {
        try
        {
            callback.onComplete(offset, error);
        }
        catch (final Throwable t)
        {
            onThrown(t);
        }
        if (writer != null && Thread.currentThread() == writer && Thread.interrupted())
        {
            // a callback interrupted the writer thread (its own thread, to it): the writer uses no interrupts, and
            // one left set would close an interruptible channel under the next write and end AgentRunner's loop
            final long n = interrupts.incrementAndGet();
            if (BitUtil.isPowerOfTwo(n))
            {
                LOG.log(System.Logger.Level.WARNING, "an append callback of " + owner + " interrupted the writer " +
                    "thread " + writer.getName() + " (" + n + " so far, logged at powers of two); the interrupt is " +
                    "cleared, the writer goes on");
            }
        }
    }

    private void onThrown(final Throwable thrown)
    {
        final long n = errors.incrementAndGet();
        if (parent != null)
        {
            parent.errors.incrementAndGet();
        }
        if (BitUtil.isPowerOfTwo(n))
        {
            LOG.log(System.Logger.Level.WARNING, "an append callback of " + owner + " threw on thread " +
                Thread.currentThread().getName() + " (" + n + " so far, logged at powers of two); " +
                "caught, the engine goes on", thrown);
        }
    }

    /** @return how many times a callback threw (this guard's and its children's). */
    public long errors()
    {
        return errors.get();
    }
}
