package io.directlog.broker.topic;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.protocol.Errors;

/**
 * Idempotent-producer state of one partition, with Kafka's rules (KIP-98, {@code ProducerAppendInfo}): per
 * producer id the epoch and the last five batches' sequence ranges and offsets. A batch whose sequences match a
 * cached one is a retry and is answered with the original offsets; a gap is {@code OUT_OF_ORDER_SEQUENCE_NUMBER};
 * an older epoch is {@code INVALID_PRODUCER_EPOCH}; a newer epoch must start at sequence 0. A producer with no
 * state here (new, or forgotten after a failed append) may start at any sequence, as Kafka accepts.
 * <p>
 * Rebuilt at open from the batch headers the partition stores (they carry producer id, epoch and sequences).
 * <p>
 * Not thread-safe; guarded by its partition's lock.
 */
final class ProducerStateTable
{
    /** Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN; the Java producer keeps at most 5 requests in flight. */
    static final int BATCHES_RETAINED = 5;

    /** A cached batch: its sequences and the future of its base offset (done once it is durable). */
    record CachedBatch(int firstSeq, int lastSeq, CompletableFuture<Long> baseOffset)
    {
    }

    /** The check's outcome: accept (null duplicate, NONE), a duplicate, or an error. */
    record Check(Errors error, CachedBatch duplicate)
    {
        static final Check ACCEPT = new Check(Errors.NONE, null);
    }

    private static final class Entry
    {
        short epoch;
        final ArrayDeque<CachedBatch> batches = new ArrayDeque<>();
    }

    private final Map<Long, Entry> entries = new HashMap<>();

    Check check(final long producerId, final short epoch, final int firstSeq, final int lastSeq)
    {
        final Entry e = entries.get(producerId);
        if (e == null)
        {
            return Check.ACCEPT;
        }
        if (epoch < e.epoch)
        {
            return new Check(Errors.INVALID_PRODUCER_EPOCH, null);
        }
        if (epoch > e.epoch)
        {
            return firstSeq == 0 ? Check.ACCEPT : new Check(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, null);
        }
        for (final CachedBatch b : e.batches)
        {
            if (b.firstSeq == firstSeq && b.lastSeq == lastSeq)
            {
                return new Check(Errors.NONE, b);
            }
        }
        final CachedBatch last = e.batches.peekLast();
        if (last != null && firstSeq != nextSequence(last.lastSeq))
        {
            return new Check(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, null);
        }
        return Check.ACCEPT;
    }

    void record(final long producerId, final short epoch, final int firstSeq, final int lastSeq,
        final CompletableFuture<Long> baseOffset)
    {
        final Entry e = entries.computeIfAbsent(producerId, id -> new Entry());
        if (epoch != e.epoch)
        {
            e.batches.clear();
            e.epoch = epoch;
        }
        e.batches.addLast(new CachedBatch(firstSeq, lastSeq, baseOffset));
        while (e.batches.size() > BATCHES_RETAINED)
        {
            e.batches.pollFirst();
        }
    }

    void clear()
    {
        entries.clear();
    }

    /** Sequences wrap from Integer.MAX_VALUE to 0 (DefaultRecordBatch.incrementSequence). */
    static int nextSequence(final int sequence)
    {
        return sequence == Integer.MAX_VALUE ? 0 : sequence + 1;
    }
}
