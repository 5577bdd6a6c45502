package io.directlog.broker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListOffsetsRequest;

import io.directlog.broker.group.GroupApis;
import io.directlog.broker.network.RequestContext;
import io.directlog.broker.network.RequestHandler;
import io.directlog.broker.protocol.SupportedApis;
import io.directlog.broker.topic.Partition;
import io.directlog.broker.topic.Topic;
import io.directlog.broker.topic.TopicConfig;
import io.directlog.broker.topic.TopicRegistry;

/**
 * Routes each request to its implementation, and implements the topic and cluster APIs: ApiVersions, Metadata,
 * CreateTopics, DeleteTopics, CreatePartitions, DescribeConfigs, DescribeCluster, ListOffsets, InitProducerId
 * (AlterConfigs and IncrementalAlterConfigs in {@link AlterConfigsHandler}, OffsetForLeaderEpoch in
 * {@link LeaderEpochHandler}).
 * Produce and Fetch live in {@link ProduceHandler} and {@link FetchHandler}, groups in {@link GroupApis}.
 * <p>
 * Requests that change topics run on the broker's admin thread (they write the metadata log and create files).
 * Produce, Fetch and ListOffsets run on the connection's I/O lane ({@link RequestContext#io()}): an append waits
 * for room when the engine's writer queue is full, and a read of a cold segment is a pread, and neither may hold
 * the event loop that serves other connections. The others run on the event loop: they only read memory.
 * <p>
 * Thread-safe.
 */
final class KafkaApis implements RequestHandler
{
    private final BrokerConfig config;
    private final TopicRegistry topics;
    private final Executor admin;
    private final ProduceHandler produce;
    private final FetchHandler fetch;
    private final GroupApis groups;
    private final AlterConfigsHandler alterConfigs;
    private final LeaderEpochHandler leaderEpochs;

    KafkaApis(final BrokerConfig config, final TopicRegistry topics, final Executor admin, final GroupApis groups)
    {
        this.config = config;
        this.topics = topics;
        this.admin = admin;
        this.produce = new ProduceHandler(topics);
        this.fetch = new FetchHandler(topics);
        this.groups = groups;
        this.alterConfigs = new AlterConfigsHandler(topics);
        this.leaderEpochs = new LeaderEpochHandler(topics);
    }

    @Override
    public CompletableFuture<ApiMessage> handle(final RequestContext request)
    {
        final ApiMessage body = request.body();
        return switch (request.header().apiKey())
        {
            case API_VERSIONS -> done(SupportedApis.apiVersionsResponse());
            case METADATA -> metadata(request, (MetadataRequestData)body);
            case PRODUCE -> produce(request, (ProduceRequestData)body);
            case FETCH -> fetch.handle(request);
            case LIST_OFFSETS -> onIo(request, () -> done(listOffsets(request.version(), (ListOffsetsRequestData)body)));
            case OFFSET_FOR_LEADER_EPOCH -> onIo(request,
                () -> done(leaderEpochs.handle((OffsetForLeaderEpochRequestData)body)));
            case CREATE_TOPICS -> onAdmin(() -> createTopics(request.version(), (CreateTopicsRequestData)body));
            case DELETE_TOPICS -> onAdmin(() -> deleteTopics(request.version(), (DeleteTopicsRequestData)body));
            case CREATE_PARTITIONS -> onAdmin(() -> createPartitions((CreatePartitionsRequestData)body));
            case DESCRIBE_CONFIGS -> done(describeConfigs((DescribeConfigsRequestData)body));
            case ALTER_CONFIGS -> onAdmin(() -> alterConfigs.alter((AlterConfigsRequestData)body));
            case INCREMENTAL_ALTER_CONFIGS ->
                onAdmin(() -> alterConfigs.incrementalAlter((IncrementalAlterConfigsRequestData)body));
            case DESCRIBE_CLUSTER -> done(describeCluster());
            case DESCRIBE_TOPIC_PARTITIONS -> done(describeTopicPartitions((DescribeTopicPartitionsRequestData)body));
            case INIT_PRODUCER_ID -> onAdmin(() -> initProducerId((InitProducerIdRequestData)body));
            default -> groups.handle(request);
        };
    }

    private static CompletableFuture<ApiMessage> done(final ApiMessage response)
    {
        return CompletableFuture.completedFuture(response);
    }

