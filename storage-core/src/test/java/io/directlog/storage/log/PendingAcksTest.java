package io.directlog.storage.log;

import java.util.ArrayList;
import java.util.List;

import io.directlog.storage.Durability;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Acknowledgements complete in offset order, and a DIRECT or DSYNC one only once a write covered its record. */
class PendingAcksTest
{
    private final List<Long> completed = new ArrayList<>();
    private final PendingAcks acks = new PendingAcks();

    private void add(final long offset, final Durability durability)
    {
        acks.add((o, e) -> completed.add(o), offset, durability, 10);
    }

    @Test
    void completeUpToStopsAtTheFirstDurableAppendNotYetWrittenAndMemoryOnesBehindItWait()
    {
        add(0, Durability.DSYNC);
        add(1, Durability.MEMORY);
        add(2, Durability.DIRECT);
        add(3, Durability.MEMORY);
        add(4, Durability.DSYNC);
        acks.completeUpTo(2); // records 0 and 1 written; 2 copied after the write
        assertEquals(List.of(0L, 1L), completed);
        assertEquals(2, acks.durable());
        assertEquals(1, acks.dsync());
        acks.completeUpTo(5);
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), completed);
        assertEquals(0, acks.durable());
        assertEquals(0, acks.dsync());
        assertEquals(5, acks.completed());
    }

    @Test
    void memoryAppendsCompleteWithoutAWrite()
    {
        add(7, Durability.MEMORY);
        add(8, Durability.MEMORY);
        acks.completeUpTo(0);
        assertEquals(List.of(7L, 8L), completed);
    }

    @Test
    void durabilityKindsSurviveTheQueueGrowing()
    {
        for (int i = 0; i < 3000; i++)
        {
            add(i, i % 3 == 0 ? Durability.DSYNC : i % 3 == 1 ? Durability.DIRECT : Durability.MEMORY);
        }
        assertEquals(2000, acks.durable());
        assertEquals(1000, acks.dsync());
        acks.completeUpTo(1500);
        assertEquals(1500, completed.size(), "1500 is DSYNC: it and everything behind it wait");
        assertEquals(1000, acks.durable());
        assertEquals(500, acks.dsync());
    }
}
