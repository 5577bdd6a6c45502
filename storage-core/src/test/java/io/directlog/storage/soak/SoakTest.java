package io.directlog.storage.soak;

import io.directlog.storage.AppendTimeoutException;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogClosedException;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogReader;
import io.directlog.storage.LogStore;
import io.directlog.storage.OffsetOutOfRangeException;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.StoreConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The soak (issue 5, part 7; {@code -Psoak}): producers faster than the disk, mixed record sizes and durabilities,
 * a consumer on the tail and one that lags, for {@code -Ddirectlog.soak.seconds} (default 600). Every 10 s it
 * samples heap after GC, direct memory, RSS, open descriptors, queue depth and append latency, and then asserts:
 * heap after GC, direct memory, RSS and descriptors flat after warm-up; back-pressure (blocked or timed-out
 * appends) instead of OutOfMemoryError; p99 of the last "minute" within 2x of minute 3 (a "minute" is a tenth of
 * the run, so the 30 s smoke run keeps the shape).
 * <p>
 * The disk stays bounded by rotating logs rather than by retention (TruncateAndRetentionTest covers that):
 * when a log holds 1 GiB, producers move to a new one and the log before the previous one is deleted (consumers
 * reading it move on), so the soak also exercises log create and delete under load.
 */
@Tag("soak")
class SoakTest
{
    private static final long SECONDS = Long.getLong("directlog.soak.seconds", 600);
    private static final long SAMPLE_MILLIS = Long.getLong("directlog.soak.sampleMillis",
        Math.min(10_000, SECONDS * 1000 / 15));
    private static final long ROTATE_BYTES = Long.getLong("directlog.soak.rotateBytes", 1L << 30);
    private static final int PRODUCERS = 4;
    private static final int MAGIC = 0x534f414b;
    private static final byte[] BODY = new byte[1 << 20];

    static
    {
        new SplittableRandom(42).nextBytes(BODY);
    }

    private final AtomicReference<Log> current = new AtomicReference<>();
    private final AtomicLong submitted = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong appendedBytes = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();
    private final AtomicLong verified = new AtomicLong();
    private final AtomicLong corrupt = new AtomicLong();
    private final AtomicLong lagBytes = new AtomicLong();
    private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    private volatile LatencyHistogram window = new LatencyHistogram();
    private volatile boolean running = true;

    private record Sample(long atMillis, long heapAfterGc, long direct, long rss, long fds, long queueDepth,
        long p50Micros, long p99Micros, double mibPerSecond, long lagMiB, long timeouts)
    {
        @Override
        public String toString()
        {
            return String.format("t=%4ds heapAfterGC=%4dMiB direct=%4dMiB rss=%5dMiB fds=%4d queue=%6d " +
                    "p50=%7dus p99=%8dus %6.1fMiB/s lag=%5dMiB timeouts=%d", atMillis / 1000, heapAfterGc >> 20,
                direct >> 20, rss >> 20, fds, queueDepth, p50Micros, p99Micros, mibPerSecond, lagMiB, timeouts);
        }
    }

