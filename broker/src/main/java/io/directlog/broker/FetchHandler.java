package io.directlog.broker;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

import io.directlog.broker.network.RequestContext;
import io.directlog.broker.protocol.KafkaRecords;
import io.directlog.broker.protocol.PinnedRecords;
import io.directlog.broker.protocol.ResponseEncoder;
import io.directlog.broker.topic.Partition;
import io.directlog.broker.topic.Topic;
import io.directlog.broker.topic.TopicRegistry;
import io.directlog.storage.LogClosedException;
import io.directlog.storage.OffsetOutOfRangeException;
import io.directlog.storage.StorageException;
import io.netty.util.concurrent.ScheduledFuture;

/**
 * Fetch: serves stored batches from the one holding the fetch offset (clients drop the records before their
 * position), at least one whole batch for the first partition with data even over the byte limits (KIP-74). A
 * response always lists every requested partition (the Java client rejects a full response that lacks one), and
 * fetch sessions are declined (session id 0), so clients keep sending full requests.
 * <p>
 * Reads run on the connection's I/O lane ({@link RequestContext#io()}), never on the event loop: a read of a
 * segment that is not resident is a pread.
 * <p>
 * Long poll: when fewer than {@code min.bytes} are ready, the request parks on its partitions' next acknowledged
 * append, and on a {@code max.wait.ms} timer of the connection's event loop; whichever comes first runs the read
 * again on the I/O lane. No thread waits while parked and nothing polls, and the lane is free for the connection's
 * later requests meanwhile.
 * <p>
 * Thread-safe.
 */
final class FetchHandler
{
    private final TopicRegistry topics;

    FetchHandler(final TopicRegistry topics)
    {
        this.topics = topics;
    }

    CompletableFuture<ApiMessage> handle(final RequestContext request)
    {
        final ParkedFetch fetch = new ParkedFetch(request, (FetchRequestData)request.body());
        request.io().execute(() -> fetch.attempt(false));
        return fetch.result;
    }

    /**
     * One Fetch request until answered. Its attempts run on the connection's I/O lane, one at a time (the lane is
     * serial), so its fields are confined to the lane; the wake-up and the timer only hand an attempt to the lane.
     */
    private final class ParkedFetch
    {
        final RequestContext request;
        final FetchRequestData req;
        final CompletableFuture<ApiMessage> result = new CompletableFuture<>();
        final AtomicBoolean woken = new AtomicBoolean();
        final List<Partition> parkedOn = new ArrayList<>();
        final Runnable wakeUp = this::onAppend;
        ScheduledFuture<?> timer;

        ParkedFetch(final RequestContext request, final FetchRequestData req)
        {
            this.request = request;
            this.req = req;
        }

        /** On a writer thread: hop to the I/O lane, once per parking. */
        private void onAppend()
        {
            if (woken.compareAndSet(false, true))
            {
                onLane(false);
            }
        }

        private void onLane(final boolean timedOut)
        {
            try
            {
                request.io().execute(() -> attempt(timedOut));
            }
            catch (final java.util.concurrent.RejectedExecutionException e)
            {
                result.completeExceptionally(e); // the broker is closing
            }
        }

        void attempt(final boolean timedOut)
        {
            try
            {
                tryComplete(timedOut);
            }
            catch (final RuntimeException e)
            {
                // never leave a Fetch unanswered: the connection's later responses queue behind it
                unpark();
                if (timer != null)
                {
                    timer.cancel(false);
                }
                result.completeExceptionally(e);
            }
        }

        private void tryComplete(final boolean timedOut)
        {
            if (result.isDone())
            {
                return;
            }
            unpark();
            final List<Partition> partitions = new ArrayList<>();
            final FetchResponseData resp = read(partitions);
            final int bytes = bytes(resp);
            if (timedOut || req.maxWaitMs() <= 0 || bytes >= Math.max(1, req.minBytes()) || hasError(resp) ||
                partitions.isEmpty() || !request.channel().isActive())
            {
                if (timer != null)
                {
                    timer.cancel(false);
                }
                if (!result.complete(resp))
                {
                    ResponseEncoder.releasePinned(resp);
                }
                return;
            }
            ResponseEncoder.releasePinned(resp); // parked: read again when woken
            woken.set(false);
            for (final Partition p : partitions)
            {
                p.onNextAppend(wakeUp);
                parkedOn.add(p);
            }
            if (timer == null)
            {
                timer = request.executor().schedule(() -> onLane(true), req.maxWaitMs(), TimeUnit.MILLISECONDS);
            }
            // an append acknowledged between the read and the registration has woken nobody: look once more
            for (final Partition p : partitions)
            {
                if (p.highWatermark() > requestedOffset(p))
                {
                    onAppend();
                    break;
                }
            }
        }

        private void unpark()
        {
            for (final Partition p : parkedOn)
            {
                p.removeListener(wakeUp);
            }
            parkedOn.clear();
        }

