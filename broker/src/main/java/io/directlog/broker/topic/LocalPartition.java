package io.directlog.broker.topic;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.protocol.Errors;

import io.directlog.broker.protocol.KafkaRecords;
import io.directlog.broker.protocol.PinnedRecords;
import io.directlog.storage.Log;
import io.directlog.storage.LogReader;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.StoredRecord;

/**
 * One topic partition on a single node: a DirectLog log holding each produced Kafka batch as one append of its record count.
 * <p>
 * Offsets are stamped into a batch before it is appended, so the partition predicts the engine's offsets: it keeps
 * the next offset itself, counting appends that are queued but not yet written. If an append fails the
 * prediction is no longer trusted: new appends are refused (retriable) until the queued ones are done, and the
 * next offset is taken from the log again.
 * <p>
 * Appends are acknowledged with the log's own durability, under which an acknowledged record is already visible to
 * readers: the acknowledgement is also the wake-up of Fetch requests parked on this partition.
 * <p>
 * Thread-safe: appends and lookups take the partition's lock; the engine's completion callbacks (on the log's writer
 * thread) take no lock, so an append blocked on a full writer queue while holding it cannot stall them.
 */
public final class LocalPartition implements Partition
{
    /** The leader epoch of every partition: one node, never re-elected. */
    public static final int LEADER_EPOCH = 0;

    private static final System.Logger LOG = System.getLogger(LocalPartition.class.getName());

    private final String topic;
    private final int index;
    private final Log log;
    private final Object lock = new Object();
    private final BatchIndex batches = new BatchIndex();
    private final ProducerStateTable producers = new ProducerStateTable();
    private final AppendListeners appendListeners = new AppendListeners();
    private long nextOffset;
    private final AtomicInteger pending = new AtomicInteger();
    private volatile boolean resync;

    private LocalPartition(final String topic, final int index, final Log log)
    {
        this.topic = topic;
        this.index = index;
        this.log = log;
    }

    /**
     * Opens a partition over its log, rebuilding the time index and the producer state from the stored batch
     * headers.
     *
     * @param topic the topic's name.
     * @param index the partition number.
     * @param log   the partition's log.
     * @return the partition.
     */
    static LocalPartition open(final String topic, final int index, final Log log)
    {
        final LocalPartition p = new LocalPartition(topic, index, log);
        final long end = log.endOffset();
        try (LogReader reader = log.reader(log.startOffset()))
        {
            StoredRecord r;
            while (reader.position() < end && (r = reader.next()) != null)
            {
                final KafkaRecords.BatchHeader h = KafkaRecords.header(ByteBuffer.wrap(r.payload()));
                p.batches.add(r.offset(), h.maxTimestamp());
                if (h.hasProducerId())
                {
                    p.producers.record(h.producerId(), h.producerEpoch(), h.baseSequence(), h.lastSequence(),
                        CompletableFuture.completedFuture(r.offset()));
                }
            }
        }
        p.nextOffset = end;
        return p;
    }

    /** @return the topic's name. */
    @Override
    public String topic()
    {
        return topic;
    }

    /** @return the partition number. */
    @Override
    public int index()
    {
        return index;
    }

    /** @return the partition's log. */
    public Log log()
    {
        return log;
    }

    /** @return the high watermark: the end of what readers see (one node: also the last stable offset). */
    @Override
    public long highWatermark()
    {
        return log.visibleEndOffset();
    }

    /** @return the log start offset (moves with retention). */
    @Override
    public long logStartOffset()
    {
        return log.startOffset();
    }

