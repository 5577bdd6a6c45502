package io.directlog.storage.writer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.directlog.storage.AppendCallback;
import io.directlog.storage.Durability;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link ClientTurns}: which of a writer's logs get a turn in a duty cycle. Driven with a clock of
 * its own on a writer that is never started (the turns run on the test's thread).
 */
class ClientTurnsTest
{
    private static final long SWEEP = ClientTurns.SWEEP_INTERVAL_NANOS;

    private final LogWriterAgent writer = new LogWriterAgent("turns-test", 64 * 1024);
    private final ClientTurns turns = new ClientTurns(writer);

    @Test
    void theFirstCycleSweepsEveryLogAndKeepsBusyOnlyThoseThatAskForMoreTurns()
    {
        final Fake[] logs = fakes(1000);
        logs[7].busy = true;
        logs[900].busy = true;
        turns.give(logs, 0);
        assertEquals(1, logs[0].turns);
        assertEquals(1, logs[999].turns);
        assertEquals(2, turns.busyCount());

        turns.give(logs, 1);
        assertArrayEquals(new int[] {2, 1, 2}, new int[] {logs[7].turns, logs[8].turns, logs[900].turns},
            "between sweeps only the busy logs get a turn");
    }

    @Test
    void aMessageMakesALogBusyUntilATurnLeavesItSettled()
    {
        final Fake[] logs = fakes(500);
        turns.give(logs, 0);
        assertEquals(0, turns.busyCount(), "all settled after the sweep");

        turns.onMessage(42);
        turns.onMessage(42); // listed once
        turns.onMessage(3);
        logs[42].busy = true;
        turns.give(logs, 1);
        assertEquals(2, logs[42].turns);
        assertEquals(2, logs[3].turns, "a message gives a settled log its turn");
        assertEquals(1, turns.busyCount(), "log 3 settled in its turn and left");

        logs[42].busy = false;
        turns.give(logs, 2);
        turns.give(logs, 3);
        assertEquals(3, logs[42].turns, "one more turn, the one it settled in");
        assertEquals(1, logs[0].turns);
        assertEquals(0, turns.busyCount());
    }

    @Test
    void everyLogGetsATurnAgainOnceTheSweepIntervalPassed()
    {
        final Fake[] logs = fakes(300);
        turns.give(logs, 0);
        turns.give(logs, SWEEP - 1);
        assertEquals(1, logs[150].turns);
        turns.give(logs, SWEEP);
        assertEquals(2, logs[150].turns);
        turns.give(logs, SWEEP + 1);
        assertEquals(2, logs[150].turns);
        turns.give(logs, 2 * SWEEP);
        assertEquals(3, logs[150].turns);
    }

    @Test
    void aDeregisteredLogIsDroppedAndALogWhoseAnswerThrowsStaysBusy()
    {
        final Fake[] logs = fakes(10);
        logs[4].busy = true;
        logs[6].throwOnAsk = true;
        turns.give(logs, 0);
        assertEquals(2, turns.busyCount());
        logs[4] = null; // deregistered
        turns.give(logs, 1);
        assertEquals(1, turns.busyCount());
        assertEquals(2, logs[6].turns, "its next turn is where the log's own failure is handled");
    }

    @Test
    void onlyBusyLogsAndTheNextSweepBoundHowLongAnIdleWriterParks()
    {
        final Fake[] logs = fakes(20);
        logs[2].busy = true;
        logs[2].deadline = 3_000;
        logs[9].deadline = 1_000; // not busy: a settled log has nothing to flush, its deadline is not asked
        turns.give(logs, 0);
        assertEquals(3_000 - 500, turns.nanosToNextDeadline(logs, 500));
        logs[2].deadline = Long.MAX_VALUE;
        assertEquals(SWEEP - 500, turns.nanosToNextDeadline(logs, 500));
    }

    @Test
    void slotsBeyondTheFirstArraysAreListed()
    {
        final Fake[] logs = fakes(5000);
        turns.give(logs, 0);
        for (int slot = 0; slot < 5000; slot += 7)
        {
            turns.onMessage(slot);
        }
        turns.give(logs, 1);
        assertEquals(2, logs[4998].turns);
        assertEquals(1, logs[4999].turns);
    }

    private Fake[] fakes(final int count)
    {
        final Fake[] logs = new Fake[count];
        for (int i = 0; i < count; i++)
        {
            logs[i] = new Fake(writer);
        }
        return logs;
    }

    /** A log that counts its turns and says whether it wants more. */
    private static final class Fake extends TestWriterClient
    {
        int turns;
        boolean busy;
        boolean throwOnAsk;
        long deadline = Long.MAX_VALUE;

        Fake(final LogWriterAgent writer)
        {
            super(writer);
        }

        @Override
        public void onAppend(final DirectBuffer source, final int index, final int length, final int recordCount,
            final Durability durability, final AppendCallback callback)
        {
        }

        @Override
        public int onDutyCycle(final long nowNanos)
        {
            turns++;
            return busy ? 1 : 0;
        }

        @Override
        public boolean needsDutyCycles()
        {
            if (throwOnAsk)
            {
                throw new IllegalStateException("a log's own code failed");
            }
            return busy;
        }

        @Override
        public long nextDeadlineNanos(final long nowNanos)
        {
            return deadline;
        }

        @Override
        public void onFailure(final String what, final Throwable cause, final AppendCallback unfinished)
        {
        }
    }
}