    /**
     * Runs a handler on the connection's I/O lane. Its future completes with the handler's response (for Produce:
     * once the appends it queued are acknowledged); the lane is free again as soon as the handler returns.
     */
    private static CompletableFuture<ApiMessage> onIo(final RequestContext request,
        final java.util.function.Supplier<CompletableFuture<ApiMessage>> handler)
    {
        final CompletableFuture<CompletableFuture<ApiMessage>> started =
            CompletableFuture.supplyAsync(handler, request.io());
        return started.thenCompose(f -> f);
    }

    private CompletableFuture<ApiMessage> produce(final RequestContext request, final ProduceRequestData req)
    {
        if (req.acks() == 0)
        {
            // no response, and none may be queued: the client does not expect one (it would shift the correlation)
            request.io().execute(() -> produce.handle(request));
            return null;
        }
        return onIo(request, () -> produce.handle(request));
    }

    private interface AdminTask
    {
        ApiMessage run();
    }

    private CompletableFuture<ApiMessage> onAdmin(final AdminTask task)
    {
        return CompletableFuture.supplyAsync(task::run, admin);
    }

    // ---------------------------------------------------------------- Metadata

    private CompletableFuture<ApiMessage> metadata(final RequestContext request, final MetadataRequestData req)
    {
        final boolean all = req.topics() == null || (request.version() == 0 && req.topics().isEmpty());
        // a cluster's topics are declared on every node (ClusterConfig): a topic made on one node alone would not exist
        final boolean allowCreate = config.cluster() == null && config.autoCreateTopics() &&
            (request.version() < 4 || req.allowAutoTopicCreation());
        if (!all && allowCreate)
        {
            for (final MetadataRequestData.MetadataRequestTopic t : req.topics())
            {
                if (t.name() != null && topics.topic(t.name()) == null)
                {
                    return onAdmin(() -> metadataResponse(request.version(), req, false, true));
                }
            }
        }
        return done(metadataResponse(request.version(), req, all, false));
    }