    /**
     * Appends one validated batch, stamping its base offset and leader epoch, after the idempotence checks.
     *
     * @param batch the batch (written in place by the stamp); copied by the engine before this returns.
     * @return the base offset once durable (a retried duplicate: the original's); fails with a Kafka ApiException.
     */
    @Override
    public CompletableFuture<Long> append(final ByteBuffer batch)
    {
        final KafkaRecords.BatchHeader h = KafkaRecords.header(batch);
        final CompletableFuture<Long> done = new CompletableFuture<>();
        final long base;
        synchronized (lock)
        {
            if (resync)
            {
                if (pending.get() > 0)
                {
                    return CompletableFuture.failedFuture(new NotLeaderOrFollowerException(
                        "partition " + topic + "-" + index + " is recovering from a failed append"));
                }
                nextOffset = log.endOffset();
                batches.truncate(nextOffset);
                producers.clear();
                resync = false;
            }
            if (h.hasProducerId())
            {
                final ProducerStateTable.Check check =
                    producers.check(h.producerId(), h.producerEpoch(), h.baseSequence(), h.lastSequence());
                if (check.error() != Errors.NONE)
                {
                    return CompletableFuture.failedFuture(check.error().exception());
                }
                if (check.duplicate() != null)
                {
                    return check.duplicate().baseOffset();
                }
            }
            base = nextOffset;
            KafkaRecords.stamp(batch, base, LEADER_EPOCH);
            if (h.hasProducerId())
            {
                producers.record(h.producerId(), h.producerEpoch(), h.baseSequence(), h.lastSequence(), done);
            }
            batches.add(base, h.maxTimestamp());
            nextOffset += h.recordCount();
            pending.incrementAndGet();
            log.append(new UnsafeBuffer(batch), 0, batch.remaining(), h.recordCount(), log.config().durability(),
                (offset, error) -> onAppended(base, offset, error, done));
        }
        return done;
    }

    /** On the log's writer thread (or the caller's when refused): must not block or take the lock. */
    private void onAppended(final long expected, final long offset, final Throwable error,
        final CompletableFuture<Long> done)
    {
        if (error != null || offset != expected)
        {
            LOG.log(System.Logger.Level.WARNING, "append to " + topic + "-" + index + " failed (offset " + offset +
                ", expected " + expected + ")", error);
            resync = true;
            done.completeExceptionally(error instanceof ApiException api ? api : new KafkaStorageException(
                "append to " + log.name() + " failed" + (error == null ? ": offset " + offset + " != " + expected :
                ": " + error), error));
        }
        else
        {
            done.complete(offset);
        }
        pending.decrementAndGet();
        appendListeners.wakeAll();
    }

    /**
     * Registers a one-shot wake-up for the next acknowledged append (parked Fetch requests). The listener runs on
     * the writer thread and must only hand work to another thread.
     *
     * @param listener what to run.
     */
    @Override
    public void onNextAppend(final Runnable listener)
    {
        appendListeners.add(listener);
    }

    /**
     * Removes a listener that is no longer needed.
     *
     * @param listener the listener registered.
     */
    @Override
    public void removeListener(final Runnable listener)
    {
        appendListeners.remove(listener);
    }

    /**
     * Reads whole stored batches from the one holding {@code offset}: at least one, then as many as fit. The
     * result views the memory the engine read them into (a cache page stays pinned, a disk read keeps its
     * buffer) until it is released: nothing is copied.
     *
     * @param offset   where to start; within [log start, high watermark].
     * @param maxBytes the budget; the first batch is returned even if larger (KIP-74).
     * @return the batches back to back, empty when {@code offset} is the high watermark, one empty batch over
     *         the offsets when no record follows {@code offset} below it ({@link #overHole}); the caller releases it.
     */
    @Override
    public PinnedRecords read(final long offset, final int maxBytes)
    {
        final long hw = log.visibleEndOffset();
        if (offset >= hw)
        {
            return new PinnedRecords(List.of(), () -> { });
        }
        final RecordBatch batch = log.read(offset, Math.max(1, maxBytes));
        try
        {
            if (batch.isEmpty())
            {
                batch.close();
                return overHole(offset, Math.min(batch.nextOffset(), hw));
            }
            final List<ByteBuffer> views = new ArrayList<>();
            int total = 0;
            for (final Record r : batch)
            {
                if (total > 0 && total + r.payloadLength() > maxBytes)
                {
                    break;
                }
                views.add(view(r.payload(), r.payloadLength()));
                total += r.payloadLength();
            }
            return new PinnedRecords(views, batch);
        }
        catch (final RuntimeException e)
        {
            batch.close();
            throw e;
        }
    }

