package io.directlog.storage.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.TestDirs;
import io.directlog.storage.TestStores;
import io.directlog.storage.io.sim.CrashImage;
import io.directlog.storage.io.sim.CrashReplayer;
import io.directlog.storage.io.sim.CrashReplayer.FaultProfile;
import io.directlog.storage.io.sim.DeviceModel;
import io.directlog.storage.io.sim.IoCall;
import io.directlog.storage.io.sim.SimulatedBlockIo;

/**
 * The first use of many reopened logs (issue 18): a broker restarting with thousands of partitions touches each
 * once. Each first use writes its log's checkpoint as not clean (one device flush, before the log takes an append);
 * the syncer then syncs each log's segment and writes its watermark. On a device whose fdatasync flushes every file
 * of its flush domain, the syncer shares those flushes among the logs due together ({@code log.SyncerRound}), so
 * the flushes of N first uses do not grow as 3 x N (one mark, one fdatasync and one O_DSYNC checkpoint write a log,
 * as before). A crash at any call of that session loses nothing acknowledged, and a log that took an append
 * reopens as crashed, not clean.
 */
class StoreEngineFirstUseFlushTest
{
    private static final Object DEVICE = "simulated-device";

    @Test
    @Timeout(300)
    void firstAppendsToReopenedLogsShareTheSyncersDeviceFlushes() throws Exception
    {
        final int logs = 48;
        final Path dir = TestDirs.create("first-use-flushes");
        final SimulatedBlockIo closed = createdAndClosed(dir, logs);
        try (LogStore store = LogStore.open(config(dir, closed)))
        {
            final int before = closed.callCount();
            final List<Log> opened = new ArrayList<>();
            for (final String name : store.logNames())
            {
                final Log log = store.log(name);
                assertEquals(1L, log.append(payload(name, 1), Durability.DIRECT).join());
                opened.add(log);
            }
            awaitSyncs(opened, new long[opened.size()]); // each log's first sync since its load
            final int end = closed.callCount();
            int flushes = 0;
            int syncs = 0;
            for (int i = before; i < end; i++)
            {
                final IoCall call = closed.trace().get(i);
                syncs += call.kind() == IoCall.Kind.SYNC ? 1 : 0;
                flushes += call.kind() == IoCall.Kind.SYNC || call.kind() == IoCall.Kind.WRITE && call.dsync() ? 1 : 0;
            }
            System.out.println("first use of " + logs + " reopened logs and one syncer pass each: " + flushes +
                " device flushes (" + syncs + " fdatasyncs, " + (flushes - syncs) + " O_DSYNC writes)");
            // before: a not-clean mark, an fdatasync and an O_DSYNC checkpoint write a log (3 x 48 = 144); now the
            // mark a log and two flushes per syncer round of the logs due together
            assertTrue(flushes <= logs + logs / 2, flushes + " device flushes for " + logs + " first uses");
            for (final Log log : opened)
            {
                assertEquals(2L, log.endOffset(), log.name());
            }
        }
    }

    @Test
    @Timeout(600)
    void aCrashAfterFirstAppendsToReopenedLogsLosesNothingAcknowledgedAndRecoversThemAsCrashed() throws Exception
    {
        final int logs = 6;
        final Path dir = TestDirs.create("first-use-crash");
        final SimulatedBlockIo closed = createdAndClosed(dir, logs);
        final List<long[]> acks = new ArrayList<>(); // {log, offset, call count at the ack, 1 when DSYNC}
        final int end;
        try (LogStore store = LogStore.open(config(dir, closed)))
        {
            final List<Log> opened = new ArrayList<>();
            for (int round = 1; round <= 2; round++)
            {
                for (int i = 0; i < logs; i++)
                {
                    final Log log = store.log(name(i));
                    final Durability durability = i % 2 == 0 ? Durability.DIRECT : Durability.DSYNC;
                    assertEquals(round, log.append(payload(log.name(), round), durability).join());
                    acks.add(new long[] {i, round, closed.callCount(), durability == Durability.DSYNC ? 1 : 0});
                    if (round == 1)
                    {
                        opened.add(log);
                    }
                }
                awaitSyncs(opened, syncsNow(opened)); // a syncer pass after these appends is in the trace
            }
            end = closed.callCount();
        }
        final CrashReplayer replayer = new CrashReplayer(closed, DeviceModel.VOLATILE_CACHE);
        int images = 0;
        for (int point = 0; point <= end; point++)
        {
            replayer.advanceTo(point);
            for (final FaultProfile profile : List.of(FaultProfile.DROP_ALL, FaultProfile.SECTOR_ATOMIC,
                FaultProfile.KEEP_ALL))
            {
                final CrashImage image = replayer.image(new SplittableRandom(point), profile);
                check(dir, image.io(), logs, acks, point, profile, "crash after call " + point + "/" + end + ", " +
                    profile + " (" + image.faults() + ")");
                images++;
            }
        }
        assertTrue(images > 30, "crash images checked: " + images);
    }

