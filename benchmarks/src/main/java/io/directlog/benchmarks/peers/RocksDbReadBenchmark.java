package io.directlog.benchmarks.peers;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.benchmarks.BenchDirs;
import io.directlog.benchmarks.Payloads;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * Reading back what RocksDB's WAL suite writes: random point reads of 1 KiB values, {@code db.get(key, buffer)}
 * (no allocation per read) at seeded random keys, as latency percentiles. 64 MiB of values are written with
 * {@code sync=false} and flushed to SST files at setup, so reads go through RocksDB's block cache and the OS page
 * cache: the peer of {@code EngineRandomReadBenchmark} with {@code residency=cached}. Smoke mode writes 8 MiB.
 * <p>
 * Not thread-safe as a class; each thread has its own {@link Cursor}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
public class RocksDbReadBenchmark extends AbstractBenchmarkBase
{
    /** Value bytes per record. */
    public static final int RECORD_SIZE = KIB;

    long records;
    RocksDB db;
    private Path dir;
    private Options options;

    /** Writes and flushes the records. @throws RocksDBException when RocksDB fails. */
    @Setup(Level.Trial)
    public void open() throws RocksDBException
    {
        RocksDB.loadLibrary();
        dir = BenchDirs.create("rocksdb-read");
        options = new Options().setCreateIfMissing(true);
        db = RocksDB.open(options, dir.toString());
        records = BenchDirs.choose(64L * MIB, 8L * MIB) / RECORD_SIZE;
        final byte[] value = Payloads.random(RECORD_SIZE);
        try (WriteOptions write = new WriteOptions().setSync(false); FlushOptions flush = new FlushOptions())
        {
            for (long i = 0; i < records; i++)
            {
                db.put(write, key(i, new byte[Long.BYTES]), value);
            }
            db.flush(flush.setWaitForFlush(true));
        }
    }

    /** Closes and deletes the database. */
    @TearDown(Level.Trial)
    public void close()
    {
        db.close();
        options.close();
        BenchDirs.delete(dir);
    }

    static byte[] key(final long sequence, final byte[] key)
    {
        for (int i = 0; i < Long.BYTES; i++)
        {
            key[i] = (byte)(sequence >>> (56 - 8 * i));
        }
        return key;
    }

    /** A thread's seeded random source and buffers. */
    @State(Scope.Thread)
    public static class Cursor
    {
        final SplittableRandom random = new SplittableRandom(Payloads.SEED);
        final byte[] key = new byte[Long.BYTES];
        final byte[] value = new byte[RECORD_SIZE];
    }

    /**
     * @param cursor the random source.
     * @return the value's first byte.
     * @throws RocksDBException when the read fails.
     */
    @Benchmark
    public int pointRead(final Cursor cursor) throws RocksDBException
    {
        final int size = db.get(key(cursor.random.nextLong(records), cursor.key), cursor.value);
        if (size != RECORD_SIZE)
        {
            throw new IllegalStateException("read " + size + " bytes, expected " + RECORD_SIZE);
        }
        return cursor.value[0];
    }
}
