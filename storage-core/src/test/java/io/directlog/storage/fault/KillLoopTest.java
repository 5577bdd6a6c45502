package io.directlog.storage.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogStore;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.TestSeed;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 5, fault category 1 (process crashes): a child JVM ({@link KillLoopChild}) appends at saturation and
 * streams its acknowledgements; the parent kills it with SIGKILL at a random moment (every tenth cycle soon
 * after it starts, while it recovers the log the previous kill left), and the next child's recovery is checked:
 * every DIRECT/DSYNC acknowledgement (and every record before one) present and byte-exact, the log a dense prefix
 * with no gap, duplicate or invented record, a recovery killed before any append recovers the same end again
 * (idempotent), and appends continue. One log is continued across a chain of cycles, then a fresh directory
 * starts (bounding disk use); each chain ends with an in-process reopen that checks every record of the chain.
 * MEMORY acknowledgements may be lost; the loss is measured (records, bytes, age at the kill) and the bytes are
 * checked against the flush settings.
 * <p>
 * Seeded: {@code -Ddirectlog.test.seed=<n>} ({@link TestSeed}) replays a run's choices (timings still differ); cycles:
 * {@code -Ddirectlog.kill.cycles=<n>}.
 */
@ExtendWith(TestSeed.class)
class KillLoopTest
{
    private static final int CI_CYCLES = 300;
    private static final int STRESS_CYCLES = 10_000;
    private static final int CHAIN = 10;

    @Test
    @Timeout(value = 9, unit = TimeUnit.MINUTES)
    void acknowledgedRecordsSurviveSigkillAtRandomMoments() throws Exception
    {
        run(Integer.getInteger("directlog.kill.cycles", CI_CYCLES));
    }

    @Test
    @Tag("stress")
    @Timeout(value = 6, unit = TimeUnit.HOURS)
    void acknowledgedRecordsSurviveTenThousandSigkills() throws Exception
    {
        run(Integer.getInteger("directlog.kill.cycles", STRESS_CYCLES));
    }

    private static void run(final int cycles) throws Exception
    {
        final long seed = TestSeed.seed();
        // two lanes (two chains of children at once) keep 300 cycles within the CI budget: much of a cycle is
        // JVM start and the open's fdatasyncs, which overlap well even on 2 cores
        final int lanes = Integer.getInteger("directlog.kill.lanes", 2);
        final KillLoop[] loops = new KillLoop[lanes];
        final Path work = Path.of(System.getProperty("directlog.test.dir", "target/test-data"), "kill-loop");
        java.nio.file.Files.createDirectories(work);
        final long tp = System.nanoTime();
        final KillLoopLauncher launcher = KillLoopLauncher.prepare(work);
        System.out.printf("KillLoopTest: child launcher ready in %.1fs, CDS archive: %s%n",
            (System.nanoTime() - tp) / 1e9, launcher.hasArchive());
        final ExecutorService pool = Executors.newFixedThreadPool(lanes);
        final List<Future<?>> runs = new ArrayList<>();
        final long t0 = System.nanoTime();
        for (int i = 0; i < lanes; i++)
        {
            loops[i] = new KillLoop(seed, i);
            final KillLoop loop = loops[i];
            final int n = cycles / lanes + (i < cycles % lanes ? 1 : 0);
            runs.add(pool.submit(() ->
            {
                loop.run(n, launcher);
                return null;
            }));
        }
        pool.shutdown();
        Throwable failure = null;
        for (final Future<?> f : runs)
        {
            try
            {
                f.get();
            }
            catch (final ExecutionException e)
            {
                failure = failure == null ? e.getCause() : failure;
            }
        }
        long lost = 0;
        long acked = 0;
        long recycled = 0;
        int done = 0;
        int checked = 0;
        final List<String> violations = new ArrayList<>();
        for (final KillLoop loop : loops)
        {
            loop.printReport();
            lost += loop.lost;
            acked += loop.ackedChecked;
            recycled += loop.recycledSegments;
            done += loop.cycles;
            checked += loop.recoveriesChecked;
            violations.addAll(loop.violations);
        }
        System.out.printf("KillLoopTest seed=%d lanes=%d cycles=%d time=%.1fs recycled segments at chain ends=%d%n",
            seed, lanes, done, (System.nanoTime() - t0) / 1e9, recycled);
        // detected: kills after which a recovery completed and was checked (a kill during recovery is checked by
        // the next cycle's recovery, so it does not count on its own)
        System.out.printf("FAULT-SUMMARY category=kill cases=%d acked_checked=%d lost=%d detected=%d/%d%n",
            done, acked, lost, checked, done);
        if (failure != null || lost != 0 || !violations.isEmpty())
        {
            System.out.println("KillLoopTest FAILED with seed " + seed + " (" + TestSeed.replayOption() + ")");
        }
        if (failure != null)
        {
            throw new AssertionError("kill loop failed, seed " + seed, failure);
        }
        assertEquals(0, lost, "lost DIRECT/DSYNC acknowledged records, seed " + seed);
        assertTrue(done < 20 || recycled > 0, "retention never gave a file back for reuse: the loop did not meet " +
            "recycled segments");
        assertTrue(violations.isEmpty(), "violations with seed " + seed + ": " + violations);
    }

