package io.directlog.storage;

import static io.directlog.storage.io.ErrorInjectingBlockIo.under;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import io.directlog.nativeio.DirectIoProbe;
import io.directlog.nativeio.Errno;
import io.directlog.nativeio.NativeIo;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.io.ErrorInjectingBlockIo;
import io.directlog.storage.io.ErrorInjectingBlockIo.Injection;
import io.directlog.storage.io.ErrorInjectingBlockIo.Op;
import io.directlog.storage.io.NativeBlockIo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * I/O errors (issue 5 part 4, reliability.md E1-E9): faults injected under the engine through
 * {@link ErrorInjectingBlockIo} over the real O_DIRECT layer. Fatal errors must fail-stop the log: every pending
 * append completes with the one sticky {@link LogFailedException}, nothing is acknowledged after the first error,
 * acknowledged records stay readable, and a reopen on healthy storage recovers every one of them. Out-of-space in
 * the preparer is not fatal. How fast the fail-stop is gets printed, not asserted (timing belongs to the
 * benchmarks; on a loaded machine any bound is a flake): the tests wait for each outcome with a generous deadline
 * that fails them. Ends with one {@code FAULT-SUMMARY category=ioerror} line; {@code detected} counts the
 * injections whose expected outcome was observed (docs/durability.md).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
@ExtendWith(TestSeed.class)
class IoErrorFaultTest
{
    private static final long SEED = TestSeed.seed();
    private static final int RANDOM_INJECTIONS_MIN = Integer.getInteger("directlog.ioerror.injections", 1000);

    private static final AtomicLong CASES = new AtomicLong();
    private static final AtomicLong ACKED_CHECKED = new AtomicLong();
    private static final AtomicLong LOST = new AtomicLong();
    private static final AtomicLong DETECTED = new AtomicLong();
    private static final AtomicLong INJECTED = new AtomicLong();
    private static final List<Long> FAIL_STOP_NANOS = Collections.synchronizedList(new ArrayList<>());

    @BeforeAll
    static void requireDirectIo() throws Exception
    {
        Assumptions.assumeTrue(NativeIo.isAvailable(), "native I/O unavailable: " + NativeIo.unavailabilityCause());
        final DirectIoProbe.Result probe = DirectIoProbe.probe(TestDirs.create("ioerror-probe"));
        Assumptions.assumeTrue(probe.supported(), "O_DIRECT unsupported in the test directory: " + probe.reason());
    }

    @AfterAll
    static void summary()
    {
        final List<Long> times = new ArrayList<>(FAIL_STOP_NANOS);
        Collections.sort(times);
        if (!times.isEmpty())
        {
            System.out.printf("ioerror time-to-fail-stop over %d fatal cases: p50=%.2f ms p99=%.2f ms max=%.2f ms%n",
                times.size(), times.get(times.size() / 2) / 1e6, times.get((int)Math.min(times.size() - 1,
                Math.ceil(times.size() * 0.99) - 1)) / 1e6, times.get(times.size() - 1) / 1e6);
        }
        System.out.println("FAULT-SUMMARY category=ioerror cases=" + CASES.get() + " acked_checked=" +
            ACKED_CHECKED.get() + " lost=" + LOST.get() + " detected=" + DETECTED.get() + "/" + INJECTED.get());
    }

    static ErrorInjectingBlockIo injecting(final long seed)
    {
        return new ErrorInjectingBlockIo(new NativeBlockIo(4096), seed);
    }

    static StoreConfig config(final Path dir, final BlockIo io, final LogConfig logConfig)
    {
        return StoreConfig.builder(dir).memoryBudget(96L << 20).writerThreads(2)
            .appendTimeout(Duration.ofSeconds(2)).blockIo(io).defaultLogConfig(logConfig).build();
    }

    static LogConfig logConfig(final Durability durability, final Duration syncInterval)
    {
        return LogConfig.builder().segmentSize(1 << 20).durability(durability).syncInterval(syncInterval)
            .flushInterval(Duration.ofMillis(5)).build();
    }