    /**
     * What a Fetch at {@code offset} gets when no record follows it below the high watermark: the offsets up to
     * the engine's next offset belong to no record (a hole a TRUNCATE_AT_CORRUPTION recovery or a truncation left
     * at the log end, see {@link Log#read}). Without a batch the consumer's position would stay in the hole until
     * the next append, however many times it fetched; an empty batch over the hole moves it to the hole's end, as
     * the empty batches Kafka's log cleaner leaves move it over compacted offsets.
     *
     * @param offset where the fetch starts.
     * @param next   where the engine says the next record can be, capped at the high watermark.
     * @return the empty batch over {@code [offset, next)} (over its first 2^31 offsets when longer: the next fetch
     *         goes on), or nothing when {@code next} does not move past {@code offset}.
     */
    private static PinnedRecords overHole(final long offset, final long next)
    {
        if (next <= offset)
        {
            return new PinnedRecords(List.of(), () -> { });
        }
        final long last = Math.min(next - 1, offset + Integer.MAX_VALUE);
        return new PinnedRecords(List.of(KafkaRecords.emptyBatch(offset, last, LEADER_EPOCH)), () -> { });
    }

    /** A ByteBuffer over a record's payload, valid while its batch is open; a copy only if no Java object holds it. */
    private static ByteBuffer view(final DirectBuffer payload, final int length)
    {
        final byte[] array = payload.byteArray();
        if (array != null)
        {
            return ByteBuffer.wrap(array, payload.wrapAdjustment(), length).slice();
        }
        final ByteBuffer memory = payload.byteBuffer();
        if (memory != null)
        {
            final int at = payload.wrapAdjustment();
            return memory.duplicate().limit(at + length).position(at).slice();
        }
        final byte[] copy = new byte[length];
        payload.getBytes(0, copy);
        return ByteBuffer.wrap(copy);
    }

    /**
     * ListOffsets by time: the first offset whose record timestamp is at or after {@code timestamp} (KIP-79).
     *
     * @param timestamp epoch milliseconds.
     * @return {offset, timestamp}, or null when no record is that late.
     */
    @Override
    public long[] offsetForTimestamp(final long timestamp)
    {
        final long hw = log.visibleEndOffset();
        final long base;
        synchronized (lock)
        {
            base = batches.firstBatchReaching(timestamp, log.startOffset(), hw);
        }
        if (base < 0)
        {
            return null;
        }
        return KafkaRecords.firstRecordAtOrAfter(storedBatch(base), timestamp);
    }

    /** @return {offset, timestamp} of the record with the largest timestamp (KIP-734), or null when empty. */
    @Override
    public long[] maxTimestamp()
    {
        final long hw = log.visibleEndOffset();
        final long base;
        synchronized (lock)
        {
            base = batches.batchWithMaxTimestamp(hw);
        }
        if (base < 0 || base < log.startOffset())
        {
            return null;
        }
        return KafkaRecords.recordWithMaxTimestamp(storedBatch(base));
    }

    private ByteBuffer storedBatch(final long baseOffset)
    {
        try (RecordBatch batch = log.read(baseOffset, 1))
        {
            return ByteBuffer.wrap(batch.iterator().next().payloadBytes());
        }
    }

    @Override
    public int leaderEpoch()
    {
        return LEADER_EPOCH;
    }

    /** One leader, one epoch: every batch carries {@link #LEADER_EPOCH}, which ends at the high watermark. */
    @Override
    public long[] endOffsetForEpoch(final int epoch)
    {
        return LeaderEpochs.endOffsetFor(new java.util.TreeMap<>(), epoch, LEADER_EPOCH, highWatermark(),
            highWatermark());
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
    public String toString()
    {
        return topic + "-" + index;
    }
}