    /** The parent's side: the oracle of what must survive, and the cycle driver. */
    static final class KillLoop
    {
        final long seed;
        final SplittableRandom rng;
        final List<String> violations = new ArrayList<>();
        long lost;
        long recycledSegments;
        long ackedChecked;
        long recordsVerified;
        int cycles;
        int recoveryKills;
        int killedBeforeOpen;
        long maxMemoryLostRecords;
        long maxMemoryLostBytes;
        double maxMemoryLostAgeMs;
        int memoryRunsWithLoss;
        long maxOpenMillis;
        final List<Long> openMillis = new ArrayList<>();
        long totalAcks;
        int recoveriesChecked;
        long started;

        // the oracle of the current chain's log
        Path dir;
        int chainCycle;
        final Model model = new Model();
        long verifiedEnd;
        long mustHave;
        long unchangedEnd = -1;

        final int lane;

        KillLoop(final long seed, final int lane)
        {
            this.seed = seed;
            this.lane = lane;
            this.rng = new SplittableRandom(seed + 0x9E3779B97F4A7C15L * lane);
        }

        void run(final int n, final KillLoopLauncher launcher) throws Exception
        {
            started = System.nanoTime();
            final Path base = Path.of(System.getProperty("directlog.test.dir", "target/test-data"), "kill-loop");
            java.nio.file.Files.createDirectories(base);
            long lastOpenMs = 400;
            for (int c = 0; c < n; c++)
            {
                if (dir == null || chainCycle == CHAIN)
                {
                    if (dir != null)
                    {
                        finishChain();
                    }
                    dir = java.nio.file.Files.createTempDirectory(base, "chain");
                    chainCycle = 0;
                    model.clear();
                    verifiedEnd = 0;
                    mustHave = 0;
                    unchangedEnd = -1;
                }
                final boolean duringRecovery = c % 10 == 9 && chainCycle > 0;
                final Cycle cycle = new Cycle(c, rng.nextLong(), pickMode(), producers(),
                    Math.max(0, verifiedEnd - 64));
                final long killAfterMs = duringRecovery ? rng.nextLong(lastOpenMs + 1) : 0;
                final long appendMs = 20 + rng.nextLong(230);
                cycle.execute(launcher, dir, duringRecovery, killAfterMs, appendMs);
                if (cycle.openMs >= 0)
                {
                    lastOpenMs = cycle.openMs;
                    openMillis.add(cycle.openMs);
                    maxOpenMillis = Math.max(maxOpenMillis, cycle.openMs);
                }
                if (duringRecovery)
                {
                    recoveryKills++;
                    killedBeforeOpen += cycle.openMs < 0 ? 1 : 0;
                }
                check(cycle);
                chainCycle++;
                cycles++;
            }
            if (dir != null)
            {
                finishChain();
            }
        }

        private String pickMode()
        {
            final String[] modes = {"MEMORY", "DIRECT", "DSYNC", "MIXED"};
            return modes[rng.nextInt(modes.length)];
        }

