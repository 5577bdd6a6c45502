package io.directlog.benchmarks.log;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.benchmarks.BenchDirs;
import io.directlog.storage.AppendWaiter;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * Many logs in one store (issue 18): 16 producers append 100 B DSYNC records, each waiting for its own
 * acknowledgement (closed loop, as {@link EngineAppendBenchmark}), spread evenly over {@code logs} logs: producer
 * {@code p} cycles through logs {@code p, p+16, p+32, ...} (with one log, all share it). The store has a 1 GiB
 * memory budget and the logs default settings. At 1 log this is {@code EngineAppendBenchmark} at DSYNC, 100 B, 16
 * producers; the goal is that 1,000 logs keep at least 80% of it, which takes group commit across the logs that
 * share a writer thread.
 * <p>
 * The trial opens every log and gives it one append before the next opens, asking a disk guard in between (the
 * filesystem may lose at most a quarter of its free space, at most 16 GiB): an engine that cannot hold that many
 * logs fails the trial at the first log it cannot serve, with that log's exception, rather than fill the disk with
 * segment files prepared ahead of thousands of logs.
 * <p>
 * Not thread-safe as a class; JMH gives each producer its own {@link Producer}.
 */
@BenchmarkMode({ Mode.Throughput, Mode.SampleTime })
@OutputTimeUnit(TimeUnit.SECONDS)
public class EngineManyLogsBenchmark extends AbstractBenchmarkBase
{
    static final int PRODUCERS = 16;
    static final int RECORD_BYTES = 100;
    static final long MAX_DISK_CAP_BYTES = 16L << 30;

    @Param({ "1", "100", "1000", "10000" })
    public int logs;

    private final List<Log> all = new ArrayList<>();
    private final AtomicInteger producers = new AtomicInteger();
    private Path dir;
    private LogStore store;

    /** Opens a fresh store and its logs, one append each. */
    @Setup(Level.Trial)
    public void open() throws IOException
    {
        dir = BenchDirs.create("engine-many-logs");
        store = LogStore.open(StoreConfig.builder(dir).memoryBudget(GIB).build());
        final FileStore fs = Files.getFileStore(dir);
        final long usableAtStart = fs.getUsableSpace();
        final long cap = Math.min(MAX_DISK_CAP_BYTES, usableAtStart / 4);
        final LogConfig config = LogConfig.builder().durability(Durability.DSYNC).build();
        final UnsafeBuffer record = EngineFixture.directRecord(RECORD_BYTES);
        final AppendWaiter waiter = new AppendWaiter();
        for (int i = 0; i < logs; i++)
        {
            final long taken = usableAtStart - fs.getUsableSpace();
            if (taken > cap)
            {
                throw new IllegalStateException(String.format(Locale.ROOT, "stopped opening log %d of %d: the " +
                    "filesystem lost %.1f GB, more than the cap of %.1f GB", i + 1, logs, taken / 1e9, cap / 1e9));
            }
            try
            {
                final Log log = store.log(String.format(Locale.ROOT, "log-%05d", i), config);
                waiter.append(log, record, 0, RECORD_BYTES, Durability.DSYNC);
                all.add(log);
            }
            catch (final RuntimeException e)
            {
                throw new IllegalStateException("log " + (i + 1) + " of " + logs + " failed, with " + i +
                    " logs open and appended to: " + e, e);
            }
        }
    }

    /** Closes and deletes the store. */
    @TearDown(Level.Trial)
    public void close()
    {
        EngineFixture.closeAndDelete(store, dir);
    }

    /** One producer: its logs, its record in native memory, its waiter. */
    @State(Scope.Thread)
    public static class Producer
    {
        Log[] own;
        int next;
        UnsafeBuffer record;
        AppendWaiter waiter;

        /** @param bench the benchmark, for the logs. */
        @Setup(Level.Trial)
        public void init(final EngineManyLogsBenchmark bench)
        {
            own = slice(bench.all, bench.producers.getAndIncrement(), PRODUCERS).toArray(new Log[0]);
            record = EngineFixture.directRecord(RECORD_BYTES);
            waiter = EngineAppendBenchmark.newWaiter();
        }

        long append()
        {
            final Log log = own[next];
            next = next + 1 == own.length ? 0 : next + 1;
            return waiter.append(log, record, 0, RECORD_BYTES, Durability.DSYNC);
        }
    }

    /**
     * @return the logs of producer {@code producer} of {@code producers}: every {@code producers}-th from its own
     * index, or with fewer logs than producers the one it shares (producers beyond {@code producers}, as JMH's
     * {@code -t} may make, wrap around).
     */
    static <T> List<T> slice(final List<T> all, final int producer, final int producers)
    {
        final int p = producer % producers;
        if (all.size() <= p)
        {
            return List.of(all.get(p % all.size()));
        }
        final List<T> own = new ArrayList<>();
        for (int i = p; i < all.size(); i += producers)
        {
            own.add(all.get(i));
        }
        return own;
    }

    /** @param p the producer. @return the record's offset. */
    @Benchmark
    @Threads(PRODUCERS)
    public long producers16(final Producer p)
    {
        return p.append();
    }
}
