package io.directlog.storage.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
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
import io.directlog.storage.io.sim.SimulatedBlockIo;

/**
 * A crash after a store opened from its manifest: the manifest must never outlive a change to a log, so every
 * crash point recovers every acknowledged record and every completed create and delete.
 */
class StoreEngineManifestCrashTest
{
    /** An acknowledged change and the trace position by which it was done. */
    private record Done(int position, String log, long offset)
    {
    }

    @Test
    @Timeout(600)
    void crashAtEveryPointAfterAManifestOpenLosesNothingAcknowledged() throws Exception
    {
        final Path dir = TestDirs.create("manifest-crash");
        final SimulatedBlockIo first = new SimulatedBlockIo();
        try (LogStore store = LogStore.open(config(dir, first)))
        {
            for (final String name : List.of("a", "b"))
            {
                final Log log = store.log(name);
                for (int r = 0; r < 3; r++)
                {
                    log.append(StoreEngineManifestTest.payload(name, r), Durability.DSYNC).join();
                }
            }
        }
        final SimulatedBlockIo closed = imageAtEnd(first);
        assertTrue(closed.exists(dir.resolve(StoreManifest.FILE)), "the clean close wrote the manifest");

        final List<Done> done = new ArrayList<>();
        final int deletedAt;
        final int end;
        try (LogStore store = LogStore.open(config(dir, closed)))
        {
            final Log a = store.log("a");
            for (int r = 3; r < 5; r++)
            {
                a.append(StoreEngineManifestTest.payload("a", r), Durability.DSYNC).join();
                done.add(new Done(closed.callCount(), "a", r));
            }
            store.log("c").append(StoreEngineManifestTest.payload("c", 0), Durability.DSYNC).join();
            done.add(new Done(closed.callCount(), "c", 0));
            store.deleteLog("b");
            deletedAt = closed.callCount();
            end = closed.callCount();
        }
        final CrashReplayer replayer = new CrashReplayer(closed, DeviceModel.VOLATILE_CACHE);
        int opened = 0;
        for (int point = 0; point <= end; point++)
        {
            replayer.advanceTo(point);
            for (final FaultProfile profile : List.of(FaultProfile.DROP_ALL, FaultProfile.SECTOR_ATOMIC))
            {
                final CrashImage image = replayer.image(new SplittableRandom(point), profile);
                check(dir, image.io(), point, done, deletedAt, "crash after call " + point + "/" + end + ", " +
                    profile + " (" + image.faults() + ")");
                opened++;
            }
        }
        assertTrue(opened > 20, "crash images checked: " + opened);
    }

