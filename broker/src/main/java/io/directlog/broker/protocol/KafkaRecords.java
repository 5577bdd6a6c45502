package io.directlog.broker.protocol;

import java.nio.ByteBuffer;
import java.util.Iterator;

import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The one class that touches kafka-clients' record classes ({@code MemoryRecords}, {@code DefaultRecordBatch}).
 * They are internal Kafka API and moved package in 4.3 ({@code org.apache.kafka.common.record} to
 * {@code ...record.internal}): a codec upgrade that moves them again changes this class only.
 * <p>
 * A stored partition append is one Kafka record batch (magic 2) exactly as the producer sent it, with its base
 * offset and partition leader epoch stamped: both sit before the CRC's range (the CRC covers Attributes to the
 * end), so stamping never re-encodes or re-checksums the batch.
 * <p>
 * Stateless; thread-safe.
 */
public final class KafkaRecords
{
    /** Bytes of a magic-2 batch header: BaseOffset(8) Length(4) PartitionLeaderEpoch(4) Magic(1) CRC(4) ... Count(4). */
    public static final int BATCH_HEADER_LENGTH = DefaultRecordBatch.RECORD_BATCH_OVERHEAD;

    /** BaseOffset(8) Length(4) PartitionLeaderEpoch(4), then Magic: the same in every message format. */
    private static final int MAGIC_OFFSET = 16;

    private KafkaRecords()
    {
    }

    /** The header of one batch, read without decompressing it. */
    public record BatchHeader(int sizeInBytes, int recordCount, long maxTimestamp, long producerId,
        short producerEpoch, int baseSequence, int lastSequence, boolean compressedWithZstd)
    {
        /** @return true when the batch comes from an idempotent producer. */
        public boolean hasProducerId()
        {
            return producerId >= 0;
        }
    }

    /** A produced batch refused, with the Kafka error its partition is answered with. */
    public static final class InvalidBatchException extends Exception
    {
        private static final long serialVersionUID = 1L;
        private final transient Errors error;

        InvalidBatchException(final Errors error, final String message)
        {
            super(message, null, false, false);
            this.error = error;
        }

        /** @return the error code for the partition's response. */
        public Errors error()
        {
            return error;
        }
    }

    /**
     * Checks the records of one partition of a Produce request as Kafka's LogValidator does: exactly one batch,
     * magic 2, size and CRC, a record count that matches the last offset delta, no control or transactional batch,
     * a sequence when there is a producer id.
     *
     * @param records         the partition's records, a view of the request.
     * @param maxMessageBytes the topic's {@code max.message.bytes}.
     * @param produceVersion  the request's version (zstd needs 7+).
     * @return a buffer holding exactly the batch (its own position/limit, sharing the request's bytes).
     * @throws InvalidBatchException naming the error code.
     */
    public static ByteBuffer validate(final BaseRecords records, final int maxMessageBytes, final short produceVersion)
        throws InvalidBatchException
    {
        if (!(records instanceof MemoryRecords memory) || memory.sizeInBytes() == 0)
        {
            throw new InvalidBatchException(Errors.INVALID_RECORD, "no record batch");
        }
        final ByteBuffer buffer = memory.buffer();
        if (buffer.remaining() < BATCH_HEADER_LENGTH)
        {
            throw new InvalidBatchException(Errors.CORRUPT_MESSAGE, "shorter than a batch header");
        }
        final byte magic = buffer.get(buffer.position() + MAGIC_OFFSET);
        if (magic != RecordBatch.MAGIC_VALUE_V2)
        {
            throw new InvalidBatchException(Errors.INVALID_RECORD, "magic " + magic + ", only 2 is supported");
        }
        final Iterator<MutableRecordBatch> batches = memory.batches().iterator();
        final MutableRecordBatch batch;
        try
        {
            batch = batches.next();
            if (batches.hasNext())
            {
                throw new InvalidBatchException(Errors.INVALID_RECORD, "more than one batch for a partition");
            }
        }
        catch (final RuntimeException e)
        {
            throw new InvalidBatchException(Errors.CORRUPT_MESSAGE, "unreadable batch: " + e.getMessage());
        }
        if (batch.sizeInBytes() != memory.sizeInBytes())
        {
            throw new InvalidBatchException(Errors.CORRUPT_MESSAGE, "batch length " + batch.sizeInBytes() +
                " does not match the records' " + memory.sizeInBytes() + " bytes");
        }
        if (batch.sizeInBytes() > maxMessageBytes)
        {
            throw new InvalidBatchException(Errors.MESSAGE_TOO_LARGE, "batch of " + batch.sizeInBytes() +
                " bytes is over max.message.bytes " + maxMessageBytes);
        }
        try
        {
            batch.ensureValid();
        }
        catch (final RuntimeException e)
        {
            throw new InvalidBatchException(Errors.CORRUPT_MESSAGE, e.getMessage());
        }
        final Integer count = batch.countOrNull();
        final long lastOffsetDelta = batch.lastOffset() - batch.baseOffset();
        if (count == null || count < 1 || lastOffsetDelta != count - 1)
        {
            throw new InvalidBatchException(Errors.INVALID_RECORD, "record count " + count +
                " does not match last offset delta " + lastOffsetDelta);
        }
        if (batch.isControlBatch() || batch.isTransactional())
        {
            throw new InvalidBatchException(Errors.INVALID_RECORD, "control and transactional batches are not supported");
        }
        if (batch.hasProducerId() && batch.baseSequence() < 0)
        {
            throw new InvalidBatchException(Errors.INVALID_RECORD, "producer id without a sequence");
        }
        if (batch.compressionType() == CompressionType.ZSTD && produceVersion < 7)
        {
            throw new InvalidBatchException(Errors.UNSUPPORTED_COMPRESSION_TYPE, "zstd needs Produce v7+");
        }
        return buffer.slice(buffer.position(), batch.sizeInBytes());
    }