        private int producers()
        {
            return Math.min(64, 1 << rng.nextInt(7)) + (rng.nextBoolean() ? 0 : rng.nextInt(3));
        }

        /** Checks what the cycle's child recovered against the oracle, then adds what it acknowledged. */
        /** Segments the chain's crashes left that were made from files retention gave back (header flag). */
        private static int countRecycled(final Path logDir)
        {
            int n = 0;
            try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(logDir))
            {
                for (final Path f : (Iterable<Path>)files::iterator)
                {
                    if (f.getFileName().toString().endsWith(".log"))
                    {
                        final java.nio.ByteBuffer h = java.nio.ByteBuffer.wrap(LogSurgery.read(f), 0, 64)
                            .order(java.nio.ByteOrder.nativeOrder());
                        if (h.getLong(0) == io.directlog.storage.format.SegmentHeaderDescriptor.MAGIC &&
                            (h.getInt(io.directlog.storage.format.SegmentHeaderDescriptor.FLAGS_OFFSET) &
                            io.directlog.storage.format.SegmentHeaderDescriptor.FLAG_RECYCLED) != 0)
                        {
                            n++;
                        }
                    }
                }
            }
            catch (final java.io.IOException e)
            {
                throw new java.io.UncheckedIOException(e);
            }
            return n;
        }

        private void check(final Cycle cycle)
        {
            final String where = "cycle " + cycle.index + " (" + cycle.mode + ", " + cycle.producers +
                " producers, child seed " + cycle.seed + ")";
            if (cycle.failure != null)
            {
                violation(where + ": " + cycle.failure);
            }
            if (cycle.openMs >= 0)
            {
                recoveriesChecked++;
                final long end = cycle.end;
                if (end < mustHave)
                {
                    final long missing = model.countKnown(end, mustHave);
                    lost += missing;
                    violation(where + ": recovered end " + end + " < " + mustHave +
                        " (everything below was durable or acknowledged DIRECT/DSYNC): " + missing + " lost");
                }
                if (unchangedEnd >= 0 && end != unchangedEnd)
                {
                    violation(where + ": recovery not idempotent: the previous recovery ended at " +
                        unchangedEnd + " and nothing was appended since, now " + end);
                }
                // retention drops whole segments from the start: the child reports from there
                long expect = Math.max(cycle.verifyFrom, cycle.start);
                for (final long[] r : cycle.recovered)
                {
                    if (r[0] < 0)
                    {
                        expect = Math.max(expect, r[1]); // retention moved the start: the records below went
                        continue;
                    }
                    final long offset = r[0];
                    if (offset != expect)
                    {
                        violation(where + ": recovered offset " + offset + " where " + expect +
                            " was expected (gap or duplicate)");
                        break;
                    }
                    if (r[1] != 1)
                    {
                        violation(where + ": offset " + offset + " has count " + r[1]);
                    }
                    if (r[4] != 1)
                    {
                        violation(where + ": offset " + offset + " holds a record no producer wrote (self-check)");
                    }
                    if (model.known(offset))
                    {
                        ackedChecked++;
                        if (model.length(offset) != r[2] || model.crc(offset) != (int)r[3])
                        {
                            lost++;
                            violation(where + ": offset " + offset + " differs: length " + r[2] + " crc " +
                                r[3] + ", acknowledged length " + model.length(offset) + " crc " + model.crc(offset));
                        }
                    }
                    recordsVerified++;
                    expect = offset + 1;
                }
                if (cycle.verified)
                {
                    if (expect != end)
                    {
                        violation(where + ": records reported up to " + expect + ", end is " + end);
                    }
                    // MEMORY acknowledgements beyond the recovered end: the documented, bounded loss
                    final Model.Loss loss = model.lossFrom(end);
                    if (loss.records > 0)
                    {
                        memoryRunsWithLoss++;
                        maxMemoryLostRecords = Math.max(maxMemoryLostRecords, loss.records);
                        maxMemoryLostBytes = Math.max(maxMemoryLostBytes, loss.bytes);
                        maxMemoryLostAgeMs = Math.max(maxMemoryLostAgeMs, loss.ageMs);
                        final long bound = 4L * KillLoopChild.FLUSH_BYTES + KillLoopChild.SEGMENT_SIZE;
                        if (loss.bytes > bound)
                        {
                            violation(where + ": MEMORY loss of " + loss.bytes + " bytes exceeds the flush bound " +
                                bound);
                        }
                    }
                    for (final long[] r : cycle.recovered)
                    {
                        if (r[0] < 0)
                        {
                            continue; // a "T" line
                        }
                        model.put(r[0], (int)r[2], (int)r[3], -1, -1); // recovered and synced: durable from now on
                    }
                    model.truncate(end);
                    verifiedEnd = end;
                    mustHave = end;
                    unchangedEnd = -1;
                }
                else
                {
                    unchangedEnd = cycle.acks.isEmpty() ? end : -1;
                }
            }
            for (final long[] a : cycle.acks)
            {
                model.put(a[0], (int)a[1], (int)a[3], (int)a[4], a[5]);
                totalAcks++;
                if (a[4] != Durability.MEMORY.ordinal())
                {
                    mustHave = Math.max(mustHave, a[0] + 1); // acknowledgements are in order: all before it too
                }
            }
            model.killNanos(cycle.killNanos);
        }