    /**
     * Loads at first use, several at once (background loads and a caller's first uses), from the manifest's facts,
     * then appends: a crash at any call of those loads (the manifest's removal, a load's checkpoint write, a
     * spare's open) loses no record acknowledged before the clean close or after.
     */
    @Test
    @Timeout(600)
    void crashAtEveryCallOfLazyLoadsLosesNothingAcknowledged() throws Exception
    {
        final Path dir = TestDirs.create("manifest-lazy-crash");
        final SimulatedBlockIo first = new SimulatedBlockIo();
        final List<String> names = List.of("a", "b", "c", "d");
        final java.util.Map<String, Integer> counts = new java.util.HashMap<>();
        try (LogStore store = LogStore.open(config(dir, first)))
        {
            for (final String name : names)
            {
                final Log log = store.log(name);
                final int records = name.equals("a") ? 6 : 3; // a's 40 KB records roll past the 128 KiB first rung
                for (int r = 0; r < records; r++)
                {
                    log.append(lazyPayload(name, r), Durability.DSYNC).join();
                }
                counts.put(name, records);
            }
        }
        final SimulatedBlockIo closed = imageAtEnd(first);
        assertTrue(closed.exists(dir.resolve(StoreManifest.FILE)), "the clean close wrote the manifest");

        final List<Done> done = new ArrayList<>();
        final int end;
        System.setProperty(LazyLoads.BACKGROUND_PROPERTY, "2");
        try (LogStore store = LogStore.open(config(dir, closed)))
        {
            for (final String name : names)
            {
                assertEquals((long)counts.get(name), store.log(name).endOffset(), name);
            }
            for (final String name : List.of("a", "c"))
            {
                final long offset = counts.get(name);
                store.log(name).append(lazyPayload(name, offset), Durability.DSYNC).join();
                done.add(new Done(closed.callCount(), name, offset));
            }
            end = closed.callCount();
        }
        finally
        {
            System.clearProperty(LazyLoads.BACKGROUND_PROPERTY);
        }
        final CrashReplayer replayer = new CrashReplayer(closed, DeviceModel.VOLATILE_CACHE);
        int opened = 0;
        for (int point = 0; point <= end; point++)
        {
            replayer.advanceTo(point);
            for (final FaultProfile profile : List.of(FaultProfile.DROP_ALL, FaultProfile.SECTOR_ATOMIC))
            {
                final CrashImage image = replayer.image(new SplittableRandom(point), profile);
                final String at = "crash after call " + point + "/" + end + ", " + profile + " (" + image.faults() + ")";
                try (LogStore store = LogStore.open(config(dir, image.io())))
                {
                    for (final String name : names)
                    {
                        long must = counts.get(name);
                        for (final Done d : done)
                        {
                            must = d.log().equals(name) && d.position() <= point ? d.offset() + 1 : must;
                        }
                        final Log log = store.log(name);
                        assertTrue(log.endOffset() >= must, at + ": log " + name + " ends at " + log.endOffset() +
                            ", " + must + " acknowledged");
                        for (long r = 0; r < must; r++)
                        {
                            try (var batch = log.read(r, 1 << 16))
                            {
                                assertTrue(java.util.Arrays.equals(lazyPayload(name, r),
                                    batch.iterator().next().payloadBytes()), at + ": log " + name + " record " + r);
                            }
                        }
                    }
                }
                opened++;
            }
        }
        assertTrue(opened > 20, "crash images checked: " + opened);
    }

    private static byte[] lazyPayload(final String log, final long offset)
    {
        return log.equals("a") ? TestStores.payload(7, offset, 40_000) : StoreEngineManifestTest.payload(log, offset);
    }

    private static void check(final Path dir, final SimulatedBlockIo image, final int point, final List<Done> done,
        final int deletedAt, final String at)
    {
        try (LogStore store = LogStore.open(config(dir, image)))
        {
            final Log a = store.log("a");
            long aEnd = 3;
            for (final Done d : done)
            {
                if (d.position() <= point)
                {
                    final Log log = store.log(d.log());
                    assertTrue(log.endOffset() > d.offset(), at + ": acknowledged " + d + " lost, log ends at " +
                        log.endOffset());
                    try (var batch = log.read(d.offset(), 1 << 16))
                    {
                        assertEquals(new String(StoreEngineManifestTest.payload(d.log(), d.offset()),
                            StandardCharsets.UTF_8), new String(batch.iterator().next().payloadBytes(),
                            StandardCharsets.UTF_8), at);
                    }
                    aEnd = d.log().equals("a") ? d.offset() + 1 : aEnd;
                }
            }
            assertTrue(a.endOffset() >= aEnd, at + ": log a ends at " + a.endOffset());
            try (var batch = a.read(0, 1 << 16))
            {
                int r = 0;
                for (final var record : batch)
                {
                    if (r >= 3)
                    {
                        break;
                    }
                    assertEquals(new String(StoreEngineManifestTest.payload("a", r), StandardCharsets.UTF_8),
                        new String(record.payloadBytes(), StandardCharsets.UTF_8), at);
                    r++;
                }
                assertEquals(3, r, at + ": log a's records from before the manifest");
            }
            if (point >= deletedAt)
            {
                assertFalse(store.logNames().contains("b"), at + ": the deleted log came back");
            }
        }
    }

    private static SimulatedBlockIo imageAtEnd(final SimulatedBlockIo io)
    {
        final CrashReplayer replayer = new CrashReplayer(io, DeviceModel.VOLATILE_CACHE);
        replayer.advanceTo(replayer.length());
        return replayer.image(new SplittableRandom(0), FaultProfile.DROP_ALL).io();
    }

    private static StoreConfig config(final Path dir, final SimulatedBlockIo io)
    {
        return TestStores.store(dir).blockIo(io).appendTimeout(Duration.ofSeconds(10)).build();
    }
}
