package io.directlog.broker.protocol;

import java.util.Map;

import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterConfigsResponse;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.DescribeTopicPartitionsResponse;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.LeaveGroupResponse;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.SyncGroupResponse;

/**
 * The error codes a response carries, counted as Kafka's broker counts them for its ErrorsPerSec meter: kafka-clients'
 * {@code AbstractResponse.errorCounts()} over the response body (per partition, per topic or per group where the API
 * has such errors; NONE counts successes). The body is wrapped, not copied or encoded again.
 * <p>
 * Stateless; thread-safe.
 */
public final class ResponseErrors
{
    private ResponseErrors()
    {
    }

    /**
     * @param key      the API.
     * @param version  the response's version (some responses read their errors differently per version).
     * @param response the response body.
     * @return each error code in it and how often it occurs; empty for an API this broker does not serve.
     */
    public static Map<Errors, Integer> count(final ApiKeys key, final short version, final ApiMessage response)
    {
        final AbstractResponse wrapped = wrap(key, version, response);
        return wrapped == null ? Map.of() : wrapped.errorCounts();
    }

    private static AbstractResponse wrap(final ApiKeys key, final short version, final ApiMessage r)
    {
        return switch (key)
        {
            case PRODUCE -> new ProduceResponse((ProduceResponseData)r);
            case FETCH -> FetchResponse.of((FetchResponseData)r);
            case LIST_OFFSETS -> new ListOffsetsResponse((ListOffsetsResponseData)r);
            case METADATA -> new MetadataResponse((MetadataResponseData)r, version);
            case OFFSET_COMMIT -> new OffsetCommitResponse((OffsetCommitResponseData)r);
            case OFFSET_FETCH -> new OffsetFetchResponse((OffsetFetchResponseData)r, version);
            case FIND_COORDINATOR -> new FindCoordinatorResponse((FindCoordinatorResponseData)r);
            case JOIN_GROUP -> new JoinGroupResponse((JoinGroupResponseData)r, version);
            case HEARTBEAT -> new HeartbeatResponse((HeartbeatResponseData)r);
            // the one-argument form: the versioned one insists that a v0-2 body hold one member, which ours (the error
            // at the top, as those versions carry it) does not
            case LEAVE_GROUP -> new LeaveGroupResponse((LeaveGroupResponseData)r);
            case SYNC_GROUP -> new SyncGroupResponse((SyncGroupResponseData)r);
            case DESCRIBE_GROUPS -> new DescribeGroupsResponse((DescribeGroupsResponseData)r);
            case LIST_GROUPS -> new ListGroupsResponse((ListGroupsResponseData)r);
            case API_VERSIONS -> new ApiVersionsResponse((ApiVersionsResponseData)r);
            case CREATE_TOPICS -> new CreateTopicsResponse((CreateTopicsResponseData)r);
            case DELETE_TOPICS -> new DeleteTopicsResponse((DeleteTopicsResponseData)r);
            case INIT_PRODUCER_ID -> new InitProducerIdResponse((InitProducerIdResponseData)r);
            case DELETE_GROUPS -> new DeleteGroupsResponse((DeleteGroupsResponseData)r);
            case DESCRIBE_CONFIGS -> new DescribeConfigsResponse((DescribeConfigsResponseData)r);
            case ALTER_CONFIGS -> new AlterConfigsResponse((AlterConfigsResponseData)r);
            case INCREMENTAL_ALTER_CONFIGS -> new IncrementalAlterConfigsResponse((IncrementalAlterConfigsResponseData)r);
            case CREATE_PARTITIONS -> new CreatePartitionsResponse((CreatePartitionsResponseData)r);
            case DESCRIBE_CLUSTER -> new DescribeClusterResponse((DescribeClusterResponseData)r);
            case DESCRIBE_TOPIC_PARTITIONS -> new DescribeTopicPartitionsResponse((DescribeTopicPartitionsResponseData)r);
            case OFFSET_FOR_LEADER_EPOCH -> new OffsetsForLeaderEpochResponse((OffsetForLeaderEpochResponseData)r);
            default -> null;
        };
    }
}