    @Test
    @Timeout(value = 3600, unit = TimeUnit.SECONDS)
    void memoryDescriptorsAndLatencyStayFlatAtSaturation() throws Exception
    {
        final Path dir = Files.createTempDirectory(
            Files.createDirectories(Path.of(System.getProperty("directlog.test.dir", "target/test-data"))), "soak");
        final LogConfig logConfig = LogConfig.builder().durability(Durability.DIRECT).build();
        final StoreConfig config = StoreConfig.builder(dir).memoryBudget(256L << 20).writerThreads(1)
            .appendTimeout(Duration.ofSeconds(5)).defaultLogConfig(logConfig).build();
        final List<Sample> samples = new ArrayList<>();
        final int minutes = 10;
        final long minuteMillis = SECONDS * 1000 / minutes;
        final LatencyHistogram[] perMinute = new LatencyHistogram[minutes + 1];
        Arrays.setAll(perMinute, i -> new LatencyHistogram());
        final AtomicReference<LatencyHistogram> minute = new AtomicReference<>(perMinute[0]);
        System.out.println("soak: " + SECONDS + " s in " + dir + ", sample every " + SAMPLE_MILLIS + " ms");
        try (LogStore store = LogStore.open(config))
        {
            int generation = 0;
            final List<String> generations = new ArrayList<>();
            generations.add("soak-" + generation);
            current.set(store.log(generations.get(0)));
            final List<Thread> threads = new ArrayList<>();
            final CountDownLatch stopped = new CountDownLatch(PRODUCERS + 2);
            for (int p = 0; p < PRODUCERS; p++)
            {
                final int producer = p;
                threads.add(new Thread(() -> produce(producer, minute, stopped), "soak-producer-" + p));
            }
            threads.add(new Thread(() -> consume(store, false, stopped), "soak-tail"));
            threads.add(new Thread(() -> consume(store, true, stopped), "soak-lagging"));
            threads.forEach(Thread::start);

            final long start = System.nanoTime();
            long lastBytes = 0;
            long nextSample = SAMPLE_MILLIS;
            while (true)
            {
                final long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                if (elapsedMillis >= SECONDS * 1000)
                {
                    break;
                }
                minute.set(perMinute[(int)Math.min(minutes, elapsedMillis / minuteMillis)]);
                if (current.get().stats().appendedBytes() > ROTATE_BYTES)
                {
                    // rotate: producers move on; the log two generations back is deleted
                    generations.add("soak-" + ++generation);
                    current.set(store.log(generations.get(generations.size() - 1)));
                    if (generations.size() > 2)
                    {
                        store.deleteLog(generations.remove(0));
                    }
                }
                if (elapsedMillis >= nextSample)
                {
                    nextSample += SAMPLE_MILLIS;
                    final LatencyHistogram w = window;
                    window = new LatencyHistogram();
                    final long bytes = appendedBytes.get();
                    final Sample s = sample(elapsedMillis, w, (bytes - lastBytes) / (SAMPLE_MILLIS / 1000.0) / (1 << 20));
                    lastBytes = bytes;
                    samples.add(s);
                    System.out.println("soak: " + s);
                }
                // the control loop's period: rotation checks and sampling, not a wait for another thread
                Thread.sleep(50);
            }
            running = false;
            assertTrue(stopped.await(60, TimeUnit.SECONDS), "producers and consumers did not stop within 60 s");
        }
        System.out.println("soak: appends " + completed + " (" + (appendedBytes.get() >> 20) + " MiB), verified by " +
            "consumers " + verified + ", corrupt " + corrupt + ", append timeouts (back-pressure past 5 s) " + timeouts +
            ", errors " + errors.size());
        for (int m = 0; m < minutes; m++)
        {
            System.out.printf("soak: minute %d p50=%dus p99=%dus n=%d%n", m + 1, perMinute[m].percentile(50) / 1000,
                perMinute[m].percentile(99) / 1000, perMinute[m].count());
        }
        final List<String> violations = check(samples, perMinute[2], perMinute[minutes - 1]);
        System.out.println("FAULT-SUMMARY category=soak cases=" + samples.size() + " acked_checked=" + verified +
            " lost=" + corrupt + " detected=0/0");
        assertTrue(errors.isEmpty(), () -> "errors: " + errors);
        assertTrue(corrupt.get() == 0, () -> corrupt + " records read back damaged");
        assertTrue(violations.isEmpty(), () -> "soak: " + violations);
        deleteQuietly(dir);
    }

    private List<String> check(final List<Sample> samples, final LatencyHistogram minute3, final LatencyHistogram last)
    {
        final List<String> violations = new ArrayList<>();
        final List<Sample> steady = samples.subList(Math.min(samples.size() - 1, samples.size() / 5), samples.size());
        final Sample first = steady.get(0);
        final Sample end = steady.get(steady.size() - 1);
        final long heapMin = steady.stream().mapToLong(Sample::heapAfterGc).min().orElse(0);
        final long heapLastMax = steady.subList(Math.max(0, steady.size() - 3), steady.size()).stream()
            .mapToLong(Sample::heapAfterGc).min().orElse(0);
        if (heapLastMax > heapMin * 1.10 + (16 << 20))
        {
            violations.add("heap after GC grew from " + (heapMin >> 20) + " MiB to " + (heapLastMax >> 20) + " MiB");
        }
        final long directMax = steady.stream().mapToLong(Sample::direct).max().orElse(0);
        final long directMin = steady.stream().mapToLong(Sample::direct).min().orElse(0);
        if (directMax - directMin > 4 << 20)
        {
            violations.add("direct memory moved between " + (directMin >> 20) + " and " + (directMax >> 20) + " MiB");
        }
        if (end.rss() > first.rss() * 1.10 + (64 << 20))
        {
            violations.add("RSS grew from " + (first.rss() >> 20) + " MiB to " + (end.rss() >> 20) + " MiB");
        }
        // descriptors follow the rotation phase (one per segment file, two logs alive): a leak shows as a rising
        // peak, so the peak of the last third is compared with the peak of the first third
        final int third = Math.max(1, steady.size() / 3);
        final long fdsEarly = steady.subList(0, third).stream().mapToLong(Sample::fds).max().orElse(0);
        final long fdsLate = steady.subList(steady.size() - third, steady.size()).stream().mapToLong(Sample::fds)
            .max().orElse(0);
        if (fdsLate > fdsEarly + 8)
        {
            violations.add("open descriptors peaked at " + fdsEarly + " early and " + fdsLate + " late");
        }
        final long p99Minute3 = minute3.percentile(99);
        final long p99Last = last.percentile(99);
        if (p99Last > 2 * p99Minute3)
        {
            violations.add("p99 of the last minute " + p99Last / 1000 + " us > 2x minute 3 (" + p99Minute3 / 1000 +
                " us)");
        }
        return violations;
    }

