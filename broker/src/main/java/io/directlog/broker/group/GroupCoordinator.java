package io.directlog.broker.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The classic-protocol group coordinator: JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch
 * and the group admin calls, with Kafka's semantics (KIP-62 session and rebalance timeouts, KIP-345 static
 * membership, generation checks).
 * <p>
 * A rebalance: a join (or a member leaving or expiring) moves the group to PreparingRebalance; JoinGroup requests
 * are parked until every known member has rejoined or the largest rebalance timeout passes (members that did not
 * rejoin are dropped; a new group first waits {@code group.initial.rebalance.delay.ms} for more members). Then the
 * generation moves on, the leader gets the member list, every member its join response, and the group waits in
 * CompletingRebalance for the leader's SyncGroup, whose assignment answers the parked SyncGroups. Heartbeats during
 * PreparingRebalance answer REBALANCE_IN_PROGRESS, which makes members rejoin.
 * <p>
 * Member ids (KIP-394): a dynamic member's first JoinGroup (v4+, empty member id) gets MEMBER_ID_REQUIRED with the
 * id it must join with, so that a client that retries a lost join response does not leave a ghost member behind.
 * Static members (KIP-345, group.instance.id) join at once; one that rejoins with an empty member id (a restarted
 * consumer) replaces its old member id: in a stable group, when the selected protocol does not change, it gets the
 * current generation and its old assignment without a rebalance, and the old member id is fenced
 * (FENCED_INSTANCE_ID on its join, sync, heartbeat, commit or leave).
 * <p>
 * Persistence: committed offsets, and each stable group's members with their assignments, are in the groups' log,
 * so after a restart a stable group is stable again with its generation, and its members' heartbeats, syncs and
 * commits go on (their sessions restart). A group that was rebalancing is Empty after a restart (generation kept)
 * and its members rejoin when their heartbeat meets UNKNOWN_MEMBER_ID.
 * <p>
 * A known member's JoinGroup in a stable group starts a rebalance when it is the leader or its protocols changed;
 * a follower with unchanged protocols gets the current generation back at once, as in Kafka.
 * <p>
 * Coordination (Kafka's model): the coordinator serves the groups of one {@link GroupLog}. In a cluster that is a
 * partition of the replicated offsets topic and this node serves its groups only while it leads it: otherwise every
 * request answers NOT_COORDINATOR; when it becomes the leader (a new epoch) it reads the committed log again
 * ({@link GroupReplay}) and answers COORDINATOR_LOAD_IN_PROGRESS until that is done. A commit is acknowledged once
 * the log holds it durably (replicated: committed by a majority).
 * <p>
 * Thread-safe: every operation runs on the node's group thread (shared by its coordinators, see
 * {@link GroupCoordinators}); public methods return futures.
 */
public final class GroupCoordinator
{
    /** Kafka's group.min.session.timeout.ms and group.max.session.timeout.ms. */
    static final int MIN_SESSION_TIMEOUT_MS = 6_000;
    static final int MAX_SESSION_TIMEOUT_MS = 1_800_000;
    /** Kafka's offset.metadata.max.bytes. */
    static final int MAX_METADATA_LENGTH = 4096;
    private static final long SWEEP_INTERVAL_MS = 500;
    /** ListGroups v5's name for groups of the classic protocol. */
    private static final String CLASSIC = "classic";
    private static final System.Logger LOG = System.getLogger(GroupCoordinator.class.getName());

    private final ScheduledExecutorService thread;
    private final OffsetLog offsetLog;
    private final long initialDelayMs;
    private final Map<String, Group> groups = new HashMap<>();
    private final GroupOwnership ownership;
    /** Groups per state (by {@link Group.State#ordinal()}), as of the last sweep: written on the thread, read by gauges. */
    private final java.util.concurrent.atomic.AtomicIntegerArray stateCounts =
        new java.util.concurrent.atomic.AtomicIntegerArray(Group.State.values().length);

