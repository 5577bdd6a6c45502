package io.directlog.broker.group;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;

/**
 * One classic consumer group: its state, generation, members, and committed offsets.
 * <p>
 * Not thread-safe; owned by the coordinator thread.
 */
final class Group
{
    /** Kafka's classic group states, named as DescribeGroups and ListGroups report them. */
    enum State
    {
        EMPTY("Empty"), PREPARING_REBALANCE("PreparingRebalance"), COMPLETING_REBALANCE("CompletingRebalance"),
        STABLE("Stable"), DEAD("Dead");

        final String kafkaName;

        State(final String kafkaName)
        {
            this.kafkaName = kafkaName;
        }
    }

    /** A committed offset's key. */
    record TopicPartition(String topic, int partition)
    {
    }

    final String id;
    State state = State.EMPTY;
    String protocolType;
    String protocolName;
    int generation;
    String leaderId;
    final LinkedHashMap<String, Member> members = new LinkedHashMap<>();
    final Map<String, String> staticMembers = new HashMap<>();
    /**
     * Member ids handed out with MEMBER_ID_REQUIRED (KIP-394) and not yet used to join, to the deadline of their
     * first join (the session timeout asked for); only a join with one of these ids may add a dynamic member.
     */
    final Map<String, Long> pendingMembers = new HashMap<>();
    final Map<TopicPartition, OffsetLog.Commit> offsets = new HashMap<>();
    ScheduledFuture<?> joinTimer;
    /** True while a new group waits group.initial.rebalance.delay.ms for more members. */
    boolean initialDelay;

    Group(final String id)
    {
        this.id = id;
    }

    boolean hasMembers()
    {
        return !members.isEmpty();
    }

    /**
     * @param instanceId a request's group.instance.id, or null.
     * @param memberId   the request's member id.
     * @return true when the instance id belongs to another member id now (KIP-345: the old member is fenced).
     */
    boolean isFenced(final String instanceId, final String memberId)
    {
        if (instanceId == null)
        {
            return false;
        }
        final String current = staticMembers.get(instanceId);
        return current != null && !current.equals(memberId);
    }

    int rebalanceTimeoutMs()
    {
        int max = 0;
        for (final Member m : members.values())
        {
            max = Math.max(max, m.rebalanceTimeoutMs);
        }
        return max;
    }
}