    private MetadataResponseData metadataResponse(final short version, final MetadataRequestData req,
        final boolean all, final boolean create)
    {
        final MetadataResponseData resp = new MetadataResponseData()
            .setClusterId(config.clusterId())
            .setControllerId(config.nodeId());
        if (config.cluster() == null)
        {
            resp.brokers().add(new MetadataResponseData.MetadataResponseBroker()
                .setNodeId(config.nodeId()).setHost(config.host()).setPort(port()));
        }
        else
        {
            resp.setControllerId(config.cluster().coordinator().id());
            for (final ClusterConfig.Node n : config.cluster().nodes())
            {
                resp.brokers().add(new MetadataResponseData.MetadataResponseBroker()
                    .setNodeId(n.id()).setHost(n.host()).setPort(n.kafkaPort()));
            }
        }
        if (all)
        {
            for (final Topic t : topics.topics())
            {
                resp.topics().add(topicMetadata(t));
            }
            return resp;
        }
        for (final MetadataRequestData.MetadataRequestTopic rt : req.topics())
        {
            Topic t = rt.name() != null ? topics.topic(rt.name()) : topics.topic(rt.topicId());
            if (t == null && rt.name() == null)
            {
                resp.topics().add(new MetadataResponseData.MetadataResponseTopic()
                    .setTopicId(rt.topicId()).setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
                continue;
            }
            if (t == null)
            {
                try
                {
                    TopicRegistry.validateName(rt.name());
                }
                catch (final ApiException e)
                {
                    resp.topics().add(new MetadataResponseData.MetadataResponseTopic()
                        .setName(rt.name()).setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code()));
                    continue;
                }
                if (create)
                {
                    t = autoCreate(rt.name());
                }
            }
            if (t == null)
            {
                resp.topics().add(new MetadataResponseData.MetadataResponseTopic()
                    .setName(rt.name()).setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                continue;
            }
            resp.topics().add(topicMetadata(t));
        }
        return resp;
    }

    private Topic autoCreate(final String name)
    {
        try
        {
            return topics.create(name, config.numPartitions(), Map.of(), false);
        }
        catch (final org.apache.kafka.common.errors.TopicExistsException e)
        {
            return topics.topic(name);
        }
    }

    private MetadataResponseData.MetadataResponseTopic topicMetadata(final Topic t)
    {
        final MetadataResponseData.MetadataResponseTopic mt = new MetadataResponseData.MetadataResponseTopic()
            .setName(t.name()).setTopicId(t.id()).setIsInternal(false).setErrorCode(Errors.NONE.code());
        for (final Partition p : t.partitions())
        {
            final int leader = p.leaderNodeId(config.nodeId());
            mt.partitions().add(new MetadataResponseData.MetadataResponsePartition()
                .setPartitionIndex(p.index())
                .setLeaderId(leader)
                .setLeaderEpoch(p.leaderEpoch())
                .setReplicaNodes(replicaNodes())
                .setIsrNodes(replicaNodes())
                .setErrorCode((leader < 0 ? Errors.LEADER_NOT_AVAILABLE : Errors.NONE).code()));
        }
        return mt;
    }

    /**
     * Every node holds every partition. The in-sync set is reported as all of them: Raft's commit needs a majority,
     * not all, so Kafka's ISR has no exact counterpart here (docs/replication.md).
     */
    private List<Integer> replicaNodes()
    {
        if (config.cluster() == null)
        {
            return List.of(config.nodeId());
        }
        final List<Integer> ids = new ArrayList<>();
        config.cluster().nodes().forEach(n -> ids.add(n.id()));
        return ids;
    }

    /** @return the error for a topic change in a cluster (topics are declared, not created), or null. */
    private ApiException clusterTopicChange()
    {
        return config.cluster() == null ? null : new org.apache.kafka.common.errors.PolicyViolationException(
            "this broker is a cluster node: its topics are declared with --topics on every node (there is no " +
            "metadata Raft group yet), so they cannot be created, deleted or changed through one node");
    }

    private int port = -1;

    void port(final int boundPort)
    {
        this.port = boundPort;
    }

    private int port()
    {
        return port;
    }

    // ---------------------------------------------------------------- CreateTopics, DeleteTopics, CreatePartitions

    private ApiMessage createTopics(final short version, final CreateTopicsRequestData req)
    {
        final CreateTopicsResponseData resp = new CreateTopicsResponseData();
        for (final CreateTopicsRequestData.CreatableTopic ct : req.topics())
        {
            final CreateTopicsResponseData.CreatableTopicResult r = new CreateTopicsResponseData.CreatableTopicResult()
                .setName(ct.name());
            try
            {
                if (clusterTopicChange() != null)
                {
                    throw clusterTopicChange();
                }
                if (ct.replicationFactor() > 1)
                {
                    throw new InvalidReplicationFactorException("Replication factor " + ct.replicationFactor() +
                        " is larger than the number of brokers (1).");
                }
                int partitions = ct.numPartitions() == -1 ? config.numPartitions() : ct.numPartitions();
                if (!ct.assignments().isEmpty())
                {
                    for (final CreateTopicsRequestData.CreatableReplicaAssignment a : ct.assignments())
                    {
                        if (!a.brokerIds().equals(List.of(config.nodeId())))
                        {
                            throw new InvalidReplicaAssignmentException("Replicas must be [" + config.nodeId() + "]");
                        }
                    }
                    partitions = ct.assignments().size();
                }
                final Map<String, String> configs = new HashMap<>();
                for (final CreateTopicsRequestData.CreatableTopicConfig c : ct.configs())
                {
                    configs.put(c.name(), c.value());
                }
                final Topic t;
                try
                {
                    t = topics.create(ct.name(), partitions, configs, req.validateOnly());
                }
                catch (final IllegalArgumentException e)
                {
                    throw new InvalidConfigurationException(e.getMessage());
                }
                r.setErrorCode(Errors.NONE.code()).setNumPartitions(partitions).setReplicationFactor((short)1);
                if (t != null)
                {
                    r.setTopicId(t.id());
                    if (version >= 5)
                    {
                        t.config().all().forEach((k, v) -> r.configs().add(
                            new CreateTopicsResponseData.CreatableTopicConfigs().setName(k).setValue(v)
                                .setConfigSource((byte)(t.config().explicit().containsKey(k) ? 1 : 5))));
                    }
                }
            }
            catch (final ApiException e)
            {
                r.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
            }
            resp.topics().add(r);
        }
        return resp;
    }

    private ApiMessage deleteTopics(final short version, final DeleteTopicsRequestData req)
    {
        final DeleteTopicsResponseData resp = new DeleteTopicsResponseData();
        final List<String> names = new ArrayList<>(req.topicNames());
        final List<Uuid> ids = new ArrayList<>();
        for (final DeleteTopicsRequestData.DeleteTopicState s : req.topics())
        {
            if (s.name() != null)
            {
                names.add(s.name());
            }
            else
            {
                ids.add(s.topicId());
            }
        }
        if (clusterTopicChange() != null)
        {
            for (final String name : names)
            {
                resp.responses().add(new DeleteTopicsResponseData.DeletableTopicResult().setName(name)
                    .setErrorCode(Errors.POLICY_VIOLATION.code()).setErrorMessage(clusterTopicChange().getMessage()));
            }
            for (final Uuid id : ids)
            {
                resp.responses().add(new DeleteTopicsResponseData.DeletableTopicResult().setTopicId(id)
                    .setErrorCode(Errors.POLICY_VIOLATION.code()).setErrorMessage(clusterTopicChange().getMessage()));
            }
            return resp;
        }
        for (final String name : names)
        {
            final Topic t = topics.delete(name);
            resp.responses().add(new DeleteTopicsResponseData.DeletableTopicResult().setName(name)
                .setTopicId(t == null ? Uuid.ZERO_UUID : t.id())
                .setErrorCode((t == null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.NONE).code()));
        }
        for (final Uuid id : ids)
        {
            final Topic known = topics.topic(id);
            final Topic t = known == null ? null : topics.delete(known.name());
            resp.responses().add(new DeleteTopicsResponseData.DeletableTopicResult()
                .setName(t == null ? null : t.name()).setTopicId(id)
                .setErrorCode((t == null ? Errors.UNKNOWN_TOPIC_ID : Errors.NONE).code()));
        }
        return resp;
    }

    private ApiMessage createPartitions(final CreatePartitionsRequestData req)
    {
        final CreatePartitionsResponseData resp = new CreatePartitionsResponseData();
        for (final CreatePartitionsRequestData.CreatePartitionsTopic t : req.topics())
        {
            final CreatePartitionsResponseData.CreatePartitionsTopicResult r =
                new CreatePartitionsResponseData.CreatePartitionsTopicResult().setName(t.name());
            try
            {
                if (clusterTopicChange() != null)
                {
                    throw clusterTopicChange();
                }
                topics.createPartitions(t.name(), t.count(), req.validateOnly());
                r.setErrorCode(Errors.NONE.code());
            }
            catch (final ApiException e)
            {
                r.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
            }
            resp.results().add(r);
        }
        return resp;
    }

    // ---------------------------------------------------------------- DescribeConfigs, DescribeCluster

    private static final byte RESOURCE_TOPIC = 2;
    private static final byte RESOURCE_BROKER = 4;
    private static final byte SOURCE_TOPIC = 1;
    private static final byte SOURCE_STATIC_BROKER = 4;
    private static final byte SOURCE_DEFAULT = 5;

    private ApiMessage describeConfigs(final DescribeConfigsRequestData req)
    {
        final DescribeConfigsResponseData resp = new DescribeConfigsResponseData();
        for (final DescribeConfigsRequestData.DescribeConfigsResource res : req.resources())
        {
            final DescribeConfigsResponseData.DescribeConfigsResult r = new DescribeConfigsResponseData.DescribeConfigsResult()
                .setResourceType(res.resourceType()).setResourceName(res.resourceName()).setErrorCode(Errors.NONE.code());
            if (res.resourceType() == RESOURCE_TOPIC)
            {
                final Topic t = topics.topic(res.resourceName());
                if (t == null)
                {
                    r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).setErrorMessage("Topic '" +
                        res.resourceName() + "' does not exist.");
                }
                else
                {
                    final TopicConfig tc = t.config();
                    tc.all().forEach((k, v) -> addConfig(r, res, k, v,
                        tc.explicit().containsKey(k) ? SOURCE_TOPIC : SOURCE_DEFAULT,
                        TopicConfig.SEGMENT_BYTES.equals(k))); // fixed with the logs at creation
                }
            }
            else if (res.resourceType() == RESOURCE_BROKER)
            {
                final Map<String, String> broker = new java.util.LinkedHashMap<>();
                broker.put("auto.create.topics.enable", Boolean.toString(config.autoCreateTopics()));
                broker.put("num.partitions", Integer.toString(config.numPartitions()));
                broker.put("socket.request.max.bytes", Integer.toString(config.socketRequestMaxBytes()));
                broker.put("message.max.bytes", Integer.toString(TopicConfig.MAX_MESSAGE_BYTES_DEFAULT));
                broker.put("log.segment.bytes", Integer.toString(config.segmentBytes()));
                broker.put("directlog.durability", config.durability().name());
                broker.put("default.replication.factor", Integer.toString(replicaNodes().size()));
                broker.put("offsets.topic.replication.factor", Integer.toString(replicaNodes().size()));
                broker.put("offsets.topic.num.partitions", Integer.toString(config.cluster() == null ? 1 :
                    config.cluster().offsetsPartitions()));
                broker.forEach((k, v) -> addConfig(r, res, k, v, SOURCE_STATIC_BROKER, true));
            }
            else
            {
                r.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("resource type " + res.resourceType() +
                    " is not supported");
            }
            resp.results().add(r);
        }
        return resp;
    }