        private long requestedOffset(final Partition p)
        {
            for (final FetchRequestData.FetchTopic ft : req.topics())
            {
                for (final FetchRequestData.FetchPartition fp : ft.partitions())
                {
                    if (fp.partition() == p.index() && p.topic().equals(topicName(ft)))
                    {
                        return fp.fetchOffset();
                    }
                }
            }
            return Long.MAX_VALUE;
        }

        private String topicName(final FetchRequestData.FetchTopic ft)
        {
            if (request.version() >= 13)
            {
                final Topic t = topics.topic(ft.topicId());
                return t == null ? null : t.name();
            }
            return ft.topic();
        }

        private FetchResponseData read(final List<Partition> partitions)
        {
            final FetchResponseData resp = new FetchResponseData().setErrorCode(Errors.NONE.code()).setSessionId(0);
            try
            {
                readInto(resp, partitions);
                return resp;
            }
            catch (final RuntimeException e)
            {
                ResponseEncoder.releasePinned(resp);
                throw e;
            }
        }

        private void readInto(final FetchResponseData resp, final List<Partition> partitions)
        {
            final short version = request.version();
            int budget = req.maxBytes() <= 0 ? Integer.MAX_VALUE : req.maxBytes();
            boolean first = true;
            for (final FetchRequestData.FetchTopic ft : req.topics())
            {
                final Topic topic = version >= 13 ? topics.topic(ft.topicId()) : topics.topic(ft.topic());
                final FetchResponseData.FetchableTopicResponse tr = new FetchResponseData.FetchableTopicResponse()
                    .setTopic(ft.topic()).setTopicId(ft.topicId() == null ? Uuid.ZERO_UUID : ft.topicId());
                resp.responses().add(tr);
                for (final FetchRequestData.FetchPartition fp : ft.partitions())
                {
                    final FetchResponseData.PartitionData pd = new FetchResponseData.PartitionData()
                        .setPartitionIndex(fp.partition()).setHighWatermark(-1).setLastStableOffset(-1)
                        .setLogStartOffset(-1).setRecords(KafkaRecords.empty());
                    tr.partitions().add(pd);
                    final Partition p = topic == null ? null : topic.partition(fp.partition());
                    if (p == null)
                    {
                        pd.setErrorCode((version >= 13 && topic == null ? Errors.UNKNOWN_TOPIC_ID :
                            Errors.UNKNOWN_TOPIC_OR_PARTITION).code());
                        continue;
                    }
                    // consumers fetch from the leader (no KIP-392 follower fetching yet); from v9 a fetch names the
                    // epoch it expects, so a client behind a leader change is fenced instead of served
                    final Errors epochError = LeaderEpochHandler.check(p, version >= 9 ? fp.currentLeaderEpoch() : -1);
                    if (epochError != Errors.NONE)
                    {
                        pd.setErrorCode(epochError.code());
                        continue;
                    }
                    final long hw = p.highWatermark();
                    final long start = p.logStartOffset();
                    pd.setHighWatermark(hw).setLastStableOffset(hw).setLogStartOffset(start);
                    if (fp.fetchOffset() < start || fp.fetchOffset() > hw)
                    {
                        pd.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code());
                        continue;
                    }
                    partitions.add(p);
                    final int limit = Math.min(fp.partitionMaxBytes() <= 0 ? Integer.MAX_VALUE : fp.partitionMaxBytes(),
                        budget);
                    if (fp.fetchOffset() == hw || (limit <= 0 && !first))
                    {
                        continue;
                    }
                    final PinnedRecords batches;
                    try
                    {
                        batches = p.read(fp.fetchOffset(), Math.max(limit, 1));
                    }
                    catch (final OffsetOutOfRangeException e)
                    {
                        pd.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code());
                        continue;
                    }
                    catch (final LogClosedException e)
                    {
                        pd.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()); // deleted while fetched
                        continue;
                    }
                    catch (final StorageException e)
                    {
                        pd.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code());
                        continue;
                    }
                    if (version < 10 && batches.containsZstd())
                    {
                        batches.release();
                        pd.setErrorCode(Errors.UNSUPPORTED_COMPRESSION_TYPE.code());
                        continue;
                    }
                    pd.setErrorCode(Errors.NONE.code()).setRecords(batches);
                    if (batches.sizeInBytes() > 0)
                    {
                        first = false;
                        budget -= batches.sizeInBytes();
                    }
                }
            }
        }

        private static int bytes(final FetchResponseData resp)
        {
            int total = 0;
            for (final FetchResponseData.FetchableTopicResponse tr : resp.responses())
            {
                for (final FetchResponseData.PartitionData pd : tr.partitions())
                {
                    total += KafkaRecords.sizeInBytes(pd.records());
                }
            }
            return total;
        }

        private static boolean hasError(final FetchResponseData resp)
        {
            for (final FetchResponseData.FetchableTopicResponse tr : resp.responses())
            {
                for (final FetchResponseData.PartitionData pd : tr.partitions())
                {
                    if (pd.errorCode() != Errors.NONE.code())
                    {
                        return true;
                    }
                }
            }
            return false;
        }
    }
}