    /**
     * @param log            the groups' log.
     * @param initialDelayMs Kafka's group.initial.rebalance.delay.ms.
     * @param thread         the thread every operation runs on (a node's coordinators share it; the caller owns it).
     * @param loader         where loads read the log (they block; the caller owns it).
     * @param loadNow        true to load the log here, before serving (a single node's log, always coordinated
     *                       here); false to load when this node becomes the log's coordinator.
     */
    GroupCoordinator(final GroupLog log, final long initialDelayMs, final ScheduledExecutorService thread,
        final Executor loader, final boolean loadNow)
    {
        this.offsetLog = new OffsetLog(log);
        this.initialDelayMs = initialDelayMs;
        this.thread = thread;
        this.ownership = new GroupOwnership(offsetLog, loader, thread, new GroupOwnership.Owner()
        {
            @Override
            public void install(final Map<String, Group> loaded)
            {
                groups.clear();
                groups.putAll(loaded);
            }

            @Override
            public void drop()
            {
                unload();
            }
        });
        if (loadNow)
        {
            ownership.loadNow();
        }
        thread.scheduleWithFixedDelay(this::sweep, SWEEP_INTERVAL_MS, SWEEP_INTERVAL_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * Runs an operation on the thread once this node coordinates the log's groups with their state loaded;
     * otherwise answers at once with {@code refused} of the reason ({@link GroupOwnership#check}).
     */
    private <T> CompletableFuture<T> onThread(final Function<Errors, T> refused,
        final Supplier<CompletableFuture<T>> task)
    {
        final CompletableFuture<T> result = new CompletableFuture<>();
        thread.execute(() ->
        {
            try
            {
                final Errors owner = ownership.check();
                if (owner != Errors.NONE)
                {
                    result.complete(refused.apply(owner));
                    return;
                }
                task.get().whenComplete((v, e) ->
                {
                    if (e != null)
                    {
                        result.completeExceptionally(e);
                    }
                    else
                    {
                        result.complete(v);
                    }
                });
            }
            catch (final RuntimeException e)
            {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /** Drops every group's state (this node lost the lead): parked joins and syncs answer NOT_COORDINATOR. */
    private void unload()
    {
        for (final Group g : groups.values())
        {
            if (g.joinTimer != null)
            {
                g.joinTimer.cancel(false);
                g.joinTimer = null;
            }
            for (final Member m : g.members.values())
            {
                if (m.join != null)
                {
                    m.join.complete(joinError(Errors.NOT_COORDINATOR, m.memberId));
                    m.join = null;
                }
                if (m.sync != null)
                {
                    m.sync.complete(syncError(Errors.NOT_COORDINATOR));
                    m.sync = null;
                }
            }
        }
        groups.clear();
    }

    private void sweep()
    {
        try
        {
            if (ownership.check() == Errors.NONE)
            {
                expireSessions();
            }
            countStates();
        }
        catch (final RuntimeException e)
        {
            // a failed sweep must not end the schedule (a periodic task that throws is never run again)
            LOG.log(System.Logger.Level.WARNING, "group sweep of " + offsetLog.log() + " failed", e);
        }
    }

    /** Publishes how many groups are in each state, for the gauges (read on other threads). */
    private void countStates()
    {
        final int[] counts = new int[Group.State.values().length];
        if (ownership.check() == Errors.NONE) // groups that are not served here are another node's to count
        {
            for (final Group g : groups.values())
            {
                counts[g.state.ordinal()]++;
            }
        }
        for (int i = 0; i < counts.length; i++)
        {
            stateCounts.set(i, counts[i]);
        }
    }

    /**
     * @param state a group state.
     * @return how many of this coordinator's groups were in it at the last sweep (at most half a second ago).
     */
    int groupsIn(final Group.State state)
    {
        return stateCounts.get(state.ordinal());
    }

    // ---------------------------------------------------------------- JoinGroup

    /**
     * @param req        the request.
     * @param version    its version.
     * @param clientId   the client's id.
     * @param clientHost the client's address.
     * @return the response, once the rebalance completes (or at once on error).
     */
    public CompletableFuture<JoinGroupResponseData> join(final JoinGroupRequestData req, final short version,
        final String clientId, final String clientHost)
    {
        return onThread(e -> joinError(e, req.memberId()), () -> doJoin(req, version, clientId, clientHost));
    }

    private static JoinGroupResponseData joinError(final Errors error, final String memberId)
    {
        // protocol name "", not null: it is nullable only from v7, and librdkafka speaks v5
        return new JoinGroupResponseData().setErrorCode(error.code()).setMemberId(memberId).setGenerationId(-1)
            .setProtocolName("").setLeader("");
    }

    private CompletableFuture<JoinGroupResponseData> doJoin(final JoinGroupRequestData req, final short version,
        final String clientId, final String clientHost)
    {
        if (req.groupId() == null || req.groupId().isEmpty())
        {
            return CompletableFuture.completedFuture(joinError(Errors.INVALID_GROUP_ID, req.memberId()));
        }
        if (req.sessionTimeoutMs() < MIN_SESSION_TIMEOUT_MS || req.sessionTimeoutMs() > MAX_SESSION_TIMEOUT_MS)
        {
            return CompletableFuture.completedFuture(joinError(Errors.INVALID_SESSION_TIMEOUT, req.memberId()));
        }
        final Group g = groups.computeIfAbsent(req.groupId(), Group::new);
        if (g.hasMembers() && (!req.protocolType().equals(g.protocolType) || !sharesProtocol(g, req)))
        {
            return CompletableFuture.completedFuture(joinError(Errors.INCONSISTENT_GROUP_PROTOCOL, req.memberId()));
        }
        final String instanceId = req.groupInstanceId();
        Member m;
        if (req.memberId().isEmpty())
        {
            final String newId = (instanceId != null ? instanceId : clientId) + "-" + UUID.randomUUID();
            final String oldId = instanceId == null ? null : g.staticMembers.get(instanceId);
            if (oldId != null && g.members.containsKey(oldId))
            {
                return replaceStaticMember(g, oldId, newId, req, version, clientId, clientHost);
            }
            if (instanceId == null && version >= 4)
            {
                // KIP-394: the member joins again with this id; until then it is not a member
                g.pendingMembers.put(newId, System.nanoTime() + req.sessionTimeoutMs() * 1_000_000L);
                return CompletableFuture.completedFuture(joinError(Errors.MEMBER_ID_REQUIRED, newId));
            }
            m = new Member(newId, instanceId, clientId, clientHost);
            g.members.put(newId, m);
            if (instanceId != null)
            {
                g.staticMembers.put(instanceId, newId);
            }
        }
        else
        {
            if (g.isFenced(instanceId, req.memberId()))
            {
                return CompletableFuture.completedFuture(joinError(Errors.FENCED_INSTANCE_ID, req.memberId()));
            }
            m = g.members.get(req.memberId());
            if (m == null && g.pendingMembers.remove(req.memberId()) != null)
            {
                m = new Member(req.memberId(), instanceId, clientId, clientHost);
                g.members.put(m.memberId, m);
                if (instanceId != null)
                {
                    g.staticMembers.put(instanceId, m.memberId);
                }
            }
            if (m == null)
            {
                return CompletableFuture.completedFuture(joinError(Errors.UNKNOWN_MEMBER_ID, req.memberId()));
            }
            if (g.state == Group.State.STABLE && !m.memberId.equals(g.leaderId) && m.matches(req.protocols()))
            {
                // a follower whose subscription did not change: the current generation, as Kafka answers it (a
                // leader's join always rebalances: it may have seen metadata changes its subscription does not show)
                m.touch(System.nanoTime());
                return CompletableFuture.completedFuture(new JoinGroupResponseData().setErrorCode(Errors.NONE.code())
                    .setGenerationId(g.generation).setProtocolType(version < 7 ? null : g.protocolType)
                    .setProtocolName(g.protocolName).setLeader(g.leaderId).setMemberId(m.memberId));
            }
        }
        updateMember(m, req, version);
        g.protocolType = req.protocolType();
        final CompletableFuture<JoinGroupResponseData> result = m.join;
        if (g.state != Group.State.PREPARING_REBALANCE)
        {
            prepareRebalance(g);
        }
        maybeCompleteJoin(g);
        return result;
    }

    /** Takes a JoinGroup's timeouts and protocols, and parks the member's join (superseding one parked before). */
    private static void updateMember(final Member m, final JoinGroupRequestData req, final short version)
    {
        m.sessionTimeoutMs = req.sessionTimeoutMs();
        m.rebalanceTimeoutMs = version == 0 ? req.sessionTimeoutMs() : req.rebalanceTimeoutMs();
        m.protocols = new ArrayList<>();
        for (final JoinGroupRequestData.JoinGroupRequestProtocol p : req.protocols())
        {
            m.protocols.add(new Member.Protocol(p.name(), p.metadata()));
        }
        if (m.join != null)
        {
            m.join.complete(joinError(Errors.UNKNOWN_MEMBER_ID, m.memberId)); // superseded by this join
        }
        m.join = new CompletableFuture<>();
        m.joinVersion = version;
        m.touch(System.nanoTime());
    }

    /**
     * KIP-345: a static member rejoins with an empty member id (it restarted). The new id takes the old one's place
     * and assignment and the old id is fenced. In a stable group whose selected protocol stays the same, the member
     * gets the current generation at once and no rebalance happens; the leader reported is the current one (the
     * old id when the static member led), so the member does not run an assignment a stable group would not
     * hand out. Otherwise the group rebalances as for any join.
     */
    private CompletableFuture<JoinGroupResponseData> replaceStaticMember(final Group g, final String oldId,
        final String newId, final JoinGroupRequestData req, final short version, final String clientId,
        final String clientHost)
    {
        final String currentLeader = g.leaderId;
        final Member old = g.members.remove(oldId);
        fence(old);
        final Member m = new Member(newId, old.instanceId, clientId, clientHost);
        m.assignment = old.assignment;
        g.members.put(newId, m);
        g.staticMembers.put(m.instanceId, newId);
        if (oldId.equals(g.leaderId))
        {
            g.leaderId = newId;
        }
        updateMember(m, req, version);
        final CompletableFuture<JoinGroupResponseData> result = m.join;
        if (g.state == Group.State.STABLE && g.protocolName != null && g.protocolName.equals(selectProtocol(g)))
        {
            m.join = null;
            storeMembers(g);
            final JoinGroupResponseData resp = new JoinGroupResponseData().setErrorCode(Errors.NONE.code())
                .setGenerationId(g.generation).setProtocolType(version < 7 ? null : g.protocolType)
                .setProtocolName(g.protocolName).setLeader(currentLeader).setMemberId(newId);
            result.complete(resp);
            return result;
        }
        if (g.state != Group.State.PREPARING_REBALANCE)
        {
            prepareRebalance(g);
        }
        maybeCompleteJoin(g);
        return result;
    }

    /** Stores a stable group's members and assignments (Kafka's storeGroup); a failure only costs a rejoin. */
    private void storeMembers(final Group g)
    {
        final List<OffsetLog.StoredMember> members = new ArrayList<>();
        for (final Member m : g.members.values())
        {
            members.add(new OffsetLog.StoredMember(m.memberId, m.instanceId, m.clientId, m.clientHost,
                m.sessionTimeoutMs, m.rebalanceTimeoutMs, m.metadata(g.protocolName), m.assignment));
        }
        offsetLog.members(g.id, new OffsetLog.Membership(g.protocolType, g.generation, g.protocolName, g.leaderId,
            members)).whenComplete((offset, e) ->
            {
                if (e != null)
                {
                    LOG.log(System.Logger.Level.WARNING, "storing the members of group " + g.id + " failed", e);
                }
            });
    }

    private static boolean sharesProtocol(final Group g, final JoinGroupRequestData req)
    {
        for (final JoinGroupRequestData.JoinGroupRequestProtocol p : req.protocols())
        {
            boolean all = true;
            for (final Member m : g.members.values())
            {
                if (m.protocols != null && !m.protocols.isEmpty() && !m.supports(p.name()))
                {
                    all = false;
                    break;
                }
            }
            if (all)
            {
                return true;
            }
        }
        return false;
    }

    /** Answers a replaced static member's parked join or sync: its instance id now belongs to another member id. */
    private void fence(final Member old)
    {
        answerParked(old, Errors.FENCED_INSTANCE_ID);
    }

    /**
     * Answers a removed member's parked join or sync with {@code error}: FENCED_INSTANCE_ID for a replaced static
     * member; UNKNOWN_MEMBER_ID for one that left or whose session expired (Kafka's answer, which makes a member
     * that is still alive join again; FENCED_INSTANCE_ID would be fatal to a dynamic one).
     */
    private static void answerParked(final Member m, final Errors error)
    {
        if (m.join != null)
        {
            m.join.complete(joinError(error, m.memberId));
            m.join = null;
        }
        if (m.sync != null)
        {
            m.sync.complete(syncError(error));
            m.sync = null;
        }
    }

    private void prepareRebalance(final Group g)
    {
        if (g.state == Group.State.COMPLETING_REBALANCE)
        {
            for (final Member m : g.members.values())
            {
                if (m.sync != null)
                {
                    m.sync.complete(new SyncGroupResponseData().setErrorCode(Errors.REBALANCE_IN_PROGRESS.code()));
                    m.sync = null;
                }
            }
        }
        final boolean wasEmpty = g.state == Group.State.EMPTY;
        g.state = Group.State.PREPARING_REBALANCE;
        if (g.joinTimer != null)
        {
            g.joinTimer.cancel(false);
        }
        final long delay = wasEmpty && initialDelayMs > 0 ? Math.min(initialDelayMs, g.rebalanceTimeoutMs()) :
            g.rebalanceTimeoutMs();
        g.initialDelay = wasEmpty && initialDelayMs > 0;
        g.joinTimer = thread.schedule(() ->
        {
            g.joinTimer = null;
            g.initialDelay = false;
            if (g.state == Group.State.PREPARING_REBALANCE && groups.get(g.id) == g)
            {
                completeJoin(g);
            }
        }, delay, TimeUnit.MILLISECONDS);
    }

    private void maybeCompleteJoin(final Group g)
    {
        if (g.state != Group.State.PREPARING_REBALANCE || g.initialDelay)
        {
            return;
        }
        for (final Member m : g.members.values())
        {
            if (m.join == null)
            {
                return;
            }
        }
        if (g.joinTimer != null)
        {
            g.joinTimer.cancel(false);
            g.joinTimer = null;
        }
        completeJoin(g);
    }

    private void completeJoin(final Group g)
    {
        for (final Iterator<Member> it = g.members.values().iterator(); it.hasNext(); )
        {
            final Member m = it.next();
            if (m.join == null)
            {
                it.remove(); // did not rejoin within the rebalance timeout
                if (m.instanceId != null)
                {
                    g.staticMembers.remove(m.instanceId);
                }
            }
        }
        g.generation++;
        if (!g.hasMembers())
        {
            g.state = Group.State.EMPTY;
            g.protocolName = null;
            g.leaderId = null;
            offsetLog.group(g.id, g.protocolType, g.generation, "");
            return;
        }
        final String selected = selectProtocol(g);
        g.protocolName = selected == null ? "" : selected; // non-nullable before JoinGroup v7
        if (g.leaderId == null || !g.members.containsKey(g.leaderId))
        {
            g.leaderId = g.members.keySet().iterator().next();
        }
        g.state = Group.State.COMPLETING_REBALANCE;
        final long now = System.nanoTime();
        offsetLog.group(g.id, g.protocolType, g.generation, g.protocolName);
        for (final Member m : g.members.values())
        {
            final JoinGroupResponseData resp = new JoinGroupResponseData().setErrorCode(Errors.NONE.code())
                .setGenerationId(g.generation).setProtocolType(g.protocolType).setProtocolName(g.protocolName)
                .setLeader(g.leaderId).setMemberId(m.memberId);
            if (m.memberId.equals(g.leaderId))
            {
                for (final Member other : g.members.values())
                {
                    resp.members().add(new JoinGroupResponseData.JoinGroupResponseMember().setMemberId(other.memberId)
                        .setGroupInstanceId(other.instanceId).setMetadata(other.metadata(g.protocolName)));
                }
            }
            if (m.joinVersion < 7)
            {
                resp.setProtocolType(null);
            }
            final CompletableFuture<JoinGroupResponseData> join = m.join;
            m.join = null;
            m.touch(now);
            join.complete(resp);
        }
    }

    private static String selectProtocol(final Group g)
    {
        // every member votes for its most preferred protocol that all members support (ClassicGroup.selectProtocol)
        final Map<String, Integer> votes = new HashMap<>();
        String best = null;
        for (final Member m : g.members.values())
        {
            for (final Member.Protocol p : m.protocols)
            {
                boolean all = true;
                for (final Member other : g.members.values())
                {
                    all &= other.supports(p.name());
                }
                if (all)
                {
                    final int v = votes.merge(p.name(), 1, Integer::sum);
                    if (best == null || v > votes.get(best))
                    {
                        best = p.name();
                    }
                    break;
                }
            }
        }
        return best;
    }

    // ---------------------------------------------------------------- SyncGroup, Heartbeat, LeaveGroup

    /**
     * @param req     the request.
     * @param version its version.
     * @return the member's assignment once the leader has sent it.
     */
    public CompletableFuture<SyncGroupResponseData> sync(final SyncGroupRequestData req, final short version)
    {
        // while loading, the rebalance this sync belongs to is lost: the member rejoins (Kafka's answer; older
        // clients do not expect COORDINATOR_LOAD_IN_PROGRESS here)
        return onThread(e -> syncError(e == Errors.COORDINATOR_LOAD_IN_PROGRESS ? Errors.REBALANCE_IN_PROGRESS : e),
            () ->
        {
            final Group g = groups.get(req.groupId());
            if (g != null && g.isFenced(req.groupInstanceId(), req.memberId()))
            {
                return CompletableFuture.completedFuture(syncError(Errors.FENCED_INSTANCE_ID));
            }
            final Member m = g == null ? null : g.members.get(req.memberId());
            if (m == null)
            {
                return CompletableFuture.completedFuture(syncError(Errors.UNKNOWN_MEMBER_ID));
            }
            if (req.generationId() != g.generation)
            {
                return CompletableFuture.completedFuture(syncError(Errors.ILLEGAL_GENERATION));
            }
            m.touch(System.nanoTime());
            switch (g.state)
            {
                case PREPARING_REBALANCE:
                    return CompletableFuture.completedFuture(syncError(Errors.REBALANCE_IN_PROGRESS));
                case STABLE:
                    return CompletableFuture.completedFuture(syncOk(g, m, version));
                case COMPLETING_REBALANCE:
                    m.sync = new CompletableFuture<>();
                    final CompletableFuture<SyncGroupResponseData> result = m.sync;
                    if (m.memberId.equals(g.leaderId))
                    {
                        for (final Member each : g.members.values())
                        {
                            each.assignment = new byte[0];
                        }
                        for (final SyncGroupRequestData.SyncGroupRequestAssignment a : req.assignments())
                        {
                            final Member target = g.members.get(a.memberId());
                            if (target != null)
                            {
                                target.assignment = a.assignment();
                            }
                        }
                        g.state = Group.State.STABLE;
                        storeMembers(g);
                        for (final Member each : g.members.values())
                        {
                            if (each.sync != null)
                            {
                                final CompletableFuture<SyncGroupResponseData> s = each.sync;
                                each.sync = null;
                                s.complete(syncOk(g, each, version));
                            }
                        }
                    }
                    return result;
                default:
                    return CompletableFuture.completedFuture(syncError(Errors.UNKNOWN_MEMBER_ID));
            }
        });
    }

    private static SyncGroupResponseData syncError(final Errors error)
    {
        return new SyncGroupResponseData().setErrorCode(error.code()).setAssignment(new byte[0]);
    }

    private static SyncGroupResponseData syncOk(final Group g, final Member m, final short version)
    {
        final SyncGroupResponseData resp = new SyncGroupResponseData().setErrorCode(Errors.NONE.code())
            .setAssignment(m.assignment);
        if (version >= 5)
        {
            resp.setProtocolType(g.protocolType).setProtocolName(g.protocolName);
        }
        return resp;
    }

    /**
     * @param req the request.
     * @return the response.
     */
    public CompletableFuture<HeartbeatResponseData> heartbeat(final HeartbeatRequestData req)
    {
        // while loading, Kafka answers heartbeats blindly: the member's session is restarted by the load anyway
        return onThread(e -> new HeartbeatResponseData().setErrorCode(
            (e == Errors.COORDINATOR_LOAD_IN_PROGRESS ? Errors.NONE : e).code()), () ->
        {
            final Group g = groups.get(req.groupId());
            final Member m = g == null ? null : g.members.get(req.memberId());
            final Errors error;
            if (g != null && g.isFenced(req.groupInstanceId(), req.memberId()))
            {
                error = Errors.FENCED_INSTANCE_ID;
            }
            else if (m == null)
            {
                error = Errors.UNKNOWN_MEMBER_ID;
            }
            else if (req.generationId() != g.generation)
            {
                error = Errors.ILLEGAL_GENERATION;
            }
            else
            {
                m.touch(System.nanoTime());
                error = g.state == Group.State.PREPARING_REBALANCE ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
            }
            return CompletableFuture.completedFuture(new HeartbeatResponseData().setErrorCode(error.code()));
        });
    }

    /**
     * @param req     the request.
     * @param version its version (v3+ carries a list of members).
     * @return the response.
     */
    public CompletableFuture<LeaveGroupResponseData> leave(final LeaveGroupRequestData req, final short version)
    {
        return onThread(e -> new LeaveGroupResponseData().setErrorCode(e.code()), () ->
        {
            final Group g = groups.get(req.groupId());
            final LeaveGroupResponseData resp = new LeaveGroupResponseData().setErrorCode(Errors.NONE.code());
            final List<LeaveGroupRequestData.MemberIdentity> leaving = new ArrayList<>(req.members());
            if (version < 3)
            {
                leaving.add(new LeaveGroupRequestData.MemberIdentity().setMemberId(req.memberId()));
            }
            boolean removed = false;
            for (final LeaveGroupRequestData.MemberIdentity id : leaving)
            {
                String memberId = id.memberId();
                final boolean byInstance = (memberId == null || memberId.isEmpty()) && id.groupInstanceId() != null;
                if (g != null && !byInstance && g.isFenced(id.groupInstanceId(), memberId))
                {
                    resp.members().add(new LeaveGroupResponseData.MemberResponse().setMemberId(id.memberId())
                        .setGroupInstanceId(id.groupInstanceId()).setErrorCode(Errors.FENCED_INSTANCE_ID.code()));
                    continue;
                }
                if (g != null && byInstance)
                {
                    memberId = g.staticMembers.get(id.groupInstanceId());
                }
                final Member m = g == null || memberId == null ? null : g.members.remove(memberId);
                if (m != null)
                {
                    removed = true;
                    if (m.instanceId != null)
                    {
                        g.staticMembers.remove(m.instanceId);
                    }
                    answerParked(m, Errors.UNKNOWN_MEMBER_ID);
                }
                resp.members().add(new LeaveGroupResponseData.MemberResponse().setMemberId(id.memberId())
                    .setGroupInstanceId(id.groupInstanceId())
                    .setErrorCode((m == null ? Errors.UNKNOWN_MEMBER_ID : Errors.NONE).code()));
            }
            if (version < 3)
            {
                resp.setErrorCode(resp.members().get(0).errorCode());
                resp.members().clear();
            }
            if (removed)
            {
                onMembershipLoss(g);
            }
            return CompletableFuture.completedFuture(resp);
        });
    }

    private void onMembershipLoss(final Group g)
    {
        if (!g.hasMembers())
        {
            if (g.joinTimer != null)
            {
                g.joinTimer.cancel(false);
                g.joinTimer = null;
            }
            g.state = Group.State.EMPTY;
            g.leaderId = null;
            offsetLog.group(g.id, g.protocolType, g.generation, ""); // stored members are gone after a restart too
            return;
        }
        if (g.state == Group.State.PREPARING_REBALANCE)
        {
            maybeCompleteJoin(g);
        }
        else
        {
            prepareRebalance(g);
        }
    }

    private void expireSessions()
    {
        final long now = System.nanoTime();
        for (final Group g : new ArrayList<>(groups.values()))
        {
            g.pendingMembers.values().removeIf(deadline -> now - deadline > 0);
            boolean removed = false;
            for (final Iterator<Member> it = g.members.values().iterator(); it.hasNext(); )
            {
                final Member m = it.next();
                // a member parked in JoinGroup is waited for by the rebalance timeout, not its session
                if (m.join == null && now - m.sessionDeadlineNanos > 0)
                {
                    it.remove();
                    if (m.instanceId != null)
                    {
                        g.staticMembers.remove(m.instanceId);
                    }
                    answerParked(m, Errors.UNKNOWN_MEMBER_ID);
                    removed = true;
                }
            }
            if (removed)
            {
                onMembershipLoss(g);
            }
        }
    }

    // ---------------------------------------------------------------- OffsetCommit, OffsetFetch

    /**
     * @param req the request.
     * @return the response, once the commit is durable.
     */
    public CompletableFuture<OffsetCommitResponseData> commit(final OffsetCommitRequestData req)
    {
        return onThread(e -> commitError(req, e), () ->
        {
            final Group existing = groups.get(req.groupId());
            Errors error = Errors.NONE;
            if (req.groupId() == null || req.groupId().isEmpty())
            {
                error = Errors.INVALID_GROUP_ID;
            }
            else if (req.generationIdOrMemberEpoch() < 0 && (req.memberId() == null || req.memberId().isEmpty()))
            {
                if (existing != null && existing.hasMembers())
                {
                    error = Errors.UNKNOWN_MEMBER_ID; // a simple commit into a group with live members
                }
            }
            else
            {
                final Member m = existing == null ? null : existing.members.get(req.memberId());
                if (existing != null && existing.isFenced(req.groupInstanceId(), req.memberId()))
                {
                    error = Errors.FENCED_INSTANCE_ID;
                }
                else if (m == null)
                {
                    error = Errors.UNKNOWN_MEMBER_ID;
                }
                else if (req.generationIdOrMemberEpoch() != existing.generation)
                {
                    error = Errors.ILLEGAL_GENERATION;
                }
                else if (existing.state == Group.State.COMPLETING_REBALANCE)
                {
                    error = Errors.REBALANCE_IN_PROGRESS;
                }
                else
                {
                    m.touch(System.nanoTime());
                }
            }
            final OffsetCommitResponseData resp = new OffsetCommitResponseData();
            final List<OffsetLog.Commit> commits = new ArrayList<>();
            final long now = System.currentTimeMillis();
            for (final OffsetCommitRequestData.OffsetCommitRequestTopic t : req.topics())
            {
                final OffsetCommitResponseData.OffsetCommitResponseTopic rt =
                    new OffsetCommitResponseData.OffsetCommitResponseTopic().setName(t.name());
                resp.topics().add(rt);
                for (final OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions())
                {
                    Errors pe = error;
                    if (pe == Errors.NONE && p.committedMetadata() != null &&
                        p.committedMetadata().length() > MAX_METADATA_LENGTH)
                    {
                        pe = Errors.OFFSET_METADATA_TOO_LARGE;
                    }
                    if (pe == Errors.NONE)
                    {
                        commits.add(new OffsetLog.Commit(t.name(), p.partitionIndex(), p.committedOffset(),
                            p.committedLeaderEpoch(), p.committedMetadata() == null ? "" : p.committedMetadata(), now));
                    }
                    rt.partitions().add(new OffsetCommitResponseData.OffsetCommitResponsePartition()
                        .setPartitionIndex(p.partitionIndex()).setErrorCode(pe.code()));
                }
            }
            if (commits.isEmpty())
            {
                return CompletableFuture.completedFuture(resp);
            }
            final long epoch = ownership.loadedEpoch();
            return offsetLog.commit(req.groupId(), commits).handleAsync((offset, e) ->
            {
                if (e != null)
                {
                    LOG.log(System.Logger.Level.WARNING, "commit of group " + req.groupId() + " failed", e);
                    for (final OffsetCommitResponseData.OffsetCommitResponseTopic rt : resp.topics())
                    {
                        for (final OffsetCommitResponseData.OffsetCommitResponsePartition rp : rt.partitions())
                        {
                            if (rp.errorCode() == Errors.NONE.code())
                            {
                                rp.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code());
                            }
                        }
                    }
                    return resp;
                }
                if (ownership.loadedEpoch() != epoch)
                {
                    return resp; // durable, and in the log the next load reads; this state is gone
                }
                final Group g = groups.computeIfAbsent(req.groupId(), Group::new);
                for (final OffsetLog.Commit c : commits)
                {
                    g.offsets.put(new Group.TopicPartition(c.topic(), c.partition()), c);
                }
                return resp;
            }, thread);
        });
    }

    /** OffsetCommit's answer when this node does not coordinate the group now: the error on every partition. */
    private static OffsetCommitResponseData commitError(final OffsetCommitRequestData req, final Errors error)
    {
        final OffsetCommitResponseData resp = new OffsetCommitResponseData();
        for (final OffsetCommitRequestData.OffsetCommitRequestTopic t : req.topics())
        {
            final OffsetCommitResponseData.OffsetCommitResponseTopic rt =
                new OffsetCommitResponseData.OffsetCommitResponseTopic().setName(t.name());
            for (final OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions())
            {
                rt.partitions().add(new OffsetCommitResponseData.OffsetCommitResponsePartition()
                    .setPartitionIndex(p.partitionIndex()).setErrorCode(error.code()));
            }
            resp.topics().add(rt);
        }
        return resp;
    }

    /** A committed offset as OffsetFetch reports it. */
    public record Committed(long offset, int leaderEpoch, String metadata)
    {
    }

    /**
     * A group's committed offsets, or why they cannot be read here.
     *
     * @param error   NONE, NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS.
     * @param offsets topic to (partition to committed offset); empty on error.
     */
    public record Offsets(Errors error, Map<String, Map<Integer, Committed>> offsets)
    {
    }

    /**
     * @param groupId    the group.
     * @param partitions topic to partitions asked for; null for every committed one.
     * @return topic to (partition to committed offset); offset -1 where nothing is committed.
     */
    public CompletableFuture<Offsets> fetchOffsets(final String groupId, final Map<String, List<Integer>> partitions)
    {
        return onThread(e -> new Offsets(e, Map.of()), () ->
        {
            final Group g = groups.get(groupId);
            final Map<String, Map<Integer, Committed>> out = new java.util.LinkedHashMap<>();
            if (partitions == null)
            {
                if (g != null)
                {
                    g.offsets.forEach((tp, c) -> out.computeIfAbsent(tp.topic(), t -> new java.util.TreeMap<>())
                        .put(tp.partition(), new Committed(c.offset(), c.leaderEpoch(), c.metadata())));
                }
                return CompletableFuture.completedFuture(new Offsets(Errors.NONE, out));
            }
            partitions.forEach((topic, list) ->
            {
                final Map<Integer, Committed> m = out.computeIfAbsent(topic, t -> new java.util.LinkedHashMap<>());
                for (final int p : list)
                {
                    final OffsetLog.Commit c = g == null ? null : g.offsets.get(new Group.TopicPartition(topic, p));
                    m.put(p, c == null ? new Committed(-1, -1, "") : new Committed(c.offset(), c.leaderEpoch(),
                        c.metadata()));
                }
            });
            return CompletableFuture.completedFuture(new Offsets(Errors.NONE, out));
        });
    }

    // ---------------------------------------------------------------- DescribeGroups, ListGroups, DeleteGroups

    /**
     * @param groupIds the groups.
     * @return their descriptions (unknown groups: state Dead).
     */
    public CompletableFuture<List<DescribeGroupsResponseData.DescribedGroup>> describe(final List<String> groupIds)
    {
        return onThread(e -> groupIds.stream().map(id -> new DescribeGroupsResponseData.DescribedGroup().setGroupId(id)
            .setErrorCode(e.code()).setGroupState("").setProtocolType("").setProtocolData("")).toList(), () ->
        {
            final List<DescribeGroupsResponseData.DescribedGroup> out = new ArrayList<>();
            for (final String id : groupIds)
            {
                final Group g = groups.get(id);
                final DescribeGroupsResponseData.DescribedGroup d = new DescribeGroupsResponseData.DescribedGroup()
                    .setGroupId(id).setErrorCode(Errors.NONE.code());
                if (g == null)
                {
                    d.setGroupState(Group.State.DEAD.kafkaName).setProtocolType("").setProtocolData("");
                }
                else
                {
                    d.setGroupState(g.state.kafkaName).setProtocolType(g.protocolType == null ? "" : g.protocolType)
                        .setProtocolData(g.state == Group.State.STABLE && g.protocolName != null ? g.protocolName : "");
                    for (final Member m : g.members.values())
                    {
                        d.members().add(new DescribeGroupsResponseData.DescribedGroupMember().setMemberId(m.memberId)
                            .setGroupInstanceId(m.instanceId).setClientId(m.clientId).setClientHost(m.clientHost)
                            .setMemberMetadata(g.protocolName == null ? new byte[0] : m.metadata(g.protocolName))
                            .setMemberAssignment(g.state == Group.State.STABLE ? m.assignment : new byte[0]));
                    }
                }
                out.add(d);
            }
            return CompletableFuture.completedFuture(out);
        });
    }

    /**
     * @param req the request.
     * @return every group, filtered by state when asked.
     */
    public CompletableFuture<ListGroupsResponseData> list(final ListGroupsRequestData req)
    {
        return onThread(e -> new ListGroupsResponseData().setErrorCode(e.code()), () ->
        {
            final ListGroupsResponseData resp = new ListGroupsResponseData().setErrorCode(Errors.NONE.code());
            for (final Group g : groups.values())
            {
                // every group here is a classic group (v5's types filter: "classic", "consumer", "share", ...)
                final boolean typeMatches = req.typesFilter().isEmpty() ||
                    req.typesFilter().stream().anyMatch(t -> t.equalsIgnoreCase(CLASSIC));
                if (typeMatches && (req.statesFilter().isEmpty() || req.statesFilter().stream()
                    .anyMatch(s -> s.equalsIgnoreCase(g.state.kafkaName))))
                {
                    resp.groups().add(new ListGroupsResponseData.ListedGroup().setGroupId(g.id)
                        .setProtocolType(g.protocolType == null ? "" : g.protocolType).setGroupState(g.state.kafkaName)
                        .setGroupType(CLASSIC));
                }
            }
            return CompletableFuture.completedFuture(resp);
        });
    }

    /**
     * @param groupIds the groups to delete (only empty ones can be).
     * @return the per-group results.
     */
    public CompletableFuture<DeleteGroupsResponseData> delete(final List<String> groupIds)
    {
        return onThread(e ->
        {
            final DeleteGroupsResponseData refused = new DeleteGroupsResponseData();
            groupIds.forEach(id -> refused.results().add(new DeleteGroupsResponseData.DeletableGroupResult()
                .setGroupId(id).setErrorCode(e.code())));
            return refused;
        }, () ->
        {
            final DeleteGroupsResponseData resp = new DeleteGroupsResponseData();
            final List<CompletableFuture<Long>> writes = new ArrayList<>();
            for (final String id : groupIds)
            {
                final Group g = groups.get(id);
                final Errors error = g == null ? Errors.GROUP_ID_NOT_FOUND :
                    g.hasMembers() ? Errors.NON_EMPTY_GROUP : Errors.NONE;
                if (error == Errors.NONE)
                {
                    groups.remove(id);
                    writes.add(offsetLog.delete(id));
                }
                resp.results().add(new DeleteGroupsResponseData.DeletableGroupResult().setGroupId(id)
                    .setErrorCode(error.code()));
            }
            return CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0])).thenApply(v -> resp);
        });
    }
}
