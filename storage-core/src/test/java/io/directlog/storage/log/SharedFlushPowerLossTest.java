package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogFailedException;
import io.directlog.storage.LogStore;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.RecoveryMode;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.TestDirs;
import io.directlog.storage.TestSeed;
import io.directlog.storage.TestStores;
import io.directlog.storage.cache.EvictionPolicy;
import io.directlog.storage.cache.PageCache;
import io.directlog.storage.io.InterceptingBlockIo;
import io.directlog.storage.io.NativeBlockIo;
import io.directlog.storage.io.sim.CrashReplayer;
import io.directlog.storage.io.sim.CrashReplayer.FaultProfile;
import io.directlog.storage.io.sim.DeviceModel;
import io.directlog.storage.io.sim.IoCall;
import io.directlog.storage.io.sim.SimulatedBlockIo;
import io.directlog.storage.page.PagePool;
import io.directlog.storage.page.ReadBufferPool;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.writer.LogWriterAgent;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Group commit across logs (issue 18): several logs on one writer thread, DSYNC appends offered to all of them while
 * the writer is held, so that one duty cycle takes them all and flushes them with one shared fdatasync. On the
 * simulated device with a volatile cache, where that fdatasync flushes the device's cache for every file (as ext4's
 * and XFS's do), a power loss after any call keeps every acknowledged append of every log; on a device whose
 * fdatasync syncs only its own file the same run loses acknowledged appends (so the check can fail). A failed
 * shared fdatasync fails exactly the logs it covered.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
@ExtendWith(TestSeed.class)
class SharedFlushPowerLossTest
{
    private static final long SEED = TestSeed.seed();
    private static final int LOGS = 4;
    private static final int ROUNDS = 5;
    private static final int SEGMENT = LogConfig.SEGMENT_SIZE_MIN;
    private static final Object DEVICE = "simulated-device";

    private Path base;
    private PagePool pool;
    private PageCache cache;
    private ReadBufferPool readBuffers;
    private LogWriterAgent writer;

    /** An acknowledgement: of record {@code offset} of log {@code log}, after {@code call} I/O calls completed. */
    private record Ack(int log, long offset, int call)
    {
    }

    private record Run(SimulatedBlockIo io, List<Ack> acks, List<List<byte[]>> payloads, int firstCall)
    {
    }

    @BeforeEach
    void start() throws IOException
    {
        base = TestDirs.create("sharedflush");
        pool = new PagePool(64L << 20, 4096);
        cache = new PageCache(pool, EvictionPolicy.fromSystemProperties());
        readBuffers = new ReadBufferPool(256 << 10, 4096, 8);
        writer = new LogWriterAgent("directlog-sharedflush-writer", 1 << 20);
        writer.start();
    }

    @AfterEach
    void stop() throws InterruptedException
    {
        writer.stop(Duration.ofSeconds(10));
        readBuffers.close();
        pool.close();
    }

    @Test
    void everyAcknowledgedDsyncAppendOfEveryLogSurvivesAPowerLossAfterEveryCall() throws Exception
    {
        final Run run = run(new SimulatedBlockIo().flushDomain(DEVICE));
        assertTrue(writer.sharedFlushes() >= ROUNDS, "rounds flushed together: " + writer.sharedFlushes());
        assertEquals((long)LOGS * ROUNDS, writer.sharedFlushLogs(), "every log's DSYNC flush was shared");
        final List<String> lost = crashEverywhere(run, new CrashReplayer(run.io(), DeviceModel.VOLATILE_CACHE), 2);
        assertEquals(List.of(), lost, "seed=" + SEED);
    }