        /** Reopens the chain's log in this JVM: every record of the chain checked, and appends continue. */
        private void finishChain()
        {
            final String where = "end of chain " + dir.getFileName();
            recycledSegments += countRecycled(dir.resolve(KillLoopChild.LOG_NAME));
            try (LogStore store = LogStore.open(KillLoopChild.config(dir, Durability.DSYNC)))
            {
                final Log log = store.log(KillLoopChild.LOG_NAME);
                final long end = log.endOffset();
                if (end < mustHave)
                {
                    final long missing = model.countKnown(end, mustHave);
                    lost += missing;
                    violation(where + ": end " + end + " < " + mustHave + ": " + missing + " lost");
                }
                long next = log.startOffset(); // below it: dropped by retention
                while (next < end)
                {
                    final RecordBatch read;
                    try
                    {
                        read = log.read(next, 4 << 20);
                    }
                    catch (final io.directlog.storage.OffsetOutOfRangeException e)
                    {
                        next = log.startOffset(); // retention ran while this read
                        continue;
                    }
                    try (RecordBatch batch = read)
                    {
                        if (batch.isEmpty())
                        {
                            violation(where + ": nothing readable at " + next + " before end " + end);
                            break;
                        }
                        for (final Record r : batch)
                        {
                            final byte[] payload = r.payloadBytes();
                            if (r.offset() != next)
                            {
                                violation(where + ": offset " + r.offset() + " where " + next + " expected");
                            }
                            if (!KillLoopChild.selfCheck(payload))
                            {
                                violation(where + ": offset " + r.offset() + " fails the self-check");
                            }
                            if (model.known(r.offset()) && (model.length(r.offset()) != payload.length ||
                                model.crc(r.offset()) != KillLoopChild.crc(payload)))
                            {
                                lost++;
                                violation(where + ": offset " + r.offset() + " differs from its acknowledgement");
                            }
                            next = r.nextOffset();
                        }
                    }
                }
                final long appended = log.append(new byte[] {1, 2, 3}, Durability.DSYNC).join();
                assertEquals(end, appended, where + ": the first append after recovery");
            }
            catch (final RuntimeException e)
            {
                violation(where + ": " + e);
            }
            if (violations.isEmpty())
            {
                Dirs.delete(dir); // kept with its child's stderr when something went wrong
                Dirs.delete(dir.resolveSibling(dir.getFileName() + ".stderr"));
            }
            else
            {
                System.out.println("KillLoopTest: kept " + dir + " for inspection");
            }
        }

        private void violation(final String v)
        {
            violations.add(v);
            System.out.println("KillLoopTest violation (seed " + seed + ", lane " + lane + "): " + v);
        }