    /** Polls a condition the engine offers no listener for (a log turning unwritable). */
    static long awaitTrue(final BooleanSupplier condition, final long timeoutMillis)
    {
        final long start = System.nanoTime();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - start > TimeUnit.MILLISECONDS.toNanos(timeoutMillis))
            {
                fail("condition not reached in " + timeoutMillis + " ms");
            }
            LockSupport.parkNanos(200_000);
        }
        return System.nanoTime();
    }

    static Injection firstFailure(final ErrorInjectingBlockIo io, final Op... ops)
    {
        Injection first = null;
        for (final Injection i : io.injections())
        {
            if (!i.failed())
            {
                continue;
            }
            for (final Op op : ops)
            {
                if (i.op() == op && (first == null || i.nanos() - first.nanos() < 0))
                {
                    first = i;
                }
            }
        }
        return first;
    }

    // ---------------------------------------------------------------- fail-stop cases

    /**
     * Runs a producer on a log over {@code io} with {@code arm} applied, waits for fail-stop and checks it; then
     * reopens on healthy storage and checks recovery.
     */
    private void failStopCase(final String name, final LogConfig lc, final Consumer<ErrorInjectingBlockIo> arm,
        final Op... fatalOps) throws Exception
    {
        final long seed = SEED ^ name.hashCode();
        final Path dir = TestDirs.create(name);
        final ErrorInjectingBlockIo io = injecting(seed);
        final FaultWorkload w;
        try (LogStore store = LogStore.open(config(dir, io, lc)))
        {
            final Log log = store.log("l");
            w = new FaultWorkload(log, seed, 64, 6000, Durability.MEMORY, Durability.DIRECT, Durability.DSYNC);
            arm.accept(io);
            INJECTED.incrementAndGet();
            w.start(1_000_000);
            awaitTrue(() -> !log.isWritable(), 20_000);
            w.stop();
            w.await(20_000); // every pending append completed: the fail-stop reached them all
            final Injection first = firstFailure(io, fatalOps);
            assertNotNull(first, "the log failed but no fatal fault was injected: " + io.injections());
            final Throwable failure = assertThrows(CompletionException.class,
                () -> log.append(new byte[10]).join()).getCause();
            // detected: the injected fault made the log fail-stop with its sticky error (observed, then asserted)
            DETECTED.addAndGet(failure instanceof LogFailedException ? 1 : 0);
            assertInstanceOf(LogFailedException.class, failure, "append after fail-stop (A12)");
            for (final Throwable e : w.errorsOtherThan())
            {
                assertSame(failure, e, "every failed append carries the one sticky error");
            }
            final long ackedAfter = w.ackedAfter(first.nanos());
            final long failStop = w.failStopNanos(first.nanos());
            FAIL_STOP_NANOS.add(failStop);
            System.out.printf("%s: injected %s on %s by %s; acked before=%d after=%d (last %.1f us after);" +
                " fail-stop in %.2f ms%n", name, first.effect(), first.path().getFileName(), first.thread(), w.acked(),
                ackedAfter, w.lastAckAfterNanos(first.nanos()) / 1e3, failStop / 1e6);
            // whichever thread met the error (the writer's pwrite, or the syncer's fdatasync: see AckSyncGate)
            assertEquals(0, ackedAfter, "acknowledgements after the first fatal error, the last " +
                w.lastAckAfterNanos(first.nanos()) / 1e3 + " us after it");
            ACKED_CHECKED.addAndGet(w.verifyAckedReadable(log)); // reads keep working until close
        }
        reopenAndVerify(dir, lc, w, false);
        CASES.incrementAndGet();
    }

    private static void reopenAndVerify(final Path dir, final LogConfig lc, final FaultWorkload w)
    {
        reopenAndVerify(dir, lc, w, true);
    }

    private static void reopenAndVerify(final Path dir, final LogConfig lc, final FaultWorkload w,
        final boolean cleanClose)
    {
        try (LogStore store = LogStore.open(config(dir, null, lc)))
        {
            final Log log = store.log("l");
            final long required = w.ackedRequired(cleanClose);
            long checked;
            try
            {
                checked = w.verifyRecovered(log, cleanClose);
            }
            catch (final AssertionError e)
            {
                LOST.incrementAndGet();
                throw e;
            }
            ACKED_CHECKED.addAndGet(checked);
            assertTrue(checked >= required, "acknowledged records recovered");
            final long end = log.endOffset();
            assertEquals(end, log.append(new byte[100], Durability.DSYNC).join(), "appends continue after recovery");
        }
    }

    @Test
    void eioOnPwriteFailStopsTheLogAndReopenRecoversEveryAcknowledgedRecord() throws Exception
    {
        failStopCase("e1-eio-pwrite", logConfig(Durability.DIRECT, Duration.ofSeconds(1)),
            io -> io.failCall(Op.WRITE, 40, Errno.EIO, ErrorInjectingBlockIo.named(".log")), Op.WRITE);
    }

    @Test
    void eioOnFdatasyncFailStopsAndALaterFalseSuccessNeverLeadsToAnAcknowledgement() throws Exception
    {
        failStopCase("e2-fsyncgate", logConfig(Durability.DIRECT, Duration.ofMillis(30)),
            io -> io.fsyncgate(3, ErrorInjectingBlockIo.named(".log")), Op.DATASYNC);
    }

    @Test
    void erofsIsFoundByTheSyncersFdatasyncAndFailStopsTheLog() throws Exception
    {
        final Duration syncInterval = Duration.ofMillis(200);
        final LogConfig lc = logConfig(Durability.DIRECT, syncInterval);
        final Path dir = TestDirs.create("e3-erofs");
        final ErrorInjectingBlockIo io = injecting(SEED);
        final FaultWorkload w;
        try (LogStore store = LogStore.open(config(dir, io, lc)))
        {
            final Log log = store.log("l");
            w = new FaultWorkload(log, SEED, 32, 4000, Durability.DIRECT);
            w.start(1_000_000);
            awaitTrue(() -> w.acked() > 200, 20_000);
            // filesystem shutdown as measured here: O_DIRECT pwrites into written extents still succeed,
            // only fdatasync reports EROFS
            final long armed = System.nanoTime();
            io.failFrom(Op.DATASYNC, Errno.EROFS, ErrorInjectingBlockIo.named(".log"));
            INJECTED.incrementAndGet();
            // the syncer's periodic fdatasync is the probe that finds it: a bounded wait, not a timing assert
            final long failed = awaitTrue(() -> !log.isWritable(), 20_000);
            w.stop();
            w.await(20_000);
            final long detection = failed - armed;
            final Injection first = firstFailure(io, Op.DATASYNC);
            assertNotNull(first, "the log failed but no fdatasync met EROFS: " + io.injections());
            final Throwable failure = assertThrows(CompletionException.class,
                () -> log.append(new byte[10]).join()).getCause();
            DETECTED.addAndGet(failure instanceof LogFailedException ? 1 : 0);
            assertInstanceOf(LogFailedException.class, failure, "append after fail-stop (A12)");
            final long ackedAfter = w.ackedAfter(first.nanos());
            final long failStop = w.failStopNanos(first.nanos());
            FAIL_STOP_NANOS.add(failStop);
            System.out.printf("e3-erofs: detected %.1f ms after the shutdown (syncInterval %d ms); acked after=%d;" +
                " fail-stop in %.2f ms%n", detection / 1e6, syncInterval.toMillis(), ackedAfter, failStop / 1e6);
            assertEquals(0, ackedAfter, "acknowledgements after the syncer's fdatasync failed");
            ACKED_CHECKED.addAndGet(w.verifyAckedReadable(log));
        }
        reopenAndVerify(dir, lc, w, false);
        CASES.incrementAndGet();
    }

    @Test
    void enospcInsideAWrittenSegmentFailStops() throws Exception
    {
        failStopCase("e5-enospc-pwrite", logConfig(Durability.DIRECT, Duration.ofSeconds(1)),
            io -> io.failCall(Op.WRITE, 25, Errno.ENOSPC, ErrorInjectingBlockIo.named(".log")), Op.WRITE);
    }

    @Test
    void aShortWriteThatCannotProgressFailStopsWithoutAcknowledgingThePartlyWrittenRecords() throws Exception
    {
        failStopCase("e6-short-stuck", logConfig(Durability.DIRECT, Duration.ofSeconds(1)),
            io -> io.shortWrite(30, false, ErrorInjectingBlockIo.named(".log")), Op.WRITE);
    }

    @Test
    void aShortWriteCompletedByTheRetryIsNoError() throws Exception
    {
        final LogConfig lc = logConfig(Durability.DIRECT, Duration.ofSeconds(1));
        final Path dir = TestDirs.create("e6-short-completed");
        final ErrorInjectingBlockIo io = injecting(SEED);
        final FaultWorkload w;
        try (LogStore store = LogStore.open(config(dir, io, lc)))
        {
            final Log log = store.log("l");
            for (int n = 5; n < 200; n += 7)
            {
                io.shortWrite(n, true, ErrorInjectingBlockIo.named(".log"));
            }
            w = new FaultWorkload(log, SEED, 32, 6000, Durability.DIRECT, Durability.DSYNC, Durability.MEMORY);
            w.run(3000);
            w.await(20_000);
            final long injected = io.injections().size();
            INJECTED.addAndGet(injected);
            assertTrue(injected > 0, "no short write happened");
            assertTrue(log.isWritable());
            assertEquals(List.of(), w.errorsOtherThan());
            DETECTED.addAndGet(injected);
        }
        reopenAndVerify(dir, lc, w);
        CASES.incrementAndGet();
    }

    // ---------------------------------------------------------------- out of space while preparing

    @Test
    void enospcWhilePreparingFailsAppendsFastWithLogFullKeepsReadsAndResumesByItself() throws Exception
    {
        final LogConfig lc = LogConfig.builder().segmentSize(1 << 20).durability(Durability.DIRECT)
            .preparedSegments(1).build();
        final Path dir = TestDirs.create("e4-enospc-prepare");
        final ErrorInjectingBlockIo io = injecting(SEED);
        final List<Long> offsets = new ArrayList<>();
        try (LogStore store = LogStore.open(config(dir, io, lc)))
        {
            final Log log = store.log("l");
            offsets.add(log.append(new byte[60_000], Durability.DIRECT).join());
            // the active segment and one spare prepared: the full disk is met at a later roll
            awaitTrue(() -> io.calls(Op.RENAME) >= 2, 10_000);
            final ErrorInjectingBlockIo.Rule full =
                io.failFrom(Op.ALLOCATE, Errno.ENOSPC, ErrorInjectingBlockIo.named(".tmp"));
            INJECTED.incrementAndGet();
            final byte[] record = new byte[60_000];
            long failedAfter = -1;
            Throwable logFull = null;
            long id = 0;
            for (; id < 200; id++)
            {
                final long t0 = System.nanoTime();
                try
                {
                    offsets.add(log.append(record, Durability.DIRECT).join());
                }
                catch (final CompletionException e)
                {
                    assertInstanceOf(LogFullException.class, e.getCause());
                    failedAfter = System.nanoTime() - t0;
                    logFull = e.getCause();
                    break;
                }
            }
            assertTrue(failedAfter >= 0, "the log never became full");
            System.out.printf("e4: LogFullException after %d appends, in %.2f ms%n", id, failedAfter / 1e6);
            // failing fast is behaviour, not a time: the preparer's ENOSPC is the cause, so the append did not sit
            // out the append timeout waiting for a segment (that LogFullException has no cause)
            assertNotNull(logFull.getCause(), "LogFull from waiting out the append timeout, not from the " +
                "preparer's ENOSPC: " + logFull.getMessage());
            assertTrue(log.isWritable(), "out of space while preparing is not fail-stop");
            final long checkedBefore = readAll(log, offsets.size());
            assertEquals(offsets.size(), checkedBefore, "reads continue while the log is full");
            final long freed = System.nanoTime();
            full.disarm();
            long resumed = -1;
            while (resumed < 0)
            {
                try
                {
                    offsets.add(log.append(record, Durability.DIRECT).join());
                    resumed = System.nanoTime() - freed;
                }
                catch (final CompletionException e)
                {
                    assertInstanceOf(LogFullException.class, e.getCause());
                    assertTrue(System.nanoTime() - freed < TimeUnit.SECONDS.toNanos(10), "appends never resumed");
                    LockSupport.parkNanos(10_000_000);
                }
            }
            System.out.printf("e4: appends resumed %.0f ms after space returned%n", resumed / 1e6);
            for (int i = 0; i < 40; i++)
            {
                offsets.add(log.append(record, Durability.DIRECT).join());
            }
            DETECTED.incrementAndGet();
        }
        try (LogStore store = LogStore.open(config(dir, null, lc)))
        {
            final Log log = store.log("l");
            assertEquals(offsets.size(), log.endOffset());
            final long checked = readAll(log, offsets.size());
            ACKED_CHECKED.addAndGet(checked);
            LOST.addAndGet(offsets.size() - checked);
            assertEquals(offsets.size(), checked);
        }
        CASES.incrementAndGet();
    }

    private static long readAll(final Log log, final long count)
    {
        long next = 0;
        long seen = 0;
        while (next < count)
        {
            try (RecordBatch batch = log.read(next, 1 << 20))
            {
                for (final Record r : batch)
                {
                    assertEquals(next, r.offset());
                    assertEquals(60_000, r.payloadLength());
                    next = r.nextOffset();
                    seen++;
                }
            }
        }
        return seen;
    }

    // ---------------------------------------------------------------- read errors, startup errors, stalls

    @Test
    void readEioFailsOnlyThatReadWithStorageReadExceptionAndTheWriterGoesOn() throws Exception
    {
        final LogConfig lc = logConfig(Durability.DIRECT, Duration.ofSeconds(1));
        final Path dir = TestDirs.create("e7-read-eio");
        final FaultWorkload first;
        try (LogStore store = LogStore.open(config(dir, null, lc)))
        {
            first = new FaultWorkload(store.log("l"), SEED, 64, 8000, Durability.DIRECT);
            first.run(1000); // several segments; after reopen only the newest is resident
            first.await(20_000);
        }
        final ErrorInjectingBlockIo io = injecting(SEED);
        try (LogStore store = LogStore.open(config(dir, io, lc)))
        {
            final Log log = store.log("l");
            final FaultWorkload more = new FaultWorkload(log, SEED + 1, 64, 8000, Durability.DIRECT);
            io.failCall(Op.READ, 1, Errno.EIO, ErrorInjectingBlockIo.named(".log"));
            INJECTED.incrementAndGet();
            more.start(2000);
            final StorageReadException e = assertThrows(StorageReadException.class, () -> log.read(0, 4096).close());
            System.out.println("e7: " + e.getMessage());
            assertEquals(1, io.injections().size());
            try (LogReader other = log.reader(0); RecordBatch batch = other.poll(4096))
            {
                assertFalse(batch.isEmpty(), "another consumer reads the same offset");
            }
            more.await(20_000);
            assertTrue(log.isWritable(), "a read error does not stop the writer");
            assertEquals(List.of(), more.errorsOtherThan());
            ACKED_CHECKED.addAndGet(first.verifyAckedReadable(log));
            DETECTED.incrementAndGet();
        }
        CASES.incrementAndGet();
    }

    @Test
    void eioWhileOpeningAtStartupFailsTheOpenClearlyAndAcknowledgesNothing() throws Exception
    {
        final LogConfig lc = logConfig(Durability.DIRECT, Duration.ofSeconds(1));
        final Path dir = TestDirs.create("e8-startup");
        final FaultWorkload w;
        try (LogStore store = LogStore.open(config(dir, null, lc)))
        {
            w = new FaultWorkload(store.log("l"), SEED, 32, 4000, Durability.DSYNC);
            w.run(300);
            w.await(20_000);
        }
        for (final Op op : new Op[] {Op.OPEN, Op.READ, Op.DATASYNC})
        {
            final ErrorInjectingBlockIo io = injecting(SEED);
            io.failFrom(op, Errno.EIO, ErrorInjectingBlockIo.named(".log"));
            if (op == Op.DATASYNC)
            {
                // after a clean close the open trusts the checkpoint and syncs nothing; an error must not be ignored
                try (LogStore store = LogStore.open(config(dir, io, lc)))
                {
                    assertTrue(store.logNames().contains("l"));
                    assertEquals(List.of(), io.injections(), "a failed fdatasync at open was ignored");
                    System.out.println("e8 DATASYNC: a clean shutdown needs no fdatasync at open");
                    continue;
                }
                catch (final StorageException e)
                {
                    System.out.println("e8 DATASYNC: " + e.getMessage());
                    INJECTED.incrementAndGet();
                    DETECTED.incrementAndGet();
                    continue;
                }
            }
            INJECTED.incrementAndGet();
            // after a clean close the store opens from its manifest and the log loads at its first use: the error
            // comes from whichever of the two first touches the log's files
            final StorageException e = assertThrows(StorageException.class, () ->
            {
                try (LogStore store = LogStore.open(config(dir, io, lc)))
                {
                    store.log("l").endOffset();
                }
            });
            System.out.println("e8 " + op + ": " + e.getMessage());
            assertTrue(e.getMessage().contains("'l'"), "the error names the log: " + e.getMessage());
            DETECTED.incrementAndGet();
        }
        // a directory fsync failing after the preparer's rename: that segment is never handed out
        final FaultWorkload[] checkM = new FaultWorkload[1];
        final ErrorInjectingBlockIo io = injecting(SEED);
        try (LogStore store = LogStore.open(config(dir, io, lc)))
        {
            final Log log = store.log("m");
            io.failCall(Op.SYNC_DIRECTORY, 1, Errno.EIO, p -> true);
            INJECTED.incrementAndGet();
            final FaultWorkload more = new FaultWorkload(log, SEED + 7, 32, 8000, Durability.DIRECT);
            more.run(600);
            more.await(20_000);
            assertTrue(log.isWritable());
            assertEquals(List.of(), more.errorsOtherThan(LogFullException.class));
            assertEquals(1, io.injections().size(), "the directory fsync was reached");
            DETECTED.incrementAndGet();
            checkM[0] = more;
        }
        try (LogStore again = LogStore.open(config(dir, null, lc)))
        {
            ACKED_CHECKED.addAndGet(checkM[0].verifyRecovered(again.log("m")));
        }
        reopenAndVerify(dir, lc, w);
        CASES.incrementAndGet();
    }

    @Test
    void writeStallsOf10To1000MillisGiveBackPressureNotErrorsOrLoss() throws Exception
    {
        final LogConfig lc = logConfig(Durability.DIRECT, Duration.ofMillis(200));
        final Path dir = TestDirs.create("e9-stalls");
        final ErrorInjectingBlockIo io = injecting(SEED);
        final FaultWorkload w;
        try (LogStore store = LogStore.open(StoreConfig.builder(dir).memoryBudget(64L << 20).writerThreads(1)
            .writerQueueBytes(64 << 10).appendTimeout(Duration.ofMillis(300)).blockIo(io).defaultLogConfig(lc).build()))
        {
            final Log log = store.log("l");
            io.stallOneIn(Op.WRITE, 8, 10, 1000, ErrorInjectingBlockIo.named(".log"));
            io.stallOneIn(Op.DATASYNC, 4, 10, 300, ErrorInjectingBlockIo.named(".log"));
            w = new FaultWorkload(log, SEED, 512, 3000, Durability.DIRECT, Durability.DSYNC, Durability.MEMORY);
            final long t0 = System.nanoTime();
            w.run(4000);
            w.await(120_000);
            final long injected = io.injections().size();
            INJECTED.addAndGet(injected);
            final List<Long> latencies = new ArrayList<>();
            for (final FaultWorkload.Append a : w.snapshot())
            {
                latencies.add(a.completeNanos - a.submitNanos);
            }
            Collections.sort(latencies);
            final long timeouts = w.snapshot().stream().filter(a -> a.error instanceof AppendTimeoutException).count();
            System.out.printf("e9: %d stalls in %.1f s; %d acked, %d AppendTimeoutException; latency p50=%.1f ms " +
                "p99=%.1f ms max=%.1f ms%n", injected, (System.nanoTime() - t0) / 1e9, w.acked(), timeouts,
                latencies.get(latencies.size() / 2) / 1e6, latencies.get(latencies.size() * 99 / 100) / 1e6,
                latencies.get(latencies.size() - 1) / 1e6);
            assertTrue(injected > 0);
            assertTrue(log.isWritable(), "stalls are no error");
            assertEquals(List.of(), w.errorsOtherThan(AppendTimeoutException.class));
            ACKED_CHECKED.addAndGet(w.verifyAckedReadable(log));
            DETECTED.addAndGet(injected);
        }
        reopenAndVerify(dir, lc, w);
        CASES.incrementAndGet();
    }

    // ---------------------------------------------------------------- random injection

    @Test
    void randomInjectedErrorsFailStopOrAreContainedAndNothingAcknowledgedIsLost() throws Exception
    {
        final RandomIoFaults random = new RandomIoFaults(SEED);
        final RandomIoFaults.Totals t = random.run(RANDOM_INJECTIONS_MIN);
        CASES.addAndGet(t.cases());
        ACKED_CHECKED.addAndGet(t.ackedChecked());
        LOST.addAndGet(t.lost());
        DETECTED.addAndGet(t.detected());
        INJECTED.addAndGet(t.injected());
        FAIL_STOP_NANOS.addAll(t.failStopNanos());
        assertEquals(0, t.lost());
        assertTrue(t.injected() >= RANDOM_INJECTIONS_MIN);
        assertEquals(t.injected(), t.detected(), "injections without the expected outcome");
    }
}
