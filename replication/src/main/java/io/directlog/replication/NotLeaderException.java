package io.directlog.replication;

import java.util.Optional;

/**
 * The replica asked to append is not the partition's leader (Kafka's NOT_LEADER_OR_FOLLOWER). Retriable on the
 * leader it names, when it knows one.
 */
public class NotLeaderException extends ReplicationException
{
    private static final long serialVersionUID = 1L;

    /** The leader this replica knew of, or null. */
    private final String leaderId;

    /**
     * @param partition the partition's name.
     * @param leaderId  the leader this replica knows of, or null.
     * @param cause     the engine's exception, or null.
     */
    public NotLeaderException(final String partition, final String leaderId, final Throwable cause)
    {
        super("not the leader of partition " + partition + (leaderId == null ? "; no leader known" :
            "; leader is " + leaderId), true, cause);
        this.leaderId = leaderId;
    }

    /** @return the leader this replica knows of. */
    public Optional<String> leaderId()
    {
        return Optional.ofNullable(leaderId);
    }
}
