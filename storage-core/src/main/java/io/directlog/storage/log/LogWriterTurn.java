package io.directlog.storage.log;

import java.util.concurrent.CompletableFuture;

import io.directlog.storage.AppendCallback;
import io.directlog.storage.Durability;
import io.directlog.storage.writer.CallbackGuard;
import io.directlog.storage.writer.WriterClient;
import org.agrona.DirectBuffer;

/**
 * A log as its writer thread sees it ({@link WriterClient}): its appends copied, its duty cycle (a close due, then
 * the appender's flush and acknowledgements), whether it still needs turns, and its fail-stop. Apart from
 * {@link DefaultLog} so that the public facade keeps to the public API.
 * <p>
 * Every method but {@link #releasePageNow} runs on the log's writer thread.
 */
final class LogWriterTurn implements WriterClient
{
    private final LogParts parts;
    private final LogAppender appender;
    private final LogCloser closer;
    private final CallbackGuard callbacks;

    LogWriterTurn(final LogParts parts, final LogAppender appender, final LogCloser closer,
        final CallbackGuard callbacks)
    {
        this.parts = parts;
        this.appender = appender;
        this.closer = closer;
        this.callbacks = callbacks;
    }

    @Override
    public void onAppend(final DirectBuffer source, final int index, final int length, final int recordCount,
        final Durability durability, final AppendCallback callback)
    {
        appender.onAppend(source, index, length, recordCount, durability, callback);
    }

    @Override
    public int onDutyCycle(final long nowNanos)
    {
        return closer.closeIfDue() ? 1 : appender.onDutyCycle(nowNanos);
    }

    @Override
    public boolean needsDutyCycles()
    {
        // settled: everything copied is written and no append waits (a failed log drained its appends)
        return closer.closeDue() || appender.writtenEndIfFlushed() < 0 || !appender.acks().isEmpty();
    }

    @Override
    public long nextDeadlineNanos(final long nowNanos)
    {
        return appender.nextDeadlineNanos(nowNanos);
    }

    @Override
    public void onFailure(final String what, final Throwable cause, final AppendCallback unfinished)
    {
        final LogLifecycle lifecycle = parts.lifecycle();
        final boolean held = unfinished != null && appender.acks().holds(unfinished);
        lifecycle.failStop(what, cause);
        final Throwable failed = lifecycle.failure();
        appender.drainOnFailure(failed);
        if (unfinished != null && !held)
        {
            callbacks.complete(unfinished, -1, failed);
        }
    }

    /**
     * Hands the write page to the read cache now, as the writer does once the log took no append for
     * {@code StoreConfig.pageIdleRelease} (tests call this rather than wait for the clock). Not on the writer thread:
     * it runs as a command on the writer and waits for it.
     *
     * @return true when the page went to the read cache; false when there was none, something was left to write,
     * or a reader held it.
     */
    boolean releasePageNow()
    {
        final LogContext context = parts.context();
        final CompletableFuture<Boolean> done = new CompletableFuture<>();
        final Runnable release = () ->
        {
            final int end = appender.writtenEndIfFlushed();
            done.complete(end >= 0 && appender.idle().releasePage(end));
        };
        if (!context.writer().offerCommand(parts.slot().get(), release, context.appendTimeout()))
        {
            throw context.writer().timeoutException(context.appendTimeout(), parts.name());
        }
        return done.join();
    }
}
