package io.directlog.cli.bench;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;

/**
 * {@code rocksdb-sync}: RocksDB puts of 100 B values with {@code sync=true} (WAL write plus fdatasync; concurrent
 * writers share one sync through RocksDB's write groups), each thread a closed loop, at 1, 16 and 64 threads. A
 * well-known durable store on the same device, for scale.
 * <p>
 * Issue 23: the store and data are {@code RocksDbWalBenchmark}'s (a fresh database per thread count, that suite's
 * seeded random value and 12-byte keys), so the two harnesses measure the same puts; {@code BenchMatchesJmhTest}
 * holds them equal.
 * <p>
 * Immutable; {@link #run} is called by one thread at a time.
 */
final class RocksDbSyncScenario implements Scenario
{
    static final int VALUE_BYTES = 100;
    /** {@code RocksDbWalBenchmark.KEY_BYTES}: producer id, then sequence. */
    static final int KEY_BYTES = 12;
    /** {@code Payloads.SEED}: the benchmarks' seeded data. */
    static final long VALUE_SEED = 42;

    @Override
    public String name()
    {
        return "rocksdb-sync";
    }

    @Override
    public String summary()
    {
        return "RocksDB puts of 100 B values with sync=true, closed loop, 1, 16 and 64 threads";
    }

    @Override
    public int recordBytes()
    {
        return VALUE_BYTES;
    }

    @Override
    public List<Integer> threadCounts()
    {
        return List.of(1, 16, 64);
    }

    @Override
    public void run(final BenchContext context, final RowSink rows) throws Exception
    {
        RocksDB.loadLibrary();
        final byte[] value = value();
        for (final int threads : threadCounts())
        {
            final Path path = context.scenarioDirectory(name()).resolve("db-" + threads);
            try (Options options = new Options().setCreateIfMissing(true);
                WriteOptions sync = new WriteOptions().setSync(true);
                RocksDB db = RocksDB.open(options, path.toString()))
            {
                final Measurement m = LoadDriver.closedLoop(context, threads, VALUE_BYTES, thread ->
                {
                    final ByteBuffer key = ByteBuffer.allocate(KEY_BYTES).putInt(0, thread);
                    final long[] sequence = {0};
                    return () ->
                    {
                        key.putLong(Integer.BYTES, sequence[0]++);
                        final long start = System.nanoTime();
                        db.put(sync, key.array(), value);
                        return System.nanoTime() - start;
                    };
                });
                rows.add(threads, m, null);
            }
            BenchDirectory.delete(path);
        }
    }

    /** @return the value of every put: {@code VALUE_BYTES} from {@code new Random(VALUE_SEED)}, as JMH's. */
    static byte[] value()
    {
        final byte[] value = new byte[VALUE_BYTES];
        new Random(VALUE_SEED).nextBytes(value);
        return value;
    }
}
