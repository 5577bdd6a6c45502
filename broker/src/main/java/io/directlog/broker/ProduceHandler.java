package io.directlog.broker;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;

import io.directlog.broker.network.RequestContext;
import io.directlog.broker.protocol.KafkaRecords;
import io.directlog.broker.topic.Partition;
import io.directlog.broker.topic.Topic;
import io.directlog.broker.topic.TopicRegistry;

/**
 * Produce: each partition's batch is validated, stamped and appended as it arrived; the response waits until every
 * partition's append is durable under its topic's durability. acks=0 appends the same way and sends nothing back
 * (the client expects no response; a stray one would shift its correlation). With one node, acks=1 and acks=all
 * are the same.
 * <p>
 * Thread-safe; runs on the connection's I/O lane (an append may wait for room in a full writer queue).
 */
final class ProduceHandler
{
    private final TopicRegistry topics;

    ProduceHandler(final TopicRegistry topics)
    {
        this.topics = topics;
    }

    CompletableFuture<ApiMessage> handle(final RequestContext request)
    {
        final ProduceRequestData req = (ProduceRequestData)request.body();
        final short version = request.version();
        final ProduceResponseData resp = new ProduceResponseData();
        final List<CompletableFuture<?>> appends = new ArrayList<>();
        final boolean badAcks = req.acks() != 0 && req.acks() != 1 && req.acks() != -1;
        for (final ProduceRequestData.TopicProduceData td : req.topicData())
        {
            final Topic topic = version >= 13 ? topics.topic(td.topicId()) : topics.topic(td.name());
            final ProduceResponseData.TopicProduceResponse tr = new ProduceResponseData.TopicProduceResponse()
                .setName(td.name()).setTopicId(td.topicId() == null ? Uuid.ZERO_UUID : td.topicId());
            resp.responses().add(tr);
            for (final ProduceRequestData.PartitionProduceData pd : td.partitionData())
            {
                final ProduceResponseData.PartitionProduceResponse pr = new ProduceResponseData.PartitionProduceResponse()
                    .setIndex(pd.index()).setBaseOffset(-1).setLogAppendTimeMs(-1).setLogStartOffset(-1);
                tr.partitionResponses().add(pr);
                final Partition p = topic == null ? null : topic.partition(pd.index());
                if (badAcks)
                {
                    pr.setErrorCode(Errors.INVALID_REQUIRED_ACKS.code());
                    continue;
                }
                if (p == null)
                {
                    pr.setErrorCode((topic == null && version >= 13 ? Errors.UNKNOWN_TOPIC_ID :
                        Errors.UNKNOWN_TOPIC_OR_PARTITION).code());
                    continue;
                }
                final ByteBuffer batch;
                try
                {
                    batch = KafkaRecords.validate(pd.records(), topic.config().maxMessageBytes(), version);
                }
                catch (final KafkaRecords.InvalidBatchException e)
                {
                    pr.setErrorCode(e.error().code()).setErrorMessage(e.getMessage());
                    continue;
                }
                appends.add(p.append(batch).handle((offset, error) ->
                {
                    if (error == null)
                    {
                        pr.setErrorCode(Errors.NONE.code()).setBaseOffset(offset).setLogStartOffset(p.logStartOffset());
                    }
                    else
                    {
                        final Throwable cause = error instanceof CompletionException && error.getCause() != null ?
                            error.getCause() : error;
                        final Errors code = Errors.forException(cause);
                        pr.setErrorCode((code == Errors.UNKNOWN_SERVER_ERROR ? Errors.KAFKA_STORAGE_ERROR : code).code())
                            .setErrorMessage(cause.getMessage());
                    }
                    return null;
                }));
            }
        }
        if (req.acks() == 0)
        {
            return null;
        }
        return CompletableFuture.allOf(appends.toArray(new CompletableFuture<?>[0])).thenApply(v -> resp);
    }
}