    private static void addConfig(final DescribeConfigsResponseData.DescribeConfigsResult r,
        final DescribeConfigsRequestData.DescribeConfigsResource res, final String name, final String value,
        final byte source, final boolean readOnly)
    {
        if (res.configurationKeys() == null || res.configurationKeys().contains(name))
        {
            r.configs().add(new DescribeConfigsResponseData.DescribeConfigsResourceResult()
                .setName(name).setValue(value).setReadOnly(readOnly).setConfigSource(source).setIsSensitive(false));
        }
    }

    private ApiMessage describeCluster()
    {
        final DescribeClusterResponseData resp = new DescribeClusterResponseData()
            .setClusterId(config.clusterId()).setControllerId(config.nodeId()).setErrorCode(Errors.NONE.code());
        if (config.cluster() == null)
        {
            resp.brokers().add(new DescribeClusterResponseData.DescribeClusterBroker()
                .setBrokerId(config.nodeId()).setHost(config.host()).setPort(port()));
            return resp;
        }
        resp.setControllerId(config.cluster().coordinator().id());
        for (final ClusterConfig.Node n : config.cluster().nodes())
        {
            resp.brokers().add(new DescribeClusterResponseData.DescribeClusterBroker()
                .setBrokerId(n.id()).setHost(n.host()).setPort(n.kafkaPort()));
        }
        return resp;
    }

