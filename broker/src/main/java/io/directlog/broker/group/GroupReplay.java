package io.directlog.broker.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rebuilds the groups of one {@link OffsetLog} from its events (Kafka's group metadata load): committed offsets,
 * generations, and the members of groups that were stable. A group that was rebalancing comes back Empty with its
 * generation; its members rejoin when their heartbeat meets UNKNOWN_MEMBER_ID. Members' sessions restart at the load.
 * <p>
 * Not thread-safe: one load on one thread; the map it returns is handed to the coordinator's thread.
 */
final class GroupReplay implements OffsetLog.Visitor
{
    private final Map<String, Group> groups = new HashMap<>();

    private GroupReplay()
    {
    }

    /**
     * Reads the log's events (blocking).
     *
     * @param log the groups' log.
     * @return group id to group.
     * @throws IllegalStateException when the log cannot be read now.
     */
    static Map<String, Group> load(final OffsetLog log)
    {
        final GroupReplay replay = new GroupReplay();
        log.replay(replay);
        final long now = System.nanoTime();
        replay.groups.values().forEach(g -> g.members.values().forEach(m -> m.touch(now))); // sessions restart
        return replay.groups;
    }

    @Override
    public void onCommit(final String group, final OffsetLog.Commit c)
    {
        groups.computeIfAbsent(group, Group::new).offsets.put(new Group.TopicPartition(c.topic(), c.partition()), c);
    }

    @Override
    public void onGroup(final String group, final String protocolType, final int generation,
        final String protocolName)
    {
        // a rebalance started (or the group emptied): members stored before it are gone
        final Group g = groups.computeIfAbsent(group, Group::new);
        g.protocolType = protocolType.isEmpty() ? null : protocolType;
        g.generation = generation;
        g.members.clear();
        g.staticMembers.clear();
        g.state = Group.State.EMPTY;
        g.protocolName = null;
        g.leaderId = null;
    }

    @Override
    public void onMembers(final String group, final OffsetLog.Membership m)
    {
        final Group g = groups.computeIfAbsent(group, Group::new);
        g.protocolType = m.protocolType().isEmpty() ? null : m.protocolType();
        g.generation = m.generation();
        g.protocolName = m.protocolName();
        g.leaderId = m.leaderId();
        g.members.clear();
        g.staticMembers.clear();
        for (final OffsetLog.StoredMember sm : m.members())
        {
            final Member member = new Member(sm.memberId(), sm.instanceId(), sm.clientId(), sm.clientHost());
            member.sessionTimeoutMs = sm.sessionTimeoutMs();
            member.rebalanceTimeoutMs = sm.rebalanceTimeoutMs();
            member.protocols = new ArrayList<>(List.of(new Member.Protocol(m.protocolName(), sm.metadata())));
            member.assignment = sm.assignment();
            g.members.put(sm.memberId(), member);
            if (sm.instanceId() != null)
            {
                g.staticMembers.put(sm.instanceId(), sm.memberId());
            }
        }
        g.state = g.hasMembers() ? Group.State.STABLE : Group.State.EMPTY;
    }

    @Override
    public void onDelete(final String group)
    {
        groups.remove(group);
    }
}
