package io.directlog.benchmarks.peers;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.benchmarks.BenchDirs;
import io.directlog.benchmarks.Payloads;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * RocksDB put through its write-ahead log: {@code sync=true} is an fsync'ed WAL write per put (RocksDB groups
 * concurrent writers into one sync), {@code sync=false} leaves the WAL in the OS page cache. Keys are unique and
 * ascending per producer, so the memtable does the least work it can; flushes and compactions run as configured
 * by default, as they would under a real log.
 * <p>
 * Not thread-safe as a class; JMH gives each producer its own {@link Producer}.
 */
@BenchmarkMode({ Mode.Throughput, Mode.SampleTime })
@OutputTimeUnit(TimeUnit.SECONDS)
public class RocksDbWalBenchmark extends AbstractBenchmarkBase
{
    /** Key bytes: the producer's id (4, big-endian), then its sequence (8, big-endian). */
    public static final int KEY_BYTES = 12;

    @Param({ "true", "false" })
    public boolean sync;

    @Param({ "00032", "00100", "01024", "16384" })
    public String recordSize;

    private final AtomicInteger producerIds = new AtomicInteger();
    private Path dir;
    private Options options;
    private WriteOptions writeOptions;
    private RocksDB db;

    /** Opens a fresh database. @throws RocksDBException when RocksDB cannot open it. */
    @Setup(Level.Trial)
    public void open() throws RocksDBException
    {
        RocksDB.loadLibrary();
        dir = BenchDirs.create("rocksdb");
        options = new Options().setCreateIfMissing(true);
        writeOptions = new WriteOptions().setSync(sync);
        db = RocksDB.open(options, dir.toString());
    }

    /** Closes and deletes the database. */
    @TearDown(Level.Trial)
    public void close()
    {
        db.close();
        writeOptions.close();
        options.close();
        BenchDirs.delete(dir);
    }

    /** One producer: its key prefix and the seeded value. */
    @State(Scope.Thread)
    public static class Producer
    {
        final byte[] key = new byte[KEY_BYTES];
        byte[] value;
        long sequence;

        /** @param bench the benchmark, for the record size and a producer id. */
        @Setup(Level.Trial)
        public void init(final RocksDbWalBenchmark bench)
        {
            value = Payloads.random(size(bench.recordSize));
            final int id = bench.producerIds.getAndIncrement();
            key[0] = (byte)(id >>> 24);
            key[1] = (byte)(id >>> 16);
            key[2] = (byte)(id >>> 8);
            key[3] = (byte)id;
        }

        long put(final RocksDB db, final WriteOptions writeOptions) throws RocksDBException
        {
            final long seq = sequence++;
            for (int i = 0; i < 8; i++)
            {
                key[4 + i] = (byte)(seq >>> (56 - 8 * i));
            }
            db.put(writeOptions, key, value);
            return seq;
        }
    }

    /** @param p the producer. @return its sequence. @throws RocksDBException on a failed put. */
    @Benchmark
    @Threads(1)
    public long producers01(final Producer p) throws RocksDBException
    {
        return p.put(db, writeOptions);
    }

    /** @param p the producer. @return its sequence. @throws RocksDBException on a failed put. */
    @Benchmark
    @Threads(4)
    public long producers04(final Producer p) throws RocksDBException
    {
        return p.put(db, writeOptions);
    }

    /** @param p the producer. @return its sequence. @throws RocksDBException on a failed put. */
    @Benchmark
    @Threads(16)
    public long producers16(final Producer p) throws RocksDBException
    {
        return p.put(db, writeOptions);
    }

    /** @param p the producer. @return its sequence. @throws RocksDBException on a failed put. */
    @Benchmark
    @Threads(64)
    public long producers64(final Producer p) throws RocksDBException
    {
        return p.put(db, writeOptions);
    }
}
