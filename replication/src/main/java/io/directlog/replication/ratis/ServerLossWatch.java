package io.directlog.replication.ratis;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Tells the node's owner, once, that Ratis closed a group's state machine while the node was not closing: the
 * replica then neither votes, appends nor applies again until the process restarts, however long it keeps running.
 * Ratis does this to the whole server after a JVM pause past {@code raft.server.close.threshold} (raised far by
 * {@link RatisReplicationNode#PAUSE_CLOSE_THRESHOLD_DEFAULT}), and to a group on errors of its own.
 * <p>
 * Thread-safe: state machines close on Ratis's threads, the node's own close on its owner's.
 */
final class ServerLossWatch
{
    private final AtomicBoolean closing = new AtomicBoolean();
    private final AtomicBoolean reported = new AtomicBoolean();
    private final String nodeId;
    private final Consumer<String> onLost;

    /**
     * @param nodeId the node's id, for the message.
     * @param onLost told the reason, once, on the Ratis thread that closed the group.
     */
    ServerLossWatch(final String nodeId, final Consumer<String> onLost)
    {
        this.nodeId = nodeId;
        this.onLost = Objects.requireNonNull(onLost, "onLost");
    }

    /** The node closes its server itself: state machines closing from now on are expected. */
    void closing()
    {
        closing.set(true);
    }

    /** @param logName the closed group's log (its state machine's name). */
    void groupClosed(final String logName)
    {
        if (!closing.get() && reported.compareAndSet(false, true))
        {
            onLost.accept("Ratis closed the Raft group of log " + logName + " on node " + nodeId +
                " while the node runs (after a JVM pause past raft.server.close.threshold, Ratis closes the whole " +
                "server); this node's replicas no longer vote, append or apply");
        }
    }
}
