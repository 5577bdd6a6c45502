package io.directlog.storage;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Predicate;

import io.directlog.nativeio.Errno;
import io.directlog.storage.io.ErrorInjectingBlockIo;
import io.directlog.storage.io.ErrorInjectingBlockIo.Injection;
import io.directlog.storage.io.ErrorInjectingBlockIo.Op;

/**
 * Seeded random I/O-error injection, {@code one_in} style: batches of logs in one store over an
 * {@link ErrorInjectingBlockIo}; each log gets its own random mix of faults (fatal ones on the writer's and the
 * syncer's {@code .log} writes and syncs: EIO, ENOSPC, EROFS, stuck short writes; contained ones in the
 * preparer: fallocate, zero writes, syncs, opens, renames, directory fsyncs) under a producer of mixed
 * durability. Per log: it failed iff a fatal fault was injected; nothing acknowledged after the first fatal
 * fault; every pending append completed (the time it took is recorded, not asserted); acknowledged records
 * readable. An injection counts as detected when its log showed the expected outcome (fail-stop for a fatal
 * fault, appends going on for a contained one). Per batch: a reopen on healthy
 * storage recovers every acknowledged record of every log (MEMORY acks of a failed log excepted: their
 * promise ends with the fail-stop), as a dense prefix of valid records.
 * <p>
 * Not thread-safe; one test thread.
 */
final class RandomIoFaults
{
    private static final int LOGS_PER_BATCH = 24;

    record Totals(long cases, long ackedChecked, long lost, long detected, long injected, List<Long> failStopNanos)
    {
    }

    private record Scenario(String name, FaultWorkload workload, boolean failed)
    {
    }

    private final long seed;
    private long cases;
    private long ackedChecked;
    private long lost;
    private long detected;
    private long injected;
    private final List<Long> failStopNanos = new ArrayList<>();

    RandomIoFaults(final long seed)
    {
        this.seed = seed;
    }

