package io.directlog.storage.writer;

import io.directlog.storage.StorageException;
import org.agrona.concurrent.AgentRunner;

/**
 * A writer thread's body: Agrona's loop ({@link AgentRunner#run}), and what happens when it ends without the store's
 * stop. AgentRunner ends its loop on an {@link Error} (after reporting it), on an interrupt it sees, and on an Error
 * from the agent's start. The duty cycle catches what a log throws and clears interrupts, but a thread can still
 * end (an Error outside any log's turn, an interrupt between two checks), and a writer that ended silently left its
 * logs' appends waiting forever: nothing else read its queue, and the append timeout covers only the wait for room
 * in it (issue 19: ApiFaultTest hung 9 minutes in a join on a fresh store whose writer-0 thread had ended).
 * <p>
 * So, as the thread's last act, on that thread (the logs' writer-owned state is still touched by one thread only):
 * every log it serves fails (fail-stop: pending appends complete with a {@code LogFailedException} that names this
 * thread and the cause, later ones are refused before they are queued, {@code isWritable()} is false), then the
 * queue is drained as at a stop, and from then on each offerer reads the queue after its own commit
 * ({@link LogWriterAgent#drainAfterStop}): an append that raced the end, or a command such as a log's close, is
 * still handled at once.
 * <p>
 * Thread-safe: {@link #death()} is read by any thread; the rest runs on the writer thread.
 */
final class WriterThreadBody implements Runnable
{
    private static final System.Logger LOG = System.getLogger(LogWriterAgent.class.getName());

    private final String name;
    private final AgentRunner runner;
    private final WriterQueue queue;
    private final LogWriterAgent writer;
    /** Why the thread ended without the store's stop, or null while it runs (or after a stop as asked). */
    private volatile StorageException death;

    WriterThreadBody(final String name, final AgentRunner runner, final WriterQueue queue, final LogWriterAgent writer)
    {
        this.name = name;
        this.runner = runner;
        this.queue = queue;
        this.writer = writer;
    }

    @Override
    public void run()
    {
        Throwable thrown = null;
        try
        {
            runner.run();
        }
        catch (final Throwable t)
        {
            thrown = t;
        }
        if (thrown != null || !queue.stopping)
        {
            onDeath(thrown);
        }
        if (thrown instanceof Error e)
        {
            throw e; // on to the thread's uncaught-exception handler, as without this body
        }
    }

    /** @return why the thread ended without the store's stop, or null. */
    StorageException death()
    {
        return death;
    }

    private void onDeath(final Throwable thrown)
    {
        Thread.interrupted(); // the drain below must not be cut short by the interrupt that may have ended the loop
        final StorageException cause = new StorageException("writer thread '" + name + "' ended unexpectedly (" +
            (thrown != null ? thrown.toString() : "interrupted, or its loop left without the store's stop") + ")",
            thrown);
        death = cause; // volatile, before the logs are read: a log registering now sees it (see register's callers)
        LOG.log(System.Logger.Level.ERROR, cause.getMessage() + "; every log it serves fails, and the store opens " +
            "no new log on it", thrown);
        for (final WriterClient client : writer.clients())
        {
            if (client != null)
            {
                try
                {
                    client.onFailure("writer", cause, null);
                }
                catch (final Throwable t)
                {
                    LOG.log(System.Logger.Level.ERROR, name + ": failing a log after the thread's end threw: " + t, t);
                }
            }
        }
        queue.stopping = true; // offers from now on read the queue themselves once the drain below is done
        writer.finalDrain();
    }
}
