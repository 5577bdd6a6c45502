package io.directlog.storage;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Issue 21's catch-up scenario scaled down to one store, run by hand (not a test: it asserts nothing and prints
 * figures): 16 logs with a backlog several times the memory budget, producers appending 1 KiB records at a fixed
 * rate (open loop: a record's latency counts from when it was due), first without a reader, then while one reader
 * replays every log from offset 0 the way the broker's Fetch does (one read of up to 1 MiB per log, all batches
 * held until the "response" is copied out, then closed).
 * <p>
 * {@code mvn -pl storage-core test -Dtest=CatchUpStallRun -Ddirectlog.catchup.run=true} with optional
 * {@code -Ddirectlog.catchup.rate=} (records/s), {@code .backlogMiB=}, {@code .budgetMiB=}, {@code .seconds=}.
 * Figures are relative only: compare two builds in one run on the same machine.
 */
@EnabledIfSystemProperty(named = "directlog.catchup.run", matches = "true")
class CatchUpStallRun
{
    private static final int LOGS = 16;
    private static final int RECORD = 1024;
    private static final int SEGMENT = Integer.getInteger("directlog.catchup.segmentMiB", 1) << 20;
    private static final int FETCH_BYTES = 1 << 20;
    private static final int PRODUCERS = 4;

    private final long rate = Long.getLong("directlog.catchup.rate", 8_000);
    private final long budget = Long.getLong("directlog.catchup.budgetMiB", 64) << 20;
    private final long backlog = Long.getLong("directlog.catchup.backlogMiB", 256) << 20;
    private final long seconds = Long.getLong("directlog.catchup.seconds", 8);

    @Test
    void producersDuringACatchUpRead() throws Exception
    {
        final Path dir = TestDirs.create("catch-up");
        final StoreConfig config = StoreConfig.builder(dir).memoryBudget(budget)
            .defaultLogConfig(LogConfig.builder().segmentSize(SEGMENT).durability(Durability.DSYNC).build()).build();
        try (LogStore store = LogStore.open(config))
        {
            final Log[] logs = new Log[LOGS];
            for (int i = 0; i < LOGS; i++)
            {
                logs[i] = store.log("p" + i);
            }
            writeBacklog(logs);
            final long[] quiet = produce(logs, seconds, null);
            print("publish", quiet, store, logs);
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicLong readBytes = new AtomicLong();
            final long[] readNanos = new long[1];
            final Thread reader = new Thread(() -> readerLoop(logs, stop, readBytes, readNanos), "catch-up-reader");
            final long[] during = produce(logs, seconds, reader);
            stop.set(true);
            reader.join(TimeUnit.MINUTES.toMillis(2));
            print("publish-during-read", during, store, logs);
            System.out.printf("catch-up read: %.1f MiB in %.1f s = %.1f MB/s%n", readBytes.get() / 1048576.0,
                readNanos[0] / 1e9, readBytes.get() / 1e6 / (readNanos[0] / 1e9));
        }
    }

    private void writeBacklog(final Log[] logs)
    {
        final byte[] payload = new byte[RECORD];
        final long records = backlog / RECORD;
        final List<CompletableFuture<Long>> inFlight = new ArrayList<>();
        for (long r = 0; r < records; r++)
        {
            inFlight.add(logs[(int)(r % LOGS)].append(payload));
            if (inFlight.size() == 4096)
            {
                inFlight.forEach(CompletableFuture::join);
                inFlight.clear();
            }
        }
        inFlight.forEach(CompletableFuture::join);
    }

