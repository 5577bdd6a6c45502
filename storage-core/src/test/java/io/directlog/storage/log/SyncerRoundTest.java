package io.directlog.storage.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.TestDirs;
import io.directlog.storage.TestStores;
import io.directlog.storage.ThreadWaits;
import io.directlog.storage.io.InterceptingBlockIo;
import io.directlog.storage.io.IoHold;
import io.directlog.storage.io.sim.CrashReplayer;
import io.directlog.storage.io.sim.CrashReplayer.FaultProfile;
import io.directlog.storage.io.sim.DeviceModel;
import io.directlog.storage.io.sim.IoCall;
import io.directlog.storage.io.sim.SimulatedBlockIo;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;

/**
 * The syncer's round ({@link SyncerRound}) on a device whose fdatasync flushes every file of its flush domain: the
 * logs synced together share two fdatasyncs, and each keeps the promises of a tick alone. A failed shared fdatasync
 * fails every log it was to cover (and only those), a failed slot write its own log; a log whose close begins
 * while a round is in flight is left out of it, waits for it and closes clean by its own sync; a slot the round wrote
 * without O_DSYNC is durable before the next slot write of that log (a roll's, say) overwrites the other slot.
 * <p>
 * The rounds are driven by the test (the store's own syncer finds nothing due: {@code syncInterval} is an hour),
 * so which logs share a round and which call fails is fixed.
 */
@Timeout(120)
class SyncerRoundTest
{
    private static final Object DEVICE = "simulated-device";

    @Test
    void aRoundOfThreeLogsCostsTwoFdatasyncsAndTheirAcknowledgedWritesSurviveAPowerLossAfterIt() throws Exception
    {
        final RoundStore setup = RoundStore.create("round-shares");
        final SimulatedBlockIo sim = setup.sim();
        final int afterRound;
        try (LogStore store = setup.open())
        {
            final List<Log> logs = setup.appendOneEachAndWatch(store, 3);
            final int before = sim.callCount();
            runRound(logs);
            afterRound = sim.callCount();
            assertEquals(2, setup.io().roundSyncs.get(), "one fdatasync for the segments, one for the three slots");
            assertEquals(3, slotWrites(sim, before, afterRound, false), "three slots written without O_DSYNC");
            assertEquals(0, slotWrites(sim, before, afterRound, true), "no O_DSYNC slot write");
            for (final Log log : logs)
            {
                assertEquals(1, log.stats().syncs(), log.name());
                assertTrue(log.isWritable(), log.name());
            }
        }
        // a power loss right after the round: what the round synced is there, by the watermark it wrote
        try (LogStore store = setup.openAfterPowerLossAt(afterRound, 1))
        {
            for (int i = 0; i < 3; i++)
            {
                final Log log = store.log(name(i));
                assertEquals(1, log.endOffset(), log.name() + ": the DIRECT record the round synced");
                assertRecordZero(log);
                assertFalse(log.recoveryReport().cleanShutdown(), log.name());
            }
        }
    }

    @Test
    void aFailedSharedFdatasyncFailsEveryLogOfTheRoundAndWritesNoSlot() throws Exception
    {
        final RoundStore setup = RoundStore.create("round-eio-data");
        final SimulatedBlockIo sim = setup.sim();
        try (LogStore store = setup.open())
        {
            final List<Log> logs = setup.appendOneEachAndWatch(store, 3);
            setup.io().failSync = 1;
            final int before = sim.callCount();
            runRound(logs);
            assertEquals(1, setup.io().roundSyncs.get(), "the shared fdatasync failed; the round stopped there");
            assertEquals(0, slotWrites(sim, before, sim.callCount(), false) +
                slotWrites(sim, before, sim.callCount(), true), "no watermark written after a failed fdatasync");
            for (final Log log : logs)
            {
                assertFailed(log);
            }
        }
    }

