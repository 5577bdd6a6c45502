package io.directlog.broker.group;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;

/**
 * One member of a classic group.
 * <p>
 * Not thread-safe; owned by the coordinator thread.
 */
final class Member
{
    /** One protocol a member supports (an assignor name and its subscription). */
    record Protocol(String name, byte[] metadata)
    {
    }

    final String memberId;
    final String instanceId;
    final String clientId;
    final String clientHost;
    int sessionTimeoutMs;
    int rebalanceTimeoutMs;
    List<Protocol> protocols;
    byte[] assignment = new byte[0];
    /** Set while the member's JoinGroup is parked. */
    CompletableFuture<JoinGroupResponseData> join;
    short joinVersion;
    /** Set while the member's SyncGroup waits for the leader's assignment. */
    CompletableFuture<SyncGroupResponseData> sync;
    long sessionDeadlineNanos;

    Member(final String memberId, final String instanceId, final String clientId, final String clientHost)
    {
        this.memberId = memberId;
        this.instanceId = instanceId;
        this.clientId = clientId;
        this.clientHost = clientHost;
    }

    byte[] metadata(final String protocol)
    {
        for (final Protocol p : protocols)
        {
            if (p.name().equals(protocol))
            {
                return p.metadata();
            }
        }
        return new byte[0];
    }

    boolean supports(final String protocol)
    {
        for (final Protocol p : protocols)
        {
            if (p.name().equals(protocol))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @param requested a JoinGroup's protocols.
     * @return true when they are this member's protocols, in the same order with the same metadata.
     */
    boolean matches(final java.util.Collection<org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol> requested)
    {
        if (protocols == null || requested.size() != protocols.size())
        {
            return false;
        }
        int i = 0;
        for (final org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol p : requested)
        {
            final Protocol mine = protocols.get(i++);
            if (!mine.name().equals(p.name()) || !java.util.Arrays.equals(mine.metadata(), p.metadata()))
            {
                return false;
            }
        }
        return true;
    }

    void touch(final long nowNanos)
    {
        sessionDeadlineNanos = nowNanos + sessionTimeoutMs * 1_000_000L;
    }
}
