package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.io.sim.CrashImage;
import io.directlog.storage.io.sim.CrashReplayer;
import io.directlog.storage.io.sim.CrashReplayer.FaultProfile;
import io.directlog.storage.io.sim.DeviceModel;
import io.directlog.storage.io.sim.SimulatedBlockIo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A power loss during and after {@link LogStore#logs} creating many logs, on the simulated device with a volatile
 * cache: once the call returned, every log is in the store with its config (what a broker's answered CreateTopics
 * relies on); before, the store still opens and the same call completes the creation. Bounded: at most
 * {@link #POINTS} crash points, each with every unsynced write and directory operation lost and with a random
 * mix kept, dropped or torn.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
@ExtendWith(TestSeed.class)
class LogBatchCrashTest
{
    private static final long SEED = TestSeed.seed();
    private static final int LOGS = 12;
    private static final int POINTS = 80;
    private static final LogConfig DEFAULT = LogConfig.builder().segmentSize(1 << 20).build();
    private static final LogConfig CONFIG = DEFAULT.toBuilder().durability(Durability.DSYNC)
        .retentionTime(Duration.ofHours(2)).build();

    @Test
    void logsCreatedTogetherSurviveAPowerLossOnceTheCallReturned() throws Exception
    {
        final Path base = TestDirs.create("batch-crash");
        final List<String> names = new ArrayList<>();
        for (int i = 0; i < LOGS; i++)
        {
            names.add("p.t." + i);
        }
        final SimulatedBlockIo io = new SimulatedBlockIo();
        final int answered;
        final CrashReplayer replayer;
        try (LogStore store = LogStore.open(config(base, io)))
        {
            store.logs(names, CONFIG);
            answered = io.callCount();
            replayer = new CrashReplayer(io, DeviceModel.VOLATILE_CACHE);
        }
        assertEquals(0, io.misalignedCalls());
        final SplittableRandom rng = new SplittableRandom(SEED);
        final int step = Math.max(1, replayer.length() / POINTS);
        final List<String> failures = new ArrayList<>();
        int checked = 0;
        for (int point = 0; point <= replayer.length() && failures.size() < 3; point += step)
        {
            final int at = point < answered && point + step > answered ? answered : point; // the answer's point too
            replayer.advanceTo(at);
            failures.addAll(check(base, names, at, at >= answered, replayer.image(rng, FaultProfile.DROP_ALL)));
            failures.addAll(check(base, names, at, at >= answered, replayer.image(rng, FaultProfile.SECTOR_ATOMIC)));
            checked += 2;
            point = at;
        }
        System.out.println("FAULT-SUMMARY category=batch-create cases=" + checked + " logs=" + LOGS + " answeredAt=" +
            answered + " calls=" + replayer.length() + " failures=" + failures.size() + " seed=" + SEED);
        assertEquals(List.of(), failures, "seed=" + SEED);
        assertTrue(checked > 10, "crash points checked: " + checked);
    }

    /** Opens the image as a store: every log there with its config once answered; the call completes in any case. */
    private static List<String> check(final Path base, final List<String> names, final int point,
        final boolean answered, final CrashImage image)
    {
        final List<String> failures = new ArrayList<>();
        final String where = "crash after call " + point + (answered ? " (answered)" : "") + " " + image.faults() + ": ";
        try (LogStore store = LogStore.open(config(base, image.io())))
        {
            if (answered)
            {
                for (final String name : names)
                {
                    if (!store.logNames().contains(name))
                    {
                        failures.add(where + name + " is gone");
                    }
                    else if (!CONFIG.equals(store.log(name).config()))
                    {
                        failures.add(where + name + " has config " + store.log(name).config());
                    }
                }
            }
            final List<Log> logs = store.logs(names, CONFIG);
            final Log last = logs.get(LOGS - 1);
            final long offset = last.append(new byte[] {1, 2, 3}).get(30, TimeUnit.SECONDS);
            if (offset != 0 || last.endOffset() != 1)
            {
                failures.add(where + "an append after the crash went to offset " + offset);
            }
        }
        catch (final Exception e)
        {
            failures.add(where + e);
        }
        return failures;
    }

    private static StoreConfig config(final Path base, final SimulatedBlockIo io)
    {
        return StoreConfig.builder(base).blockIo(io).memoryBudget(16L << 20).writerThreads(1)
            .defaultLogConfig(DEFAULT).build();
    }
}
