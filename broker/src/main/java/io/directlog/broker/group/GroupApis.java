package io.directlog.broker.group;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;

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
 * The group APIs on the wire: FindCoordinator (this node coordinates every group) and the version-dependent shapes
 * of OffsetFetch (one group up to v7, a list from v8), routed to the {@link GroupCoordinator}.
 * <p>
 * Thread-safe.
 */
public final class GroupApis
{
    private static final byte KEY_TYPE_GROUP = 0;

    private final GroupCoordinator coordinator;
    private final int nodeId;
    private final String host;
    private final IntSupplier port;

    /**
     * @param coordinator the coordinator.
     * @param nodeId      this node's id.
     * @param host        the advertised host.
     * @param port        the bound port, once known.
     */
    public GroupApis(final GroupCoordinator coordinator, final int nodeId, final String host, final IntSupplier port)
    {
        this.coordinator = coordinator;
        this.nodeId = nodeId;
        this.host = host;
        this.port = port;
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
            case JOIN_GROUP -> up(coordinator.join((JoinGroupRequestData)body, v, request.header().clientId(),
                request.clientHost()));
            case SYNC_GROUP -> up(coordinator.sync((SyncGroupRequestData)body, v));
            case HEARTBEAT -> up(coordinator.heartbeat((HeartbeatRequestData)body));
            case LEAVE_GROUP -> up(coordinator.leave((LeaveGroupRequestData)body, v));
            case OFFSET_COMMIT -> up(coordinator.commit((OffsetCommitRequestData)body));
            case OFFSET_FETCH -> offsetFetch((OffsetFetchRequestData)body, v);
            case DESCRIBE_GROUPS -> up(coordinator.describe(((DescribeGroupsRequestData)body).groups())
                .thenApply(groups ->
                {
                    final DescribeGroupsResponseData resp = new DescribeGroupsResponseData();
                    resp.groups().addAll(groups);
                    return resp;
                }));
            case LIST_GROUPS -> up(coordinator.list((ListGroupsRequestData)body));
            case DELETE_GROUPS -> up(coordinator.delete(((DeleteGroupsRequestData)body).groupsNames()));
            default -> CompletableFuture.failedFuture(new UnsupportedVersionException(
                "API " + request.header().apiKey() + " is not served"));
        };
    }

    private static <T extends ApiMessage> CompletableFuture<ApiMessage> up(final CompletableFuture<T> f)
    {
        return f.thenApply(m -> m);
    }

    private FindCoordinatorResponseData findCoordinator(final FindCoordinatorRequestData req, final short version)
    {
        final FindCoordinatorResponseData resp = new FindCoordinatorResponseData();
        if (version < 4)
        {
            final Errors e = req.keyType() == KEY_TYPE_GROUP ? Errors.NONE : Errors.COORDINATOR_NOT_AVAILABLE;
            return resp.setErrorCode(e.code()).setNodeId(e == Errors.NONE ? nodeId : -1)
                .setHost(e == Errors.NONE ? host : "").setPort(e == Errors.NONE ? port.getAsInt() : -1);
        }
        for (final String key : req.coordinatorKeys())
        {
            final Errors e = req.keyType() == KEY_TYPE_GROUP ? Errors.NONE : Errors.COORDINATOR_NOT_AVAILABLE;
            resp.coordinators().add(new FindCoordinatorResponseData.Coordinator().setKey(key).setErrorCode(e.code())
                .setNodeId(e == Errors.NONE ? nodeId : -1).setHost(e == Errors.NONE ? host : "")
                .setPort(e == Errors.NONE ? port.getAsInt() : -1));
        }
        return resp;
    }

    private CompletableFuture<ApiMessage> offsetFetch(final OffsetFetchRequestData req, final short version)
    {
        if (version < 8)
        {
            final Map<String, List<Integer>> asked = asked(req.topics() == null ? null : req.topics().stream()
                .map(t -> Map.entry(t.name(), t.partitionIndexes())).toList());
            return coordinator.fetchOffsets(req.groupId(), asked).thenApply(found ->
            {
                final OffsetFetchResponseData resp = new OffsetFetchResponseData().setErrorCode(Errors.NONE.code());
                found.forEach((topic, parts) ->
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
            all.add(coordinator.fetchOffsets(g.groupId(), asked).thenAccept(found -> found.forEach((topic, parts) ->
            {
                final OffsetFetchResponseData.OffsetFetchResponseTopics t =
                    new OffsetFetchResponseData.OffsetFetchResponseTopics().setName(topic);
                parts.forEach((p, c) -> t.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                    .setPartitionIndex(p).setCommittedOffset(c.offset()).setCommittedLeaderEpoch(c.leaderEpoch())
                    .setMetadata(c.metadata()).setErrorCode(Errors.NONE.code())));
                rg.topics().add(t);
            })));
        }
        return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).thenApply(v -> resp);
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
