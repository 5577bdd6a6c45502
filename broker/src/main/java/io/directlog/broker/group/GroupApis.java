package io.directlog.broker.group;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.errors.UnsupportedVersionException;

import io.directlog.broker.network.RequestContext;

/**
 * The group APIs on the wire: FindCoordinator (the node that leads the group's offsets partition, see
 * {@link GroupCoordinators}) and the version-dependent shapes of OffsetFetch (one group up to v7, a list from v8),
 * routed to the group's {@link GroupCoordinator}.
 * <p>
 * Thread-safe.
 */
public final class GroupApis
{
    private static final byte KEY_TYPE_GROUP = 0;

    /** Where a group's coordinator is: the node that leads the log holding it. */
    public interface CoordinatorLocator
    {
        /**
         * @param logIndex the index of a group log ({@link GroupCoordinators#partitionFor}).
         * @return the node that coordinates its groups, or null when none is known now (an election is running).
         */
        Address locate(int logIndex);
    }

    /**
     * A coordinator's address as FindCoordinator names it.
     *
     * @param nodeId its node id.
     * @param host   its advertised host.
     * @param port   its Kafka port.
     */
    public record Address(int nodeId, String host, int port)
    {
    }

    private final GroupCoordinators coordinators;
    private final CoordinatorLocator locator;

    /**
     * @param coordinators this node's coordinators.
     * @param locator      where each log's coordinator is.
     */
    public GroupApis(final GroupCoordinators coordinators, final CoordinatorLocator locator)
    {
        this.coordinators = coordinators;
        this.locator = locator;
    }

    /**
     * @param request a group request.
     * @return its response.
     */
    public CompletableFuture<ApiMessage> handle(final RequestContext request)
    {
        final ApiMessage body = request.body();
        final short v = request.version();
        return switch (request.header().apiKey())
        {
            case FIND_COORDINATOR -> CompletableFuture.completedFuture(findCoordinator((FindCoordinatorRequestData)body, v));
            case JOIN_GROUP -> up(coordinator(((JoinGroupRequestData)body).groupId()).join((JoinGroupRequestData)body,
                v, request.header().clientId(), request.clientHost()));
            case SYNC_GROUP -> up(coordinator(((SyncGroupRequestData)body).groupId()).sync((SyncGroupRequestData)body, v));
            case HEARTBEAT -> up(coordinator(((HeartbeatRequestData)body).groupId())
                .heartbeat((HeartbeatRequestData)body));
            case LEAVE_GROUP -> up(coordinator(((LeaveGroupRequestData)body).groupId())
                .leave((LeaveGroupRequestData)body, v));
            case OFFSET_COMMIT -> up(coordinator(((OffsetCommitRequestData)body).groupId())
                .commit((OffsetCommitRequestData)body));
            case OFFSET_FETCH -> offsetFetch((OffsetFetchRequestData)body, v);
            case DESCRIBE_GROUPS -> up(coordinators.describe(((DescribeGroupsRequestData)body).groups())
                .thenApply(groups ->
                {
                    final DescribeGroupsResponseData resp = new DescribeGroupsResponseData();
                    resp.groups().addAll(groups);
                    return resp;
                }));
            case LIST_GROUPS -> up(coordinators.list((ListGroupsRequestData)body));
            case DELETE_GROUPS -> up(coordinators.delete(((DeleteGroupsRequestData)body).groupsNames()));
            default -> CompletableFuture.failedFuture(new UnsupportedVersionException(
                "API " + request.header().apiKey() + " is not served"));
        };
    }

    private static <T extends ApiMessage> CompletableFuture<ApiMessage> up(final CompletableFuture<T> f)
    {
        return f.thenApply(m -> m);
    }

    private GroupCoordinator coordinator(final String groupId)
    {
        return coordinators.forGroup(groupId);
    }

    private FindCoordinatorResponseData findCoordinator(final FindCoordinatorRequestData req, final short version)
    {
        final FindCoordinatorResponseData resp = new FindCoordinatorResponseData();
        if (version < 4)
        {
            final FindCoordinatorResponseData.Coordinator c = locate(req.keyType(), req.key());
            return resp.setErrorCode(c.errorCode()).setNodeId(c.nodeId()).setHost(c.host()).setPort(c.port());
        }
        for (final String key : req.coordinatorKeys())
        {
            resp.coordinators().add(locate(req.keyType(), key));
        }
        return resp;
    }

