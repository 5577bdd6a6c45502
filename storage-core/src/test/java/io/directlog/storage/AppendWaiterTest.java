package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AppendWaiterTest
{
    private static UnsafeBuffer payload(final String text)
    {
        return new UnsafeBuffer(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void appendReturnsTheOffsetOnceTheRecordIsReadable() throws Exception
    {
        try (LogStore store = LogStore.open(TestStores.store(TestDirs.create("waiter-basic")).build()))
        {
            final Log log = store.log("a");
            final AppendWaiter waiter = new AppendWaiter();
            for (int i = 0; i < 100; i++)
            {
                final UnsafeBuffer record = payload("record-" + i);
                assertEquals(i, waiter.append(log, record, 0, record.capacity(), Durability.DSYNC));
                // DSYNC on a DSYNC log: acknowledged means written, so already visible to readers
                try (RecordBatch batch = log.read(i, 1 << 16))
                {
                    final Record first = batch.iterator().next();
                    assertEquals(i, first.offset());
                    assertArrayEquals(record.byteArray(), first.payloadBytes());
                }
            }
        }
    }

    @Test
    void batchAppendTakesItsRecordCountInOffsets() throws Exception
    {
        try (LogStore store = LogStore.open(TestStores.store(TestDirs.create("waiter-batch")).build()))
        {
            final Log log = store.log("a");
            final AppendWaiter waiter = new AppendWaiter();
            final UnsafeBuffer batch = payload("three records");
            assertEquals(0, waiter.append(log, batch, 0, batch.capacity(), 3, Durability.DIRECT));
            assertEquals(3, waiter.append(log, batch, 0, batch.capacity(), 1, Durability.MEMORY));
            assertEquals(4, log.endOffset());
        }
    }

    @Test
    void waiterThatParksAtOnceIsAlwaysWokenWithManyProducers() throws Exception
    {
        // zero spin: every wait goes through the park/unpark handshake; a lost wake-up would hang (the timeout)
        final int producers = 8;
        final int perProducer = 2_000;
        try (LogStore store = LogStore.open(TestStores.store(TestDirs.create("waiter-park")).build()))
        {
            final Log log = store.log("a");
            final ExecutorService pool = Executors.newFixedThreadPool(producers);
            try
            {
                final List<Future<long[]>> results = new ArrayList<>();
                for (int p = 0; p < producers; p++)
                {
                    final Durability durability = Durability.values()[p % 3];
                    results.add(pool.submit(() ->
                    {
                        final AppendWaiter waiter = new AppendWaiter(Duration.ZERO, Duration.ZERO);
                        final UnsafeBuffer record = payload("x".repeat(100));
                        final long[] offsets = new long[perProducer];
                        for (int i = 0; i < perProducer; i++)
                        {
                            offsets[i] = waiter.append(log, record, 0, record.capacity(), durability);
                        }
                        assertEquals(0, waiter.spinBudgetNanos());
                        return offsets;
                    }));
                }
                final Set<Long> seen = new HashSet<>();
                for (final Future<long[]> result : results)
                {
                    long previous = -1;
                    for (final long offset : result.get())
                    {
                        assertTrue(offset > previous, "a producer's offsets grow: " + offset + " after " + previous);
                        previous = offset;
                        assertTrue(seen.add(offset), "offset " + offset + " given twice");
                    }
                }
                assertEquals((long)producers * perProducer, seen.size());
                assertEquals((long)producers * perProducer, log.endOffset());
            }
            finally
            {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void spinBudgetFollowsRecentWaitsWithinItsBounds() throws Exception
    {
        final AppendWaiter fresh = new AppendWaiter(Duration.ofNanos(50_000), Duration.ofMillis(1));
        assertEquals(50_000, fresh.spinBudgetNanos());
        try (LogStore store = LogStore.open(TestStores.store(TestDirs.create("waiter-budget")).build()))
        {
            final Log log = store.log("a");
            final UnsafeBuffer record = payload("r");
            final AppendWaiter waiter = new AppendWaiter(Duration.ofNanos(1_000), Duration.ofNanos(2_000));
            for (int i = 0; i < 50; i++)
            {
                waiter.append(log, record, 0, record.capacity(), Durability.DSYNC);
            }
            // a DSYNC append takes a device write (far above 2 us here): the budget sits at its upper bound
            assertEquals(2_000, waiter.spinBudgetNanos());
            assertTrue(waiter.parks() > 0, "waits longer than the budget park");
        }
    }

    @Test
    void failedAppendThrowsTheEnginesException() throws Exception
    {
        try (LogStore store = LogStore.open(TestStores.store(TestDirs.create("waiter-closed")).build()))
        {
            final Log log = store.log("a");
            final AppendWaiter waiter = new AppendWaiter();
            final UnsafeBuffer record = payload("r");
            assertEquals(0, waiter.append(log, record, 0, record.capacity(), Durability.DIRECT));
            final UnsafeBuffer tooLarge = new UnsafeBuffer(new byte[2 << 20]);
            assertThrows(RecordTooLargeException.class,
                () -> waiter.append(log, tooLarge, 0, tooLarge.capacity(), Durability.DIRECT));
            log.close();
            assertThrows(LogClosedException.class,
                () -> waiter.append(log, record, 0, record.capacity(), Durability.DIRECT));
        }
    }

    @Test
    void interruptDuringTheWaitIsKeptAndTheAppendStillCompletes() throws Exception
    {
        try (LogStore store = LogStore.open(TestStores.store(TestDirs.create("waiter-interrupt")).build()))
        {
            final Log log = store.log("a");
            final AppendWaiter waiter = new AppendWaiter(Duration.ZERO, Duration.ZERO);
            final UnsafeBuffer record = payload("r");
            Thread.currentThread().interrupt();
            try
            {
                assertEquals(0, waiter.append(log, record, 0, record.capacity(), Durability.DSYNC));
                assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept");
            }
            finally
            {
                Thread.interrupted();
            }
            assertEquals(1, log.endOffset());
        }
    }

    @Test
    void badSpinBoundsAreRefusedWithTheirValues()
    {
        final IllegalArgumentException inverted = assertThrows(IllegalArgumentException.class,
            () -> new AppendWaiter(Duration.ofMillis(2), Duration.ofMillis(1)));
        assertTrue(inverted.getMessage().contains("minSpin=PT0.002S"), inverted.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new AppendWaiter(Duration.ofNanos(-1), Duration.ZERO));
    }
}