    @Test
    void aFailedSlotWriteFailsOnlyItsOwnLog() throws Exception
    {
        final RoundStore setup = RoundStore.create("round-eio-slot");
        final int afterRound;
        try (LogStore store = setup.open())
        {
            final List<Log> logs = setup.appendOneEachAndWatch(store, 3);
            setup.io().failWrite = p -> p.getFileName().toString().equals(SegmentFiles.CHECKPOINT_FILE) &&
                p.getParent().getFileName().toString().equals(name(1));
            runRound(logs);
            afterRound = setup.sim().callCount();
            assertEquals(2, setup.io().roundSyncs.get(), "the slots of the two others were synced");
            assertTrue(logs.get(0).isWritable());
            assertFailed(logs.get(1));
            assertTrue(logs.get(2).isWritable());
            assertEquals(1L, logs.get(2).append(payload(name(2), 1), Durability.DIRECT).join());
        }
        try (LogStore store = setup.openAfterPowerLossAt(afterRound, 2))
        {
            for (final int i : new int[] {0, 2})
            {
                assertEquals(1, store.log(name(i)).endOffset(), name(i) + ": synced by the round");
                assertRecordZero(store.log(name(i)));
            }
        }
    }

    @Test
    void aFailedSlotFdatasyncFailsTheLogsWhoseSlotsItCoveredOnly() throws Exception
    {
        final RoundStore setup = RoundStore.create("round-eio-slots");
        final RoundFaults io = setup.io();
        try (LogStore store = setup.open())
        {
            final List<Log> logs = appendOneEach(store, 3);
            final Log quiet = store.log("quiet"); // opened, nothing appended: no new watermark, no slot this round
            final List<Log> all = new ArrayList<>(logs);
            all.add(quiet);
            io.watch(Thread.currentThread()); // from here: the quiet log's open is no part of the round
            io.failSync = 2;
            runRound(all);
            assertEquals(2, io.roundSyncs.get());
            for (final Log log : logs)
            {
                assertFailed(log);
            }
            assertTrue(quiet.isWritable(), "a log whose slot the failed fdatasync did not cover goes on");
            assertEquals(0L, quiet.append(payload("quiet", 0), Durability.DSYNC).join());
        }
    }

    @ParameterizedTest(name = "the round's later fdatasyncs fail: {0}")
    @ValueSource(booleans = {false, true})
    void aLogWhoseCloseBeganDuringTheRoundIsLeftOutOfItAndClosesCleanAfterIt(final boolean roundFails)
        throws Exception
    {
        final RoundStore setup = RoundStore.create(roundFails ? "round-close-eio" : "round-close");
        closeDuringRound(setup, roundFails);
        try (LogStore store = LogStore.open(config(setup.dir(), setup.sim()))) // the device as the close left it
        {
            // its close began before the round came to it: the round left it out (as a tick alone skips a closing
            // log), so the round's failure is not its own; its close synced it itself and sealed it after the round
            // let go of its tick lock
            final Log closed = store.log(name(1));
            assertTrue(closed.recoveryReport().cleanShutdown(), "closed by its own fdatasync, after the round");
            assertEquals(1, closed.endOffset());
            assertRecordZero(closed);
            assertEquals(!roundFails, store.log(name(0)).recoveryReport().cleanShutdown(),
                "the other log of the round: failed by it only when its fdatasyncs failed");
        }
    }

    @Test
    void aSlotWrittenForTheRoundIsSyncedBeforeTheNextSlotWriteOverwritesTheOther() throws IOException
    {
        final SimulatedBlockIo sim = new SimulatedBlockIo();
        try (Checkpoint c = openWrittenAt10(sim, Path.of("/sim/round-slot")))
        {
            try (BlockFile unsynced = c.writeForSharedSync(at(20)))
            {
                assertTrue(unsynced != null);
            }
            final int before = sim.callCount();
            c.rewriteSegmentList(); // a roll's slot write before the round's fdatasync of the slot above
            final List<IoCall> calls = sim.trace().subList(before, sim.callCount());
            int sync = -1;
            int write = -1;
            for (int i = 0; i < calls.size(); i++)
            {
                sync = sync < 0 && calls.get(i).kind() == IoCall.Kind.SYNC ? i : sync;
                write = write < 0 && calls.get(i).kind() == IoCall.Kind.WRITE ? i : write;
            }
            assertTrue(sync >= 0 && write > sync, "the unsynced slot is made durable before the other is " +
                "overwritten: " + calls);
            final int after = sim.callCount();
            c.rewriteSegmentList();
            assertEquals(0, countSyncs(sim.trace().subList(after, sim.callCount())), "one sync was enough");
        }
    }