    /**
     * DescribeTopicPartitions (KIP-966): topics sorted by name (all of them for an empty list), at most
     * {@code responsePartitionLimit} partitions, then a cursor where the next page starts.
     */
    private ApiMessage describeTopicPartitions(final DescribeTopicPartitionsRequestData req)
    {
        final DescribeTopicPartitionsResponseData resp = new DescribeTopicPartitionsResponseData();
        final java.util.TreeSet<String> names = new java.util.TreeSet<>();
        if (req.topics().isEmpty())
        {
            topics.topics().forEach(t -> names.add(t.name()));
        }
        else
        {
            req.topics().forEach(t -> names.add(t.name()));
        }
        final DescribeTopicPartitionsRequestData.Cursor cursor = req.cursor();
        int budget = req.responsePartitionLimit() <= 0 ? 2000 : req.responsePartitionLimit();
        for (final String name : cursor == null ? names : names.tailSet(cursor.topicName(), true))
        {
            final Topic t = topics.topic(name);
            final DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic rt =
                new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic().setName(name)
                    .setIsInternal(false);
            if (t == null)
            {
                resp.topics().add(rt.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).setTopicId(Uuid.ZERO_UUID));
                continue;
            }
            rt.setErrorCode(Errors.NONE.code()).setTopicId(t.id());
            final int first = cursor != null && name.equals(cursor.topicName()) ? cursor.partitionIndex() : 0;
            for (int i = first; i < t.partitions().size(); i++)
            {
                if (budget-- == 0)
                {
                    resp.topics().add(rt);
                    return resp.setNextCursor(new DescribeTopicPartitionsResponseData.Cursor().setTopicName(name)
                        .setPartitionIndex(i));
                }
                final Partition p = t.partitions().get(i);
                rt.partitions().add(new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition()
                    .setErrorCode(Errors.NONE.code()).setPartitionIndex(i).setLeaderId(p.leaderNodeId(config.nodeId()))
                    .setLeaderEpoch(p.leaderEpoch()).setReplicaNodes(replicaNodes())
                    .setIsrNodes(replicaNodes()).setEligibleLeaderReplicas(List.of())
                    .setLastKnownElr(List.of()).setOfflineReplicas(List.of()));
            }
            resp.topics().add(rt);
        }
        return resp;
    }

    // ---------------------------------------------------------------- ListOffsets, InitProducerId

    private ApiMessage listOffsets(final short version, final ListOffsetsRequestData req)
    {
        final ListOffsetsResponseData resp = new ListOffsetsResponseData();
        for (final ListOffsetsRequestData.ListOffsetsTopic rt : req.topics())
        {
            final ListOffsetsResponseData.ListOffsetsTopicResponse tr =
                new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(rt.name());
            final Topic t = topics.topic(rt.name());
            for (final ListOffsetsRequestData.ListOffsetsPartition rp : rt.partitions())
            {
                final ListOffsetsResponseData.ListOffsetsPartitionResponse pr =
                    new ListOffsetsResponseData.ListOffsetsPartitionResponse().setPartitionIndex(rp.partitionIndex());
                final Partition p = t == null ? null : t.partition(rp.partitionIndex());
                final Errors error = LeaderEpochHandler.check(p, version >= 4 ? rp.currentLeaderEpoch() : -1);
                if (error != Errors.NONE)
                {
                    pr.setErrorCode(error.code());
                }
                else
                {
                    listOffset(version, p, rp.timestamp(), pr);
                }
                tr.partitions().add(pr);
            }
            resp.topics().add(tr);
        }
        return resp;
    }

    private static void listOffset(final short version, final Partition p, final long timestamp,
        final ListOffsetsResponseData.ListOffsetsPartitionResponse pr)
    {
        pr.setErrorCode(Errors.NONE.code()).setTimestamp(-1);
        if (version >= 4)
        {
            pr.setLeaderEpoch(p.leaderEpoch()); // not ignorable: below v4 a non-default epoch cannot be written
        }
        if (timestamp == ListOffsetsRequest.EARLIEST_TIMESTAMP || timestamp == ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP)
        {
            pr.setOffset(p.logStartOffset());
        }
        else if (timestamp == ListOffsetsRequest.LATEST_TIMESTAMP || timestamp == ListOffsetsRequest.LATEST_TIERED_TIMESTAMP)
        {
            pr.setOffset(timestamp == ListOffsetsRequest.LATEST_TIMESTAMP ? p.highWatermark() : -1);
        }
        else if (timestamp == ListOffsetsRequest.MAX_TIMESTAMP)
        {
            final long[] found = p.maxTimestamp();
            pr.setOffset(found == null ? -1 : found[0]).setTimestamp(found == null ? -1 : found[1]);
        }
        else if (timestamp >= 0)
        {
            final long[] found = p.offsetForTimestamp(timestamp);
            pr.setOffset(found == null ? -1 : found[0]).setTimestamp(found == null ? -1 : found[1]);
        }
        else
        {
            pr.setErrorCode(Errors.UNSUPPORTED_VERSION.code()).setOffset(-1);
        }
        if (version == 0)
        {
            pr.setErrorCode(Errors.UNSUPPORTED_VERSION.code());
        }
    }

    private ApiMessage initProducerId(final InitProducerIdRequestData req)
    {
        final InitProducerIdResponseData resp = new InitProducerIdResponseData();
        if (req.transactionalId() != null)
        {
            // transactions are not served: a transactional producer fails at init instead of later
            return resp.setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code()).setProducerId(-1)
                .setProducerEpoch((short)-1);
        }
        // Kafka gives an idempotent producer (no transactional id) a new id with epoch 0 every time
        final long id = topics.nextProducerId();
        // in a cluster each node hands out ids from its own metadata log: its node id in the high bits keeps the
        // nodes' ranges apart (a producer's id must be unique on every partition it writes to)
        return resp.setErrorCode(Errors.NONE.code()).setProducerId(config.cluster() == null ? id :
            ((long)(config.nodeId() + 1) << 40) | id).setProducerEpoch((short)0);
    }
}