    @Test
    void aDeviceWhoseFdatasyncSyncsOnlyItsOwnFileLosesAcknowledgedAppends() throws Exception
    {
        // the engine is told one fdatasync flushes every file; the replayer does not honour it: the check must fail
        final Run run = run(new SimulatedBlockIo().flushDomain(DEVICE));
        final List<String> lost = crashEverywhere(run,
            new CrashReplayer(run.io(), DeviceModel.VOLATILE_CACHE, false), 0);
        assertFalse(lost.isEmpty(), "acknowledged appends survived a flush that covered only one file");
    }

    @Test
    void withoutAFlushDomainEveryLogFlushesAloneAndStillKeepsItsAcknowledgedAppends() throws Exception
    {
        final Run run = run(new SimulatedBlockIo());
        assertEquals(0, writer.sharedFlushes());
        assertTrue(run.io().trace().stream().filter(c -> c.kind() == IoCall.Kind.WRITE && c.dsync()).count() >=
            (long)LOGS * ROUNDS, "each log's flush is its own O_DSYNC write");
        assertEquals(List.of(), crashEverywhere(run, new CrashReplayer(run.io(), DeviceModel.VOLATILE_CACHE), 0));
    }

    @Test
    void aFailedSharedFlushFailsTheLogsItCoveredAndNoOther() throws Exception
    {
        final SimulatedBlockIo device = new SimulatedBlockIo().flushDomain(DEVICE);
        final FailingSync io = new FailingSync(device, writer.thread());
        final SegmentPreparer preparer = new SegmentPreparer(io); // it opens the files the writer writes
        final List<DefaultLog> logs = new ArrayList<>();
        try
        {
            for (int i = 0; i < LOGS; i++)
            {
                logs.add(open(io, preparer, i));
            }
            final int directLog = LOGS - 1;
            io.armed = true;
            final List<CompletableFuture<Long>> acks = holdWriterAndAppend(logs, directLog, Durability.DIRECT);
            for (int i = 0; i < LOGS; i++)
            {
                final CompletableFuture<Long> ack = acks.get(i);
                if (i == directLog)
                {
                    assertEquals(0L, ack.get(30, TimeUnit.SECONDS), "the DIRECT log was not in the flush");
                }
                else
                {
                    final Throwable why = failure(ack);
                    assertInstanceOf(LogFailedException.class, why, "log " + i);
                    assertTrue(why.getMessage().contains("fdatasync shared"), why.getMessage());
                }
            }
            io.armed = false;
            for (int i = 0; i < LOGS; i++)
            {
                final CompletableFuture<Long> later = append(logs.get(i), i, 1, Durability.DSYNC, device);
                if (i == directLog)
                {
                    assertEquals(1L, later.get(30, TimeUnit.SECONDS), "the other log goes on");
                }
                else
                {
                    assertInstanceOf(LogFailedException.class, failure(later), "log " + i + " stays failed");
                }
            }
        }
        finally
        {
            logs.forEach(DefaultLog::close);
            preparer.close();
        }
    }