    /** The coordinator of one key: groups only (transactions are not served). */
    private FindCoordinatorResponseData.Coordinator locate(final byte keyType, final String key)
    {
        final Address a = keyType == KEY_TYPE_GROUP ? locator.locate(coordinators.partitionFor(key)) : null;
        final Errors e = a == null ? Errors.COORDINATOR_NOT_AVAILABLE : Errors.NONE;
        return new FindCoordinatorResponseData.Coordinator().setKey(key).setErrorCode(e.code())
            .setNodeId(a == null ? -1 : a.nodeId()).setHost(a == null ? "" : a.host()).setPort(a == null ? -1 : a.port());
    }

    private CompletableFuture<ApiMessage> offsetFetch(final OffsetFetchRequestData req, final short version)
    {
        if (version < 8)
        {
            final Map<String, List<Integer>> asked = asked(req.topics() == null ? null : req.topics().stream()
                .map(t -> Map.entry(t.name(), t.partitionIndexes())).toList());
            return coordinator(req.groupId()).fetchOffsets(req.groupId(), asked).thenApply(found ->
            {
                final OffsetFetchResponseData resp = new OffsetFetchResponseData().setErrorCode(Errors.NONE.code());
                if (found.error() != Errors.NONE)
                {
                    return refusedV7(resp, asked, found.error(), version);
                }
                found.offsets().forEach((topic, parts) ->
                {
                    final OffsetFetchResponseData.OffsetFetchResponseTopic t =
                        new OffsetFetchResponseData.OffsetFetchResponseTopic().setName(topic);
                    parts.forEach((p, c) -> t.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartition()
                        .setPartitionIndex(p).setCommittedOffset(c.offset()).setCommittedLeaderEpoch(c.leaderEpoch())
                        .setMetadata(c.metadata()).setErrorCode(Errors.NONE.code())));
                    resp.topics().add(t);
                });
                return resp;
            });
        }
        final OffsetFetchResponseData resp = new OffsetFetchResponseData();
        final List<CompletableFuture<?>> all = new ArrayList<>();
        for (final OffsetFetchRequestData.OffsetFetchRequestGroup g : req.groups())
        {
            final OffsetFetchResponseData.OffsetFetchResponseGroup rg =
                new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId(g.groupId()).setErrorCode(Errors.NONE.code());
            resp.groups().add(rg);
            final Map<String, List<Integer>> asked = asked(g.topics() == null ? null : g.topics().stream()
                .map(t -> Map.entry(t.name(), t.partitionIndexes())).toList());
            all.add(coordinator(g.groupId()).fetchOffsets(g.groupId(), asked).thenAccept(found ->
            {
                rg.setErrorCode(found.error().code());
                found.offsets().forEach((topic, parts) ->
                {
                    final OffsetFetchResponseData.OffsetFetchResponseTopics t =
                        new OffsetFetchResponseData.OffsetFetchResponseTopics().setName(topic);
                    parts.forEach((p, c) -> t.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                        .setPartitionIndex(p).setCommittedOffset(c.offset()).setCommittedLeaderEpoch(c.leaderEpoch())
                        .setMetadata(c.metadata()).setErrorCode(Errors.NONE.code())));
                    rg.topics().add(t);
                });
            }));
        }
        return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).thenApply(v -> resp);
    }

    /**
     * OffsetFetch up to v7 when this node does not coordinate the group: the error at the top (v2+) and on every
     * partition asked for (v1 has no top-level error).
     */
    private static OffsetFetchResponseData refusedV7(final OffsetFetchResponseData resp,
        final Map<String, List<Integer>> asked, final Errors error, final short version)
    {
        if (version >= 2)
        {
            resp.setErrorCode(error.code());
        }
        if (asked != null)
        {
            asked.forEach((topic, parts) ->
            {
                final OffsetFetchResponseData.OffsetFetchResponseTopic t =
                    new OffsetFetchResponseData.OffsetFetchResponseTopic().setName(topic);
                parts.forEach(p -> t.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartition()
                    .setPartitionIndex(p).setCommittedOffset(-1).setMetadata("").setErrorCode(error.code())));
                resp.topics().add(t);
            });
        }
        return resp;
    }

    private static Map<String, List<Integer>> asked(final List<Map.Entry<String, List<Integer>>> topics)
    {
        if (topics == null)
        {
            return null;
        }
        final Map<String, List<Integer>> m = new LinkedHashMap<>();
        topics.forEach(e -> m.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).addAll(e.getValue()));
        return m;
    }
}
