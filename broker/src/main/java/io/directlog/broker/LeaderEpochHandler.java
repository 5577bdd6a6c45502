package io.directlog.broker;

import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.Errors;

import io.directlog.broker.topic.Partition;
import io.directlog.broker.topic.Topic;
import io.directlog.broker.topic.TopicRegistry;

/**
 * OffsetForLeaderEpoch (API 23, KIP-101 and KIP-320): a consumer that saw a leader change asks the new leader where
 * the epoch of its position ends, to detect a truncated log before it fetches on. Served by the partition's leader
 * from the epochs stamped in the batches; the current leader epoch the client sends fences stale clients
 * (FENCED_LEADER_EPOCH) and stale brokers (UNKNOWN_LEADER_EPOCH) as in Kafka.
 * <p>
 * Thread-safe; runs on a connection's I/O lane (a first question per partition reads its log).
 */
final class LeaderEpochHandler
{
    private final TopicRegistry topics;

    LeaderEpochHandler(final TopicRegistry topics)
    {
        this.topics = topics;
    }

    OffsetForLeaderEpochResponseData handle(final OffsetForLeaderEpochRequestData req)
    {
        final OffsetForLeaderEpochResponseData resp = new OffsetForLeaderEpochResponseData();
        for (final OffsetForLeaderEpochRequestData.OffsetForLeaderTopic t : req.topics())
        {
            final OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult rt =
                new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic(t.topic());
            final Topic topic = topics.topic(t.topic());
            for (final OffsetForLeaderEpochRequestData.OffsetForLeaderPartition p : t.partitions())
            {
                final OffsetForLeaderEpochResponseData.EpochEndOffset r =
                    new OffsetForLeaderEpochResponseData.EpochEndOffset().setPartition(p.partition())
                        .setLeaderEpoch(-1).setEndOffset(-1);
                final Partition partition = topic == null ? null : topic.partition(p.partition());
                Errors error = check(partition, p.currentLeaderEpoch());
                if (error == Errors.NONE)
                {
                    try
                    {
                        final long[] found = partition.endOffsetForEpoch(p.leaderEpoch());
                        r.setLeaderEpoch((int)found[0]).setEndOffset(found[1]);
                    }
                    catch (final ApiException e)
                    {
                        error = Errors.forException(e); // retriable: the client asks again
                    }
                }
                rt.partitions().add(r.setErrorCode(error.code()));
            }
            resp.topics().add(rt);
        }
        return resp;
    }

    /**
     * Kafka's check of a request's current leader epoch against this replica ({@code Partition.getLocalLog}), for
     * OffsetForLeaderEpoch, Fetch (v9+) and ListOffsets (v4+).
     *
     * @param partition          the partition, or null when this broker has none of that name.
     * @param currentLeaderEpoch the epoch the client believes current, -1 for none (older versions): no fencing.
     * @return NONE, or the error to answer: UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER,
     *         FENCED_LEADER_EPOCH (the client's epoch is older: it refreshes its metadata) or UNKNOWN_LEADER_EPOCH
     *         (newer: this broker has not caught up with the election yet).
     */
    static Errors check(final Partition partition, final int currentLeaderEpoch)
    {
        if (partition == null)
        {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        if (!partition.isLeader())
        {
            return Errors.NOT_LEADER_OR_FOLLOWER;
        }
        final int epoch = partition.leaderEpoch();
        if (currentLeaderEpoch >= 0 && currentLeaderEpoch > epoch)
        {
            return Errors.UNKNOWN_LEADER_EPOCH; // the client knows a newer leader than this broker does
        }
        if (currentLeaderEpoch >= 0 && currentLeaderEpoch < epoch)
        {
            return Errors.FENCED_LEADER_EPOCH; // the client's metadata is stale: it refreshes and asks again
        }
        return Errors.NONE;
    }
}