    /**
     * The writes of a shared flush go out as one batch: one log's failed write (EIO on its segment) fails that log
     * alone, the flush covers the others, which acknowledge after it and go on.
     */
    @Test
    void aFailedWriteOfOneLogAmongSeveralFailsThatLogAloneAndTheFlushCoversTheOthers() throws Exception
    {
        final SimulatedBlockIo device = new SimulatedBlockIo().flushDomain(DEVICE);
        final FailingWrite io = new FailingWrite(device, writer.thread(), name(1));
        final SegmentPreparer preparer = new SegmentPreparer(io);
        final List<DefaultLog> logs = new ArrayList<>();
        try
        {
            for (int i = 0; i < LOGS; i++)
            {
                logs.add(open(io, preparer, i));
            }
            for (final CompletableFuture<Long> first : holdWriterAndAppend(logs, -1, Durability.DSYNC))
            {
                assertEquals(0L, first.get(30, TimeUnit.SECONDS)); // every log has its active segment now
            }
            awaitPrepared(logs);
            final long coveredBefore = writer.sharedFlushLogs();
            io.armed = true; // the next writes of log 1's segment fail: its write in the shared flush
            final List<CompletableFuture<Long>> acks = holdWriterAndAppend(logs, -1, Durability.DSYNC);
            for (int i = 0; i < LOGS; i++)
            {
                if (i == 1)
                {
                    final Throwable why = failure(acks.get(i));
                    assertInstanceOf(LogFailedException.class, why);
                    assertTrue(why.getMessage().contains("write of"), why.getMessage());
                }
                else
                {
                    assertEquals(1L, acks.get(i).get(30, TimeUnit.SECONDS), "log " + i);
                }
            }
            assertEquals(LOGS - 1, writer.sharedFlushLogs() - coveredBefore, "the flush covered the others");
            io.armed = false;
            for (int i = 0; i < LOGS; i++)
            {
                final CompletableFuture<Long> later = append(logs.get(i), i, 2, Durability.DSYNC, null);
                if (i == 1)
                {
                    assertInstanceOf(LogFailedException.class, failure(later), "log 1 stays failed");
                }
                else
                {
                    assertEquals(2L, later.get(30, TimeUnit.SECONDS), "log " + i + " goes on");
                }
            }
        }
        finally
        {
            logs.forEach(DefaultLog::close);
            preparer.close();
        }
    }

