package io.directlog.storage.writer;

import java.time.Duration;

/** Reaches the writer's test seams from tests in other packages. */
public final class WriterTestHooks
{
    private WriterTestHooks()
    {
    }

    /**
     * Queues a command after which {@code writer} throws {@code error} outside any log's turn, ending its thread as
     * an Error in the agent's own code would; what is queued behind the command stays in the queue.
     *
     * @return true when queued.
     */
    public static boolean endThreadAfterQueued(final LogWriterAgent writer, final Error error, final Duration timeout)
    {
        return writer.offerCommand(0, () -> writer.endThreadForTest(error), timeout);
    }
}