    private Sample sample(final long atMillis, final LatencyHistogram w, final double mibPerSecond)
    {
        System.gc();
        final long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long direct = 0;
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if ("direct".equals(pool.getName()))
            {
                direct = pool.getMemoryUsed();
            }
        }
        return new Sample(atMillis, heap, direct, rss(), fds(), submitted.get() - completed.get(),
            w.percentile(50) / 1000, w.percentile(99) / 1000, mibPerSecond, lagBytes.get() >> 20, timeouts.get());
    }

    private static long rss()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
            {
                if (line.startsWith("VmRSS:"))
                {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
                }
            }
        }
        catch (final IOException e)
        {
            return -1;
        }
        return -1;
    }

    private static long fds()
    {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd")))
        {
            return fds.count();
        }
        catch (final IOException e)
        {
            return -1;
        }
    }

    private void produce(final int producer, final AtomicReference<LatencyHistogram> minute, final CountDownLatch stopped)
    {
        final SplittableRandom random = new SplittableRandom(producer);
        try
        {
            for (long seq = 0; running; seq++)
            {
                final int roll = random.nextInt(100);
                final int length = roll < 70 ? random.nextInt(64, 1025) :
                    roll < 95 ? random.nextInt(1025, 16_385) : random.nextInt(16_385, 262_145);
                final int d = random.nextInt(10);
                final Durability durability = d < 5 ? Durability.DIRECT : d < 8 ? Durability.DSYNC : Durability.MEMORY;
                final byte[] payload = payload(producer, seq, length);
                final long t0 = System.nanoTime();
                submitted.incrementAndGet();
                // no window of our own: the engine's queue is the only back-pressure
                current.get().append(payload, durability).whenComplete((offset, error) ->
                {
                    final long nanos = System.nanoTime() - t0;
                    completed.incrementAndGet();
                    if (error == null)
                    {
                        window.record(nanos);
                        minute.get().record(nanos);
                        appendedBytes.addAndGet(length);
                    }
                    else if (error instanceof AppendTimeoutException)
                    {
                        timeouts.incrementAndGet();
                    }
                    else if (!(error instanceof LogClosedException))
                    {
                        errors.add(error);
                    }
                });
            }
        }
        catch (final OutOfMemoryError e)
        {
            errors.add(e);
        }
        catch (final RuntimeException e)
        {
            if (!(e instanceof LogClosedException))
            {
                errors.add(e);
            }
        }
        finally
        {
            stopped.countDown();
        }
    }

    private void consume(final LogStore store, final boolean lagging, final CountDownLatch stopped)
    {
        try
        {
            while (running)
            {
                final Log log = current.get();
                try (LogReader reader = log.reader(lagging ? log.startOffset() : log.visibleEndOffset()))
                {
                    long expected = reader.position();
                    // follow this log until producers moved on and its end is reached (the tail) or it is deleted
                    while (running)
                    {
                        try (RecordBatch batch = reader.poll(1 << 20, Duration.ofMillis(100)))
                        {
                            if (batch.isEmpty())
                            {
                                if (current.get() != log)
                                {
                                    break;
                                }
                                continue;
                            }
                            for (final Record r : batch)
                            {
                                if (r.offset() != expected || !valid(r))
                                {
                                    corrupt.incrementAndGet();
                                }
                                expected = r.nextOffset();
                                verified.incrementAndGet();
                            }
                            if (lagging)
                            {
                                lagBytes.set(Math.max(0, log.stats().appendedBytes() - readBytes(log, expected)));
                                // the lagging consumer reads at most one batch per 5 ms, so it falls behind
                                Thread.sleep(5);
                            }
                        }
                    }
                }
                catch (final LogClosedException | OffsetOutOfRangeException moved)
                {
                    // the log was deleted under the consumer: go to the current one
                }
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        catch (final OutOfMemoryError | RuntimeException e)
        {
            errors.add(e);
        }
        finally
        {
            stopped.countDown();
        }
    }

    private static long readBytes(final Log log, final long offset)
    {
        // an estimate for the printout only: the offset's share of the log's appended bytes
        final long end = Math.max(1, log.endOffset());
        return (long)((double)offset / end * log.stats().appendedBytes());
    }

    private static byte[] payload(final int producer, final long seq, final int length)
    {
        final byte[] b = new byte[length];
        ByteBuffer.wrap(b).putInt(MAGIC).putInt(producer).putLong(seq);
        final int from = (int)((seq * 7919) % (BODY.length - length));
        System.arraycopy(BODY, from, b, 16, length - 16);
        return b;
    }

    private static boolean valid(final Record r)
    {
        final byte[] b = r.payloadBytes();
        if (b.length < 16)
        {
            return false;
        }
        final ByteBuffer h = ByteBuffer.wrap(b);
        if (h.getInt() != MAGIC)
        {
            return false;
        }
        h.getInt();
        final long seq = h.getLong();
        final int from = (int)((seq * 7919) % (BODY.length - b.length));
        return Arrays.equals(b, 16, b.length, BODY, from, from + b.length - 16);
    }

    private static void deleteQuietly(final Path dir)
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
        }
        catch (final IOException e)
        {
            // target/ goes with mvn clean
        }
    }
}
