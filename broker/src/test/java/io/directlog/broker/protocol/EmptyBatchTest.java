package io.directlog.broker.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Iterator;

import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;

/** {@link KafkaRecords#emptyBatch}: the batch that moves a consumer over offsets no record holds. */
class EmptyBatchTest
{
    @Test
    void anEmptyBatchIsAValidBatchWhoseNextOffsetIsAfterTheRange()
    {
        final ByteBuffer bytes = KafkaRecords.emptyBatch(112, 2_999, 7);
        assertEquals(KafkaRecords.BATCH_HEADER_LENGTH, bytes.remaining());
        final Iterator<MutableRecordBatch> batches = MemoryRecords.readableRecords(bytes).batches().iterator();
        final MutableRecordBatch b = batches.next();
        assertFalse(batches.hasNext());
        b.ensureValid(); // size and CRC, as a consumer with check.crcs checks them
        assertEquals(112, b.baseOffset());
        assertEquals(2_999, b.lastOffset());
        assertEquals(3_000, b.nextOffset(), "where kafka-clients moves the position");
        assertEquals(0, b.countOrNull());
        assertEquals(7, b.partitionLeaderEpoch());
        assertFalse(b.isControlBatch());
        assertFalse(b.isTransactional());
        assertFalse(b.iterator().hasNext(), "no record for the application");
        assertFalse(KafkaRecords.containsZstd(bytes));
    }

    @Test
    void aSingleOffsetAndTheWidestRangeFit()
    {
        assertEquals(6, MemoryRecords.readableRecords(KafkaRecords.emptyBatch(5, 5, 0)).batches().iterator().next()
            .nextOffset());
        final long base = 1L << 40;
        assertEquals(base + Integer.MAX_VALUE + 1, MemoryRecords.readableRecords(
            KafkaRecords.emptyBatch(base, base + Integer.MAX_VALUE, 0)).batches().iterator().next().nextOffset());
    }

    @Test
    void aRangeTheHeaderCannotHoldIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> KafkaRecords.emptyBatch(10, 9, 0));
        assertThrows(IllegalArgumentException.class, () -> KafkaRecords.emptyBatch(-1, 3, 0));
        assertThrows(IllegalArgumentException.class,
            () -> KafkaRecords.emptyBatch(0, (long)Integer.MAX_VALUE + 1, 0));
    }
}