    @Test
    void aSlotTheRoundSyncedIsNotSyncedAgainByTheNextSlotWrite() throws IOException
    {
        final SimulatedBlockIo sim = new SimulatedBlockIo();
        final Path dir = Path.of("/sim/round-slot-synced");
        try (Checkpoint c = openWrittenAt10(sim, dir))
        {
            try (BlockFile slot = c.writeForSharedSync(at(20)))
            {
                slot.datasync();
                c.sharedSyncDone();
            }
            final int before = sim.callCount();
            assertTrue(c.write(at(30), 0));
            assertEquals(0, countSyncs(sim.trace().subList(before, sim.callCount())));
        }
        try (Checkpoint c = Checkpoint.open(sim, dir, 7))
        {
            assertEquals(30, c.state().offset());
        }
    }

    // ---------------------------------------------------------------- helpers

    /**
     * Log {@code name(1)} is closed from another thread while a round of logs 0 and 1 holds both tick locks and
     * waits in the fdatasync of a segment log 0 rolled (before it holds log 1's acknowledgements back: so the close
     * gets past its final acknowledgements and its failure check, and waits for the tick lock); the round goes on
     * once the close waits for it, every later fdatasync of the round failing with EIO when {@code fail}.
     */
    private static void closeDuringRound(final RoundStore setup, final boolean fail) throws Exception
    {
        final RoundFaults io = setup.io();
        try (LogStore store = setup.open())
        {
            final List<Log> logs = appendOneEach(store, 2);
            final byte[] filler = new byte[32 << 10];
            for (int i = 0; i < 64; i++) // 2 MiB into 1 MiB segments: log 0 rolls, the round syncs its rolled ones
            {
                logs.get(0).append(filler, Durability.DIRECT).join();
            }
            final Thread writer = io.segmentWriter;
            final IoHold hold = new IoHold();
            io.holdFirstSync(hold, fail);
            final CompletableFuture<Void> round = new CompletableFuture<>();
            final Thread syncer = new Thread(() ->
            {
                try
                {
                    runRound(logs);
                    round.complete(null);
                }
                catch (final Throwable t)
                {
                    round.completeExceptionally(t);
                }
            }, "test-round");
            io.watch(syncer);
            syncer.start();
            assertTrue(hold.awaitHeld(30), "the round reached its fdatasync");
            final CompletableFuture<Void> close = CompletableFuture.runAsync(() -> logs.get(1).close());
            // on the tick lock the round holds: nothing else blocks the writer inside a close
            ThreadWaits.awaitBlockedIn(writer, LogCloser.class, Duration.ofSeconds(30),
                "the writer did not come to wait in the close");
            assertFalse(close.isDone(), "the close waits for the round");
            hold.release();
            round.get(30, TimeUnit.SECONDS);
            close.get(30, TimeUnit.SECONDS);
            assertEquals(fail, !logs.get(0).isWritable(), "the other log of the round");
        }
    }

    /** One pass of the syncer over {@code logs}, two hours ahead: every one is due. */
    private static void runRound(final List<Log> logs)
    {
        final long now = System.nanoTime() + Duration.ofHours(2).toNanos();
        final SyncerRound round = new SyncerRound(now);
        for (final Log log : logs)
        {
            assertInstanceOf(DefaultLog.class, log).onSyncerTick(now, round);
        }
        round.run();
    }

