package io.directlog.broker.topic;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.apache.kafka.common.errors.KafkaStorageException;

import io.directlog.broker.protocol.PinnedRecords;

/**
 * A new single-node partition whose log is still being created in the background: CreateTopics is answered once
 * the topic's metadata event is durable, as Kafka's controller answers once the topic's records are committed and
 * leaves the brokers to create the logs, instead of after 1,000 log creations.
 * <p>
 * Until the log is open the partition is what a new log is: empty (high watermark and start 0, nothing to read or
 * look up). Appends are queued, each with a copy of its batch, and handed to the log in arrival order once it is
 * open (the idempotence checks then run in that order), so a producer waits instead of getting an error. Once
 * open, every call goes to the {@link LocalPartition}. If the log cannot be created, queued and later appends fail
 * with {@link KafkaStorageException} (retriable) and the next start creates it from the metadata log.
 * <p>
 * Thread-safe: the queue and the hand-over take the partition's lock; after the hand-over calls read one volatile.
 */
final class OpeningPartition implements Partition
{
    private record Queued(ByteBuffer batch, CompletableFuture<Long> done)
    {
    }

    private final String topic;
    private final int index;
    private final Object lock = new Object();
    private final ArrayDeque<Queued> queued = new ArrayDeque<>();
    private final AppendListeners listeners = new AppendListeners();
    private final CompletableFuture<LocalPartition> opened = new CompletableFuture<>();
    /** The open partition, set under the lock after the queued appends were handed to it. */
    private volatile LocalPartition log;
    private Throwable failure;

    OpeningPartition(final String topic, final int index)
    {
        this.topic = topic;
        this.index = index;
    }

    /**
     * Hands the queued appends to the open partition, in arrival order, then every later call; wakes the Fetch
     * requests parked here so that they park on the open partition.
     *
     * @param open the partition over the created log.
     */
    void opened(final LocalPartition open)
    {
        synchronized (lock)
        {
            for (Queued q = queued.poll(); q != null; q = queued.poll())
            {
                final CompletableFuture<Long> done = q.done();
                open.append(q.batch()).whenComplete((offset, error) ->
                {
                    if (error != null)
                    {
                        done.completeExceptionally(error instanceof CompletionException c ? c.getCause() : error);
                    }
                    else
                    {
                        done.complete(offset);
                    }
                });
            }
            log = open;
        }
        opened.complete(open);
        listeners.wakeAll();
    }

    /**
     * The log could not be created: queued and later appends fail.
     *
     * @param error why.
     */
    void failed(final Throwable error)
    {
        synchronized (lock)
        {
            failure = error;
            for (Queued q = queued.poll(); q != null; q = queued.poll())
            {
                q.done().completeExceptionally(storageError());
            }
        }
        opened.completeExceptionally(error);
        listeners.wakeAll();
    }

    /**
     * @return the open partition, once its log is created (waits for it).
     * @throws KafkaStorageException when the log could not be created.
     */
    LocalPartition awaitOpen()
    {
        try
        {
            return opened.join();
        }
        catch (final CompletionException e)
        {
            throw storageError();
        }
    }

    private KafkaStorageException storageError()
    {
        return new KafkaStorageException("the log of partition " + this + " could not be created: " + failure +
            " (it is created again at the next start)", failure);
    }

    @Override
    public CompletableFuture<Long> append(final ByteBuffer batch)
    {
        final LocalPartition open = log;
        if (open != null)
        {
            return open.append(batch);
        }
        synchronized (lock)
        {
            if (log != null)
            {
                return log.append(batch);
            }
            if (failure != null)
            {
                return CompletableFuture.failedFuture(storageError());
            }
            // the request's buffer is not ours after this returns
            final ByteBuffer copy = ByteBuffer.allocate(batch.remaining()).put(batch.duplicate()).flip();
            final CompletableFuture<Long> done = new CompletableFuture<>();
            queued.add(new Queued(copy, done));
            return done;
        }
    }

    @Override
    public String topic()
    {
        return topic;
    }

    @Override
    public int index()
    {
        return index;
    }

    @Override
    public long highWatermark()
    {
        final LocalPartition open = log;
        return open == null ? 0 : open.highWatermark();
    }

    @Override
    public long logStartOffset()
    {
        final LocalPartition open = log;
        return open == null ? 0 : open.logStartOffset();
    }

    @Override
    public int leaderEpoch()
    {
        return LocalPartition.LEADER_EPOCH;
    }

    @Override
    public int leaderNodeId(final int localNodeId)
    {
        return localNodeId;
    }

    @Override
    public boolean isLeader()
    {
        return true;
    }

    @Override
    public void onNextAppend(final Runnable listener)
    {
        final LocalPartition open = log;
        if (open != null)
        {
            open.onNextAppend(listener);
            return;
        }
        listeners.add(listener);
        if (log != null || opened.isDone())
        {
            listeners.wakeAll(); // opened meanwhile: the hand-over's wake-up may have run before the add
        }
    }

    @Override
    public void removeListener(final Runnable listener)
    {
        listeners.remove(listener);
        final LocalPartition open = log;
        if (open != null)
        {
            open.removeListener(listener);
        }
    }

    @Override
    public PinnedRecords read(final long offset, final int maxBytes)
    {
        final LocalPartition open = log;
        return open == null ? new PinnedRecords(List.of(), () -> { }) : open.read(offset, maxBytes);
    }

    @Override
    public long[] offsetForTimestamp(final long timestamp)
    {
        final LocalPartition open = log;
        return open == null ? null : open.offsetForTimestamp(timestamp);
    }

    @Override
    public long[] maxTimestamp()
    {
        final LocalPartition open = log;
        return open == null ? null : open.maxTimestamp();
    }

    @Override
    public long[] endOffsetForEpoch(final int epoch)
    {
        final LocalPartition open = log;
        return open != null ? open.endOffsetForEpoch(epoch) :
            LeaderEpochs.endOffsetFor(new TreeMap<>(), epoch, LocalPartition.LEADER_EPOCH, 0, 0);
    }

    @Override
    public String toString()
    {
        return topic + "-" + index;
    }
}