    /** Open loop at {@link #rate}: each producer's record i is due at start + i * interval; latency from then. */
    private long[] produce(final Log[] logs, final long secs, final Thread reader) throws InterruptedException
    {
        final long perProducer = rate * secs / PRODUCERS;
        final long interval = TimeUnit.SECONDS.toNanos(1) * PRODUCERS / rate;
        final long[][] latencies = new long[PRODUCERS][(int)perProducer];
        final AtomicLong failures = new AtomicLong();
        final Thread[] producers = new Thread[PRODUCERS];
        final List<List<CompletableFuture<Long>>> inFlight = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++)
        {
            inFlight.add(new ArrayList<>());
        }
        final long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        for (int p = 0; p < PRODUCERS; p++)
        {
            final int id = p;
            producers[p] = new Thread(() ->
            {
                final byte[] payload = new byte[RECORD];
                for (int i = 0; i < perProducer; i++)
                {
                    final long due = start + i * interval;
                    long now;
                    while ((now = System.nanoTime()) < due)
                    {
                        LockSupport.parkNanos(due - now);
                    }
                    // asynchronous, as a Kafka producer's sends: a stall shows as latency, not as fewer appends
                    final int index = i;
                    inFlight.get(id).add(logs[(id + i * PRODUCERS) % LOGS].append(payload).whenComplete((offset, e) ->
                    {
                        latencies[id][index] = System.nanoTime() - due;
                        if (e != null)
                        {
                            failures.incrementAndGet();
                        }
                    }));
                }
                inFlight.get(id).forEach(f -> f.handle((offset, e) -> offset).join());
            }, "producer-" + p);
        }
        if (reader != null)
        {
            reader.start();
        }
        for (final Thread t : producers)
        {
            t.start();
        }
        for (final Thread t : producers)
        {
            t.join();
        }
        if (failures.get() > 0)
        {
            System.out.println("failed appends: " + failures.get());
        }
        return Arrays.stream(latencies).flatMapToLong(Arrays::stream).sorted().toArray();
    }

    /** One "fetch" per round: up to 1 MiB of every log held together, copied out, then released. */
    private static void readerLoop(final Log[] logs, final AtomicBoolean stop, final AtomicLong bytes,
        final long[] nanos)
    {
        final long start = System.nanoTime();
        final long[] next = new long[LOGS];
        final long[] end = new long[LOGS];
        for (int i = 0; i < LOGS; i++)
        {
            end[i] = logs[i].endOffset();
        }
        final byte[] sink = new byte[FETCH_BYTES];
        boolean more = true;
        while (more && !stop.get())
        {
            more = false;
            final List<RecordBatch> response = new ArrayList<>();
            try
            {
                for (int i = 0; i < LOGS; i++)
                {
                    if (next[i] < end[i])
                    {
                        final RecordBatch batch = logs[i].read(next[i], FETCH_BYTES);
                        response.add(batch);
                        next[i] = batch.nextOffset();
                        more = true;
                    }
                }
                for (final RecordBatch batch : response)
                {
                    for (final Record r : batch)
                    {
                        r.payload().getBytes(0, sink, 0, Math.min(r.payload().capacity(), sink.length));
                    }
                    bytes.addAndGet(batch.sizeInBytes());
                }
            }
            finally
            {
                response.forEach(RecordBatch::close);
            }
        }
        nanos[0] = System.nanoTime() - start;
    }

    private static void print(final String row, final long[] sorted, final LogStore store, final Log[] logs)
    {
        long stalls = 0;
        for (final Log log : logs)
        {
            stalls += log.stats().preparerStalls();
        }
        System.out.printf("%-20s n=%d p50=%.2f ms p99=%.2f ms p99.9=%.2f ms max=%.2f ms; roll stalls so far %d; " +
            "pin waits so far %d; %s%n", row, sorted.length, at(sorted, 0.5), at(sorted, 0.99), at(sorted, 0.999),
            sorted[sorted.length - 1] / 1e6, stalls, pinWaits(store), store.cacheStats());
    }

    /** The cache's pin-wait counter, when this build has one (read reflectively: the run compares two builds). */
    private static long pinWaits(final LogStore store)
    {
        try
        {
            final java.lang.reflect.Field f = store.getClass().getDeclaredField("cache");
            f.setAccessible(true);
            final Object cache = f.get(store);
            return (long)cache.getClass().getMethod("pinWaits").invoke(cache);
        }
        catch (final ReflectiveOperationException | RuntimeException e)
        {
            return -1;
        }
    }

    private static double at(final long[] sorted, final double q)
    {
        return sorted[(int)Math.min(sorted.length - 1, Math.floor(q * sorted.length))] / 1e6;
    }
}