    /**
     * Reads a batch's header fields. The batch must hold a whole magic-2 batch (validated or stored).
     *
     * @param batch the batch bytes from its position.
     * @return its header.
     */
    public static BatchHeader header(final ByteBuffer batch)
    {
        final DefaultRecordBatch b = firstBatch(batch);
        final Integer count = b.countOrNull();
        return new BatchHeader(b.sizeInBytes(), count == null ? 0 : count, b.maxTimestamp(), b.producerId(),
            b.producerEpoch(), b.baseSequence(), b.lastSequence(), b.compressionType() == CompressionType.ZSTD);
    }

    /**
     * Stamps the base offset (BaseOffset = the batch's first offset) and the partition leader epoch; neither is
     * covered by the CRC.
     *
     * @param batch       the batch, written in place.
     * @param baseOffset  the offset of its first record.
     * @param leaderEpoch the partition leader epoch.
     */
    public static void stamp(final ByteBuffer batch, final long baseOffset, final int leaderEpoch)
    {
        final DefaultRecordBatch b = firstBatch(batch);
        final int count = b.countOrNull();
        b.setLastOffset(baseOffset + count - 1);
        b.setPartitionLeaderEpoch(leaderEpoch);
    }

    /**
     * The offset of the first record at or after a timestamp in one batch (decompresses it).
     *
     * @param batch     a stored batch.
     * @param timestamp epoch milliseconds.
     * @return the offset and that record's timestamp, or null when no record of the batch is that late.
     */
    public static long[] firstRecordAtOrAfter(final ByteBuffer batch, final long timestamp)
    {
        for (final Record r : firstBatch(batch))
        {
            if (r.timestamp() >= timestamp)
            {
                return new long[] {r.offset(), r.timestamp()};
            }
        }
        return null;
    }

    /**
     * The record holding a batch's largest timestamp (the first such one; decompresses the batch).
     *
     * @param batch a stored batch.
     * @return its offset and timestamp.
     */
    public static long[] recordWithMaxTimestamp(final ByteBuffer batch)
    {
        long offset = -1;
        long timestamp = -1;
        for (final Record r : firstBatch(batch))
        {
            if (offset < 0 || r.timestamp() > timestamp)
            {
                offset = r.offset();
                timestamp = r.timestamp();
            }
        }
        return new long[] {offset, timestamp};
    }

    /**
     * @param batches whole stored batches, back to back.
     * @return true when one of them is zstd-compressed (Fetch below v10 must refuse it).
     */
    public static boolean containsZstd(final ByteBuffer batches)
    {
        for (final MutableRecordBatch b : MemoryRecords.readableRecords(batches.duplicate()).batches())
        {
            if (b.compressionType() == CompressionType.ZSTD)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @param batches whole stored batches, back to back.
     * @return records for a Fetch response.
     */
    public static BaseRecords readable(final ByteBuffer batches)
    {
        return MemoryRecords.readableRecords(batches);
    }

    /**
     * A batch with no records that covers {@code [baseOffset, lastOffset]}: what Kafka's log cleaner keeps of a
     * batch whose every record was compacted away (its header still carries the last offset). Clients move their
     * fetch position past it to {@code lastOffset + 1} (kafka-clients' CompletedFetch takes the batch's next
     * offset, librdkafka its LastOffset + 1) and hand no record to the application, so it moves a consumer over
     * offsets no record holds.
     *
     * @param baseOffset  the first offset covered.
     * @param lastOffset  the last offset covered, at most {@code baseOffset + Integer.MAX_VALUE} (the header holds
     *                    the difference in an int).
     * @param leaderEpoch the partition leader epoch to stamp.
     * @return the batch's bytes, {@link #BATCH_HEADER_LENGTH} of them, with a valid CRC.
     * @throws IllegalArgumentException when the range is empty, negative or wider than an int delta.
     */
    public static ByteBuffer emptyBatch(final long baseOffset, final long lastOffset, final int leaderEpoch)
    {
        if (baseOffset < 0 || lastOffset < baseOffset || lastOffset - baseOffset > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("an empty batch cannot cover offsets [" + baseOffset + ", " +
                lastOffset + "]");
        }
        final ByteBuffer out = ByteBuffer.allocate(BATCH_HEADER_LENGTH);
        DefaultRecordBatch.writeEmptyHeader(out, RecordBatch.MAGIC_VALUE_V2, RecordBatch.NO_PRODUCER_ID,
            RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, baseOffset, lastOffset, leaderEpoch,
            TimestampType.CREATE_TIME, RecordBatch.NO_TIMESTAMP, false, false);
        return out.flip();
    }

    /** @return no records, for a partition with nothing to send. */
    public static BaseRecords empty()
    {
        return MemoryRecords.EMPTY;
    }

    /**
     * @param records records of a request or response.
     * @return their size in bytes (0 for null).
     */
    public static int sizeInBytes(final BaseRecords records)
    {
        return records == null ? 0 : records.sizeInBytes();
    }

    private static DefaultRecordBatch firstBatch(final ByteBuffer batch)
    {
        final Iterator<MutableRecordBatch> it = MemoryRecords.readableRecords(batch.duplicate()).batches().iterator();
        return (DefaultRecordBatch) it.next();
    }
}