        void printReport()
        {
            final double seconds = (System.nanoTime() - started) / 1e9;
            openMillis.sort(null);
            final long p50 = openMillis.isEmpty() ? -1 : openMillis.get(openMillis.size() / 2);
            final long p99 = openMillis.isEmpty() ? -1 : openMillis.get(openMillis.size() * 99 / 100);
            System.out.printf("KillLoopTest lane=%d seed=%d cycles=%d time=%.1fs acks=%d recordsVerified=%d " +
                "recoveryKills=%d (before open finished: %d) openMs p50=%d p99=%d max=%d%n", lane, seed, cycles, seconds,
                totalAcks, recordsVerified, recoveryKills, killedBeforeOpen, p50, p99, maxOpenMillis);
            System.out.printf("KillLoopTest lane=" + lane + " MEMORY loss: runs with loss=%d, max records=%d, max bytes=%d " +
                "(bound 4*flushBytes+segment=%d), max age at kill=%.1f ms (flushInterval=%d ms)%n",
                memoryRunsWithLoss, maxMemoryLostRecords, maxMemoryLostBytes,
                4L * KillLoopChild.FLUSH_BYTES + KillLoopChild.SEGMENT_SIZE, maxMemoryLostAgeMs,
                KillLoopChild.FLUSH_INTERVAL.toMillis());
        }
    }

    /** One child run. */
    static final class Cycle
    {
        final int index;
        final long seed;
        final String mode;
        final int producers;
        final long verifyFrom;
        final List<long[]> recovered = new ArrayList<>();
        final List<long[]> acks = new ArrayList<>();
        long openMs = -1;
        long start;
        long end = -1;
        boolean verified;
        volatile long killNanos;
        String failure;

        Cycle(final int index, final long seed, final String mode, final int producers, final long verifyFrom)
        {
            this.index = index;
            this.seed = seed;
            this.mode = mode;
            this.producers = producers;
            this.verifyFrom = verifyFrom;
        }

        void execute(final KillLoopLauncher launcher, final Path dir, final boolean duringRecovery, final long killAfterMs, final long appendMs)
            throws Exception
        {
            final List<String> command = launcher.command(dir.toString(), Long.toString(seed), mode,
                Integer.toString(producers), Long.toString(verifyFrom));
            final File err = dir.resolveSibling(dir.getFileName() + ".stderr").toFile();
            final Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(err)).start();
            final Object lock = new Object();
            final int[] phase = {0}; // 1 started, 2 opened, 3 verified, 4 eof
            final Thread reader = new Thread(() ->
            {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.US_ASCII), 1 << 16))
                {
                    String line;
                    while ((line = in.readLine()) != null)
                    {
                        parse(line, lock, phase);
                    }
                }
                catch (final IOException e)
                {
                    if (killNanos == 0)
                    {
                        failure = "reading the child: " + e;
                    }
                    // else: the JDK's process reaper closed the pipe after the kill; what was unread is not
                    // counted as acknowledged, which only weakens the oracle, never falsely passes it
                }
                catch (final RuntimeException e)
                {
                    failure = "reading the child: " + e;
                }
                synchronized (lock)
                {
                    phase[0] = 4;
                    lock.notifyAll();
                }
            }, "kill-loop-reader");
            reader.start();
            try
            {
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                final int waitFor = duringRecovery ? 1 : 3;
                synchronized (lock)
                {
                    while (phase[0] < waitFor && System.nanoTime() < deadline)
                    {
                        lock.wait(100);
                    }
                    if (phase[0] == 4 || phase[0] < waitFor)
                    {
                        failure = "child ended or stalled before phase " + waitFor + " (exit " +
                            (p.isAlive() ? "none" : p.exitValue()) + "), see " + err;
                    }
                }
                Thread.sleep(duringRecovery ? killAfterMs : appendMs); // the fault's timing, not a wait for a thread
            }
            finally
            {
                killNanos = System.nanoTime();
                p.destroyForcibly(); // SIGKILL on Linux
                p.waitFor();
                reader.join();
            }
        }

        private void parse(final String line, final Object lock, final int[] phase)
        {
            final String[] f = line.split(" ");
            switch (f[0])
            {
                case "S" -> advance(lock, phase, 1);
                case "O" ->
                {
                    if (f.length < 4)
                    {
                        return; // cut by the kill
                    }
                    start = Long.parseLong(f[1]);
                    end = Long.parseLong(f[2]);
                    openMs = Long.parseLong(f[3]);
                    advance(lock, phase, 2);
                }
                case "T" ->
                {
                    if (f.length == 2 && !f[1].isEmpty())
                    {
                        recovered.add(new long[] {-1, Long.parseLong(f[1])}); // the report goes on from there
                    }
                }
                case "R" ->
                {
                    if (f.length == 6 && !f[5].isEmpty())
                    {
                        recovered.add(new long[] {Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                            Long.parseLong(f[4]), Long.parseLong(f[5])});
                    }
                }
                case "V" ->
                {
                    verified = true;
                    advance(lock, phase, 3);
                }
                case "A" ->
                {
                    if (f.length == 7 && !f[6].isEmpty())
                    {
                        acks.add(new long[] {Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                            Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6])});
                    }
                }
                case "F" -> failure = "child reported: " + line;
                case "Z" ->
                {
                    if (line.startsWith("Z bad"))
                    {
                        failure = "I5 after recovery: " + line;
                    }
                }
                default ->
                {
                    // a line cut by the kill
                }
            }
        }

        private static void advance(final Object lock, final int[] phase, final int to)
        {
            synchronized (lock)
            {
                phase[0] = Math.max(phase[0], to);
                lock.notifyAll();
            }
        }
    }

    /** What the parent knows about each offset of the chain's log: acknowledged or verified records. */
    static final class Model
    {
        private long[] crcAndLength = new long[1 << 16];
        private byte[] mode = new byte[1 << 16];
        private long[] ackNanos = new long[1 << 16];
        private boolean[] present = new boolean[1 << 16];
        private long size;
        private long lastKillNanos;

        record Loss(long records, long bytes, double ageMs)
        {
        }

        void clear()
        {
            java.util.Arrays.fill(present, false);
            size = 0;
        }

        void killNanos(final long nanos)
        {
            lastKillNanos = nanos;
        }

        void put(final long offset, final int length, final int crc, final int durability, final long nanos)
        {
            final int i = Math.toIntExact(offset);
            if (i >= present.length)
            {
                final int n = Math.max(i + 1, present.length * 2);
                crcAndLength = java.util.Arrays.copyOf(crcAndLength, n);
                mode = java.util.Arrays.copyOf(mode, n);
                ackNanos = java.util.Arrays.copyOf(ackNanos, n);
                present = java.util.Arrays.copyOf(present, n);
            }
            crcAndLength[i] = ((long)length << 32) | (crc & 0xFFFFFFFFL);
            mode[i] = (byte)durability;
            ackNanos[i] = nanos;
            present[i] = true;
            size = Math.max(size, offset + 1);
        }

        boolean known(final long offset)
        {
            return offset < size && present[(int)offset];
        }

        int length(final long offset)
        {
            return (int)(crcAndLength[(int)offset] >>> 32);
        }

        int crc(final long offset)
        {
            return (int)crcAndLength[(int)offset];
        }

        long countKnown(final long from, final long to)
        {
            long n = 0;
            for (long o = from; o < to; o++)
            {
                n += known(o) ? 1 : 0;
            }
            return n;
        }

        /** The acknowledged records at or above {@code end}, which a recovery that ended there lost. */
        Loss lossFrom(final long end)
        {
            long records = 0;
            long bytes = 0;
            long oldest = Long.MAX_VALUE;
            for (long o = end; o < size; o++)
            {
                if (known(o))
                {
                    records++;
                    bytes += length(o);
                    oldest = Math.min(oldest, ackNanos[(int)o]);
                }
            }
            return new Loss(records, bytes, records == 0 ? 0 : (lastKillNanos - oldest) / 1e6);
        }

        void truncate(final long end)
        {
            for (long o = end; o < size; o++)
            {
                present[(int)o] = false;
            }
            size = Math.min(size, end);
        }
    }

}