    private static List<Log> appendOneEach(final LogStore store, final int count)
    {
        final List<Log> logs = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            final Log log = store.log(name(i));
            assertEquals(0L, log.append(payload(log.name(), 0), Durability.DIRECT).join());
            logs.add(log);
        }
        return logs;
    }

    private static void assertFailed(final Log log)
    {
        assertFalse(log.isWritable(), log.name() + " fail-stopped");
        final CompletableFuture<Long> append = log.append(payload(log.name(), 9), Durability.DIRECT);
        assertThrows(CompletionException.class, append::join, log.name() + " takes no append after the failure");
    }

    private static void assertRecordZero(final Log log)
    {
        try (var batch = log.read(0, 1 << 16))
        {
            assertArrayEquals(payload(log.name(), 0), batch.iterator().next().payloadBytes(), log.name());
        }
    }

    /** @return the checkpoint slot writes among calls [from, to), with or without O_DSYNC. */
    private static int slotWrites(final SimulatedBlockIo sim, final int from, final int to, final boolean dsync)
    {
        int n = 0;
        for (final IoCall call : sim.trace().subList(from, to))
        {
            n += call.kind() == IoCall.Kind.WRITE && call.dsync() == dsync && call.path() != null &&
                call.path().getFileName().toString().equals(SegmentFiles.CHECKPOINT_FILE) ? 1 : 0;
        }
        return n;
    }

    private static int countSyncs(final List<IoCall> calls)
    {
        int n = 0;
        for (final IoCall call : calls)
        {
            n += call.kind() == IoCall.Kind.SYNC ? 1 : 0;
        }
        return n;
    }

    /** @return the checkpoint of a new directory {@code dir} on {@code sim}, one slot written (watermark at 10). */
    private static Checkpoint openWrittenAt10(final SimulatedBlockIo sim, final Path dir) throws IOException
    {
        sim.createDirectories(dir);
        final Checkpoint c = Checkpoint.open(sim, dir, 7);
        assertTrue(c.write(at(10), 0));
        return c;
    }

    private static Watermark at(final long offset)
    {
        return new Watermark(0, 0, (int)(offset * 64), offset, (int)(offset * 64) - 64, offset - 1);
    }

    private static String name(final int i)
    {
        return "log-" + i;
    }

    private static byte[] payload(final String log, final long offset)
    {
        return (log + "/" + offset).getBytes(StandardCharsets.UTF_8);
    }

    private static StoreConfig config(final Path dir, final BlockIo io)
    {
        return TestStores.store(dir, TestStores.log().syncInterval(Duration.ofHours(1)).build()).blockIo(io)
            .appendTimeout(Duration.ofSeconds(10)).build();
    }

    /**
     * A store directory on a simulated device whose fdatasync flushes its whole flush domain, and the faults the
     * test sets on that device for its round.
     */
    private record RoundStore(Path dir, SimulatedBlockIo sim, RoundFaults io)
    {
        static RoundStore create(final String name) throws IOException
        {
            final SimulatedBlockIo sim = new SimulatedBlockIo().flushDomain(DEVICE);
            return new RoundStore(TestDirs.create(name), sim, new RoundFaults(sim));
        }

        /** @return the store, opened through the faults. */
        LogStore open()
        {
            return LogStore.open(config(dir, io));
        }

        /** Appends one record to each of {@code count} logs, then gives this thread's round the faults. */
        List<Log> appendOneEachAndWatch(final LogStore store, final int count)
        {
            final List<Log> logs = appendOneEach(store, count);
            io.watch(Thread.currentThread());
            return logs;
        }

        /** @return the store, opened on what a power loss right after I/O call {@code call} left of the device. */
        LogStore openAfterPowerLossAt(final int call, final long seed)
        {
            final CrashReplayer replayer = new CrashReplayer(sim, DeviceModel.VOLATILE_CACHE);
            replayer.advanceTo(call);
            return LogStore.open(config(dir, replayer.image(new SplittableRandom(seed), FaultProfile.DROP_ALL).io()));
        }
    }

    /**
     * The device with faults for one thread (the test's round): its n-th fdatasync fails with EIO, its writes to
     * chosen paths fail, or its first fdatasync waits for the test. Records the thread that writes segments (the
     * writer).
     */
    private static final class RoundFaults extends InterceptingBlockIo
    {
        final AtomicInteger roundSyncs = new AtomicInteger();
        volatile int failSync;
        volatile Predicate<Path> failWrite = p -> false;
        volatile Thread segmentWriter;
        private volatile Thread watched;
        private volatile IoHold hold;
        private volatile boolean failHeld;

        RoundFaults(final BlockIo device)
        {
            super(device);
        }

        void watch(final Thread thread)
        {
            watched = thread;
        }

        void holdFirstSync(final IoHold hold, final boolean fail)
        {
            this.failHeld = fail;
            this.hold = hold;
        }

        @Override
        protected void beforeWrite(final Path file) throws IOException
        {
            if (file.getFileName().toString().endsWith(SegmentFiles.SEGMENT_SUFFIX))
            {
                segmentWriter = Thread.currentThread();
            }
            if (Thread.currentThread() == watched && failWrite.test(file))
            {
                throw new IOException("EIO (injected): slot write to " + file);
            }
        }

        /** The round's first fdatasync waits for the test (then syncs); the chosen later ones fail. */
        @Override
        protected void beforeDatasync(final Path file) throws IOException
        {
            if (Thread.currentThread() != watched)
            {
                return;
            }
            final int n = roundSyncs.incrementAndGet();
            if (n == 1 && hold != null)
            {
                hold.hold("the round's first fdatasync");
                return;
            }
            if (n == failSync || n > 1 && hold != null && failHeld)
            {
                throw new IOException("EIO (injected): fdatasync " + n + " of the round, " + file);
            }
        }
    }
}