    /**
     * Opens the image: every DSYNC acknowledgement before the crash is there (and every DIRECT one when the crash
     * kept every completed write, a process crash), and a log that took an append before it reopens as crashed.
     */
    private static void check(final Path dir, final SimulatedBlockIo image, final int logs, final List<long[]> acks,
        final int point, final FaultProfile profile, final String at)
    {
        try (LogStore store = LogStore.open(config(dir, image)))
        {
            for (int i = 0; i < logs; i++)
            {
                final Log log = store.log(name(i));
                long must = 1;
                for (final long[] ack : acks)
                {
                    final boolean kept = ack[3] == 1 || profile == FaultProfile.KEEP_ALL;
                    must = ack[0] == i && ack[2] <= point && kept ? Math.max(must, ack[1] + 1) : must;
                }
                assertTrue(log.endOffset() >= must, at + ": log " + log.name() + " ends at " + log.endOffset() +
                    ", " + must + " acknowledged");
                // every record up to the recovered end, not only the acknowledged ones: a watermark written before
                // the data it names was durable would leave an end past what the device kept
                for (long r = 0; r < log.endOffset(); r++)
                {
                    try (var batch = log.read(r, 1 << 16))
                    {
                        assertArrayEquals(payload(log.name(), r), batch.iterator().next().payloadBytes(),
                            at + ": log " + log.name() + " record " + r);
                    }
                }
                if (must > 1)
                {
                    assertFalse(log.recoveryReport().cleanShutdown(), at + ": log " + log.name() +
                        " took an append after its clean close and reopened as clean");
                }
            }
        }
    }

    /** @return the device after a session that created {@code logs} logs of one DIRECT record and closed cleanly. */
    private static SimulatedBlockIo createdAndClosed(final Path dir, final int logs)
    {
        final SimulatedBlockIo first = new SimulatedBlockIo().flushDomain(DEVICE);
        try (LogStore store = LogStore.open(config(dir, first)))
        {
            for (int i = 0; i < logs; i++)
            {
                final Log log = store.log(name(i));
                assertEquals(0L, log.append(payload(log.name(), 0), Durability.DIRECT).join());
            }
        }
        final CrashReplayer replayer = new CrashReplayer(first, DeviceModel.VOLATILE_CACHE);
        replayer.advanceTo(replayer.length());
        final SimulatedBlockIo closed = replayer.image(new SplittableRandom(0), FaultProfile.DROP_ALL).io();
        assertTrue(closed.exists(dir.resolve(StoreManifest.FILE)), "the clean close wrote the manifest");
        assertTrue(DEVICE.equals(closed.flushDomainKey()), "the image keeps the device's flush domain");
        return closed;
    }

    private static long[] syncsNow(final List<Log> logs)
    {
        final long[] syncs = new long[logs.size()];
        for (int i = 0; i < logs.size(); i++)
        {
            syncs[i] = logs.get(i).stats().syncs();
        }
        return syncs;
    }

    /** Waits (bounded: fails after 60 s) until the syncer synced every log more often than {@code start} says. */
    private static void awaitSyncs(final List<Log> logs, final long[] start) throws InterruptedException
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        for (int i = 0; i < logs.size(); i++)
        {
            while (logs.get(i).stats().syncs() <= start[i])
            {
                assertTrue(System.nanoTime() < deadline, "log " + logs.get(i).name() + " not synced in 60 s");
                Thread.sleep(5); // polling a counter the syncer thread moves, bounded by the deadline
            }
        }
    }

    private static String name(final int i)
    {
        return "log-" + i;
    }

    private static byte[] payload(final String log, final long offset)
    {
        return StoreEngineManifestTest.payload(log, offset);
    }

    private static StoreConfig config(final Path dir, final SimulatedBlockIo io)
    {
        return TestStores.store(dir).blockIo(io).appendTimeout(Duration.ofSeconds(10)).build();
    }
}
