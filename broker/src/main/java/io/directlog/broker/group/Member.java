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

    void touch(final long nowNanos)
    {
        sessionDeadlineNanos = nowNanos + sessionTimeoutMs * 1_000_000L;
    }
}