    /**
     * On this machine's device (O_DIRECT, native AIO for the shared flush's writes where its filesystem names a
     * flush domain): every record of every log reads back byte-identical after the logs close and the store opens.
     */
    @Test
    void withTheNativeDeviceEveryLogsRecordsReadBackAfterCloseAndReopen() throws Exception
    {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.directlog.nativeio.NativeIo.isAvailable(),
            "native I/O unavailable");
        final NativeBlockIo device = new NativeBlockIo(4096);
        org.junit.jupiter.api.Assumptions.assumeTrue(device.flushDomain(base) != null,
            "the test directory's filesystem names no flush domain: no shared flush there");
        final Run run = run(device);
        assertEquals((long)LOGS * ROUNDS, writer.sharedFlushLogs(), "every log's DSYNC flush was shared");
        assertEquals(List.of(), check(run, Integer.MAX_VALUE, device, "native"));
    }

    /**
     * Appends ROUNDS records to each log, a round at a time, each round taken by one duty cycle.
     *
     * @param io the simulated device (whose calls each acknowledgement counts), or a real one.
     */
    private Run run(final BlockIo io) throws Exception
    {
        final SegmentPreparer preparer = new SegmentPreparer(io);
        final List<DefaultLog> logs = new ArrayList<>();
        final List<Ack> acks = new ArrayList<>();
        final List<List<byte[]>> payloads = new ArrayList<>();
        counting = io instanceof SimulatedBlockIo simulated ? simulated : null;
        try
        {
            for (int i = 0; i < LOGS; i++)
            {
                logs.add(open(io, preparer, i));
                payloads.add(new ArrayList<>());
            }
            awaitPrepared(logs);
            final int firstCall = counting != null ? counting.callCount() : 0;
            for (int round = 0; round < ROUNDS; round++)
            {
                final List<CompletableFuture<Long>> futures = holdWriterAndAppend(logs, -1, Durability.DSYNC);
                for (int i = 0; i < LOGS; i++)
                {
                    final long offset = futures.get(i).get(30, TimeUnit.SECONDS);
                    assertEquals(round, offset);
                    payloads.get(i).add(payload(i, offset));
                    acks.add(new Ack(i, offset, ackCalls.get(i)));
                }
                awaitPrepared(logs);
            }
            return new Run(counting, acks, payloads, firstCall);
        }
        finally
        {
            logs.forEach(DefaultLog::close);
            preparer.close();
        }
    }

    /** The device whose calls an acknowledgement counts, or null. */
    private SimulatedBlockIo counting;
    /** I/O calls completed when each log's last acknowledgement came (written by the writer, read after its future). */
    private final List<Integer> ackCalls = new ArrayList<>(java.util.Collections.nCopies(LOGS, 0));

    /**
     * Holds the writer with a command, offers one append to every log (of {@code odd} durability to log {@code odd}
     * and DSYNC to the others), and lets the writer go: its next duty cycle copies them all, then flushes them.
     */
    private List<CompletableFuture<Long>> holdWriterAndAppend(final List<DefaultLog> logs, final int odd,
        final Durability oddDurability) throws Exception
    {
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        assertTrue(writer.offerCommand(0, () ->
        {
            held.countDown();
            awaitQuietly(release);
        }, Duration.ofSeconds(10)));
        assertTrue(held.await(30, TimeUnit.SECONDS), "the writer did not take the holding command");
        final List<CompletableFuture<Long>> futures = new ArrayList<>();
        try
        {
            for (int i = 0; i < logs.size(); i++)
            {
                final DefaultLog log = logs.get(i);
                futures.add(append(log, i, log.endOffset(), i == odd ? oddDurability : Durability.DSYNC, counting));
            }
        }
        finally
        {
            release.countDown();
        }
        return futures;
    }

    private CompletableFuture<Long> append(final DefaultLog log, final int index, final long offset,
        final Durability durability, final SimulatedBlockIo countCalls)
    {
        final CompletableFuture<Long> done = new CompletableFuture<>();
        final byte[] payload = payload(index, offset);
        log.append(new UnsafeBuffer(payload), 0, payload.length, durability, (at, error) ->
        {
            if (error != null)
            {
                done.completeExceptionally(error);
                return;
            }
            if (countCalls != null)
            {
                ackCalls.set(index, countCalls.callCount());
            }
            done.complete(at);
        });
        return done;
    }

    private DefaultLog open(final BlockIo io, final SegmentPreparer preparer, final int index) throws IOException
    {
        final LogContext context = new LogContext(io, cache, readBuffers, writer, preparer, Duration.ofSeconds(10),
            false, RecoveryMode.TOLERATE_TORN_TAIL, new ReadAhead(0));
        final Path dir = base.resolve(name(index));
        io.createDirectories(dir);
        return LogOpening.open(name(index), dir, context, config());
    }

    private static LogConfig config()
    {
        return LogConfig.builder().segmentSize(SEGMENT).durability(Durability.DSYNC)
            .flushInterval(Duration.ofHours(1)).syncInterval(Duration.ofHours(1)).preparedSegments(1).build();
    }

    private static String name(final int index)
    {
        return "log-" + index;
    }

    private static byte[] payload(final int log, final long offset)
    {
        return TestStores.payload(SEED + log, offset, 100);
    }

    /**
     * A power loss after every call from the first append on: DROP_ALL (every write not durable lost) and
     * {@code randomImages} images with each such write kept, dropped or torn; each opened as a store.
     *
     * @return what was acknowledged before a crash and not recovered, one line each.
     */
    private List<String> crashEverywhere(final Run run, final CrashReplayer replayer, final int randomImages)
        throws Exception
    {
        final List<String> lost = new ArrayList<>();
        final SplittableRandom rng = new SplittableRandom(SEED);
        for (int point = run.firstCall(); point <= replayer.length() && lost.size() < 5; point++)
        {
            replayer.advanceTo(point);
            lost.addAll(check(run, point, replayer.image(rng, FaultProfile.DROP_ALL).io(), "DROP_ALL"));
            for (int i = 0; i < randomImages && lost.isEmpty(); i++)
            {
                lost.addAll(check(run, point, replayer.image(rng, FaultProfile.SECTOR_ATOMIC).io(),
                    "SECTOR_ATOMIC"));
            }
        }
        return lost;
    }

    /**
     * Opens the files through {@code io} (a crash image's, or the real device's) as a store and checks every log: a
     * clean prefix holding what was acknowledged before.
     */
    private List<String> check(final Run run, final int point, final BlockIo io, final String profile)
        throws Exception
    {
        final List<String> lost = new ArrayList<>();
        // the store opens the directory the logs were written in: its names are the image's, its files in memory
        final StoreConfig config = StoreConfig.builder(base).blockIo(io).memoryBudget(32L << 20).writerThreads(1)
            .defaultLogConfig(config()).recoveryMode(RecoveryMode.TOLERATE_TORN_TAIL).build();
        try (LogStore store = LogStore.open(config))
        {
            for (int i = 0; i < LOGS; i++)
            {
                final long required = required(run, point, i);
                final Log log = store.log(name(i));
                final long end = log.endOffset();
                final String where = name(i) + " crash after call " + point + " " + profile + ": ";
                if (end < required)
                {
                    lost.add(where + "recovered end " + end + ", acknowledged " + required);
                }
                long at = 0;
                while (at < end)
                {
                    try (RecordBatch batch = log.read(at, 1 << 16))
                    {
                        for (final Record r : batch)
                        {
                            if (r.offset() != at || !Arrays.equals(r.payloadBytes(), run.payloads().get(i).get((int)at)))
                            {
                                lost.add(where + "record " + r.offset() + " is not what was appended at " + at);
                            }
                            at++;
                        }
                    }
                }
            }
        }
        return lost;
    }

    private static long required(final Run run, final int point, final int log)
    {
        long end = 0;
        for (final Ack a : run.acks())
        {
            if (a.log() == log && a.call() <= point)
            {
                end = Math.max(end, a.offset() + 1);
            }
        }
        return end;
    }

    private static void awaitPrepared(final List<DefaultLog> logs)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (final DefaultLog log : logs)
        {
            while (log.spares().preparedCount() < log.spares().preparedTarget())
            {
                if (System.nanoTime() - deadline > 0)
                {
                    throw new AssertionError("the preparer did not prepare a segment within 30 s");
                }
                Thread.yield();
            }
        }
    }

    private static Throwable failure(final CompletableFuture<Long> future) throws InterruptedException
    {
        try
        {
            future.get(30, TimeUnit.SECONDS);
            return null;
        }
        catch (final java.util.concurrent.ExecutionException e)
        {
            return e.getCause();
        }
        catch (final java.util.concurrent.TimeoutException e)
        {
            throw new AssertionError("no completion within 30 s", e);
        }
    }

    private static void awaitQuietly(final CountDownLatch latch)
    {
        try
        {
            if (!latch.await(30, TimeUnit.SECONDS))
            {
                throw new AssertionError("the test did not release the writer within 30 s");
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** The device, with an fdatasync on the writer thread failing (EIO) while armed. */
    private static final class FailingSync extends InterceptingBlockIo
    {
        private final Thread writerThread;
        volatile boolean armed;

        FailingSync(final BlockIo delegate, final Thread writerThread)
        {
            super(delegate);
            this.writerThread = writerThread;
        }

        @Override
        protected void beforeDatasync(final Path file) throws IOException
        {
            if (armed && Thread.currentThread() == writerThread)
            {
                throw new IOException("EIO (injected) on fdatasync of " + file.getFileName());
            }
        }
    }

    /** The device, with writes of one log's segments on the writer thread failing (EIO) while armed. */
    private static final class FailingWrite extends InterceptingBlockIo
    {
        private final Thread writerThread;
        private final String logName;
        volatile boolean armed;

        FailingWrite(final BlockIo delegate, final Thread writerThread, final String logName)
        {
            super(delegate);
            this.writerThread = writerThread;
            this.logName = logName;
        }

        @Override
        protected void beforeWrite(final Path file) throws IOException
        {
            if (armed && Thread.currentThread() == writerThread && file.getParent().getFileName().toString()
                .equals(logName))
            {
                throw new IOException("EIO (injected) on a write of " + file.getFileName());
            }
        }
    }
}