    Totals run(final int minInjections) throws Exception
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final long start = System.nanoTime();
        int batches = 0;
        while (injected < minInjections || batches < 4) // at least 96 logs, so that fatal faults are many
        {
            runBatch(random.nextLong());
            batches++;
        }
        System.out.printf("ioerror random: %d batches, %d logs, %d injected errors, %d acked records checked in %.1f s%n",
            batches, cases, injected, ackedChecked, (System.nanoTime() - start) / 1e9);
        return new Totals(cases, ackedChecked, lost, detected, injected, failStopNanos);
    }

    private void runBatch(final long batchSeed) throws Exception
    {
        final SplittableRandom random = new SplittableRandom(batchSeed);
        final Path dir = TestDirs.create("ioerror-random");
        final ErrorInjectingBlockIo io = IoErrorFaultTest.injecting(batchSeed);
        final LogConfig lc = LogConfig.builder().segmentSize(1 << 20).durability(Durability.DIRECT)
            .syncInterval(Duration.ofMillis(20 + random.nextInt(60))).flushInterval(Duration.ofMillis(2))
            .preparedSegments(1).build();
        final List<Scenario> scenarios = new ArrayList<>();
        try (LogStore store = LogStore.open(IoErrorFaultTest.config(dir, io, lc)))
        {
            for (int k = 0; k < LOGS_PER_BATCH; k++)
            {
                final String name = "r" + k;
                final long s = random.nextLong();
                try
                {
                    scenarios.add(runScenario(store, io, dir.resolve(name), name, s));
                }
                catch (final AssertionError | RuntimeException e)
                {
                    throw new AssertionError("random I/O fault case failed: batch seed " + batchSeed + ", log " + name +
                        " (scenario seed " + s + "); rerun with -D" + TestSeed.SEED_PROP_NAME + "=" + seed + ": " +
                        e.getMessage(), e);
                }
            }
        }
        try (LogStore store = LogStore.open(IoErrorFaultTest.config(dir, null, lc)))
        {
            for (final Scenario sc : scenarios)
            {
                final Log log = store.log(sc.name());
                try
                {
                    ackedChecked += sc.workload().verifyRecovered(log, !sc.failed());
                }
                catch (final AssertionError e)
                {
                    lost++;
                    throw new AssertionError("batch seed " + batchSeed + ", log " + sc.name() + ": " + e.getMessage(), e);
                }
            }
            final Log any = store.log(scenarios.get(0).name());
            any.append(new byte[10], Durability.DSYNC).join(); // appends continue after recovery
        }
    }

    private Scenario runScenario(final LogStore store, final ErrorInjectingBlockIo io, final Path logDir,
        final String name, final long scenarioSeed) throws Exception
    {
        final SplittableRandom r = new SplittableRandom(scenarioSeed);
        final Log log = store.log(name);
        final List<ErrorInjectingBlockIo.Rule> rules = new ArrayList<>();
        final Predicate<Path> segments = ErrorInjectingBlockIo.under(logDir, ".log");
        final Predicate<Path> preparing = ErrorInjectingBlockIo.under(logDir, ".tmp");
        final int[] errnos = {Errno.EIO, Errno.ENOSPC, Errno.EROFS};
        final int fatalKind = r.nextInt(5);
        switch (fatalKind)
        {
            case 0 -> rules.add(io.failOneIn(Op.WRITE, 5 + r.nextInt(60), errnos[r.nextInt(3)], segments));
            case 1 -> rules.add(io.failOneIn(Op.DATASYNC, 1 + r.nextInt(4), r.nextBoolean() ? Errno.EIO : Errno.EROFS,
                segments));
            case 2 -> rules.add(io.shortWrite(1 + r.nextInt(60), false, segments));
            case 3 -> rules.add(io.fsyncgate(1 + r.nextInt(6), segments));
            default ->
            {
                // no fatal fault: only contained ones
            }
        }
        final int extras = 1 + r.nextInt(3);
        for (int i = 0; i < extras; i++)
        {
            switch (r.nextInt(6))
            {
                case 0 -> rules.add(io.failOneIn(Op.ALLOCATE, 1 + r.nextInt(3), Errno.ENOSPC, preparing));
                case 1 -> rules.add(io.failOneIn(Op.WRITE, 1 + r.nextInt(4), r.nextBoolean() ? Errno.ENOSPC : Errno.EIO,
                    preparing));
                case 2 -> rules.add(io.failOneIn(Op.DATASYNC, 1 + r.nextInt(3), Errno.EIO, preparing));
                case 3 -> rules.add(io.failOneIn(Op.OPEN, 1 + r.nextInt(4), Errno.EIO, preparing));
                case 4 -> rules.add(io.failOneIn(Op.RENAME, 1 + r.nextInt(3), Errno.EIO, preparing));
                default -> rules.add(io.failOneIn(Op.SYNC_DIRECTORY, 1 + r.nextInt(3), Errno.EIO,
                    p -> p.toAbsolutePath().normalize().equals(logDir.toAbsolutePath().normalize())));
            }
        }
        final FaultWorkload w = new FaultWorkload(log, scenarioSeed, 16 + r.nextInt(64), 1 + r.nextInt(20_000),
            Durability.MEMORY, Durability.DIRECT, Durability.DIRECT, Durability.DSYNC);
        w.run(200 + r.nextInt(600));
        w.await(30_000);
        rules.forEach(ErrorInjectingBlockIo.Rule::disarm);
        io.awaitRecorded(); // a call hit before the disarm is in the list below
        final boolean failedBefore = !log.isWritable();
        final List<Injection> mine = new ArrayList<>();
        Injection first = null;
        for (final Injection i : io.injections())
        {
            if (i.failed() && i.path().toAbsolutePath().normalize().startsWith(logDir.toAbsolutePath().normalize()))
            {
                mine.add(i);
                if (isFatal(i) && (first == null || i.nanos() - first.nanos() < 0))
                {
                    first = i;
                }
            }
        }
        if (first != null && !failedBefore)
        {
            // the failing call may still be between its throw and the fail-stop (syncer thread)
            IoErrorFaultTest.awaitTrue(() -> !log.isWritable(), 20_000);
        }
        final boolean failed = failedBefore || !log.isWritable();
        final long after = failed && first != null ? w.ackedAfter(first.nanos()) : 0;
        final List<Throwable> unexpected = failed ? w.errorsOtherThan(LogFailedException.class, LogFullException.class)
            : w.errorsOtherThan(LogFullException.class);
        // counted from what was observed, before the checks: a fatal fault is detected when its log fail-stopped
        // with nothing acknowledged after it; a contained one when its log went on (LogFull at most)
        injected += mine.size();
        if (failed == (first != null) && after == 0 && unexpected.isEmpty())
        {
            detected += mine.size();
        }
        check(failed == (first != null), "log " + (failed ? "failed without" : "did not fail after") +
            " a fatal fault; injections " + mine);
        if (failed)
        {
            check(after == 0, after + " acknowledgements after the first fatal fault, the last " +
                w.lastAckAfterNanos(first.nanos()) / 1e3 + " us after it: " + first);
            failStopNanos.add(w.failStopNanos(first.nanos()));
            check(unexpected.isEmpty(), "unexpected errors " + unexpected);
        }
        else
        {
            check(unexpected.isEmpty(), "a contained fault failed appends with " + unexpected);
        }
        ackedChecked += w.verifyAckedReadable(log);
        cases++;
        log.close();
        return new Scenario(name, w, failed);
    }

    private static boolean isFatal(final Injection i)
    {
        return (i.op() == Op.WRITE || i.op() == Op.DATASYNC) && i.path().getFileName().toString().endsWith(".log");
    }

    private static void check(final boolean ok, final String message)
    {
        if (!ok)
        {
            throw new AssertionError(message);
        }
    }
}
