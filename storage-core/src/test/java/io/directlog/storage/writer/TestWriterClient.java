package io.directlog.storage.writer;

import io.directlog.storage.AppendCallback;

/**
 * What the fake logs of the writer's tests share: the writer they complete callbacks through, no timed wake-ups,
 * and how a failure completes an append. What a fake does with appends, duty cycles and failures is its own.
 */
abstract class TestWriterClient implements WriterClient
{
    final LogWriterAgent writer;

    TestWriterClient(final LogWriterAgent writer)
    {
        this.writer = writer;
    }

    /** No background flush is ever due: the writer wakes for queued messages only. */
    @Override
    public long nextDeadlineNanos(final long nowNanos)
    {
        return Long.MAX_VALUE;
    }

    /**
     * Completes an append with a failure, as a failed log does (offset -1).
     *
     * @param callback the append's completion; nothing is done when null.
     * @param cause    the failure.
     */
    final void fail(final AppendCallback callback, final Throwable cause)
    {
        if (callback != null)
        {
            writer.callbacks().complete(callback, -1, cause);
        }
    }
}
