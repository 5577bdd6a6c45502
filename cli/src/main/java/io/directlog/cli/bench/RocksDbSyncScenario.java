package io.directlog.cli.bench;

import java.nio.ByteBuffer;
import java.util.List;

import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;

/**
 * {@code rocksdb-sync}: RocksDB puts of 100 B values with {@code sync=true} (WAL write plus fdatasync; concurrent
 * writers share one sync through RocksDB's write groups), each thread a closed loop, at 1, 16 and 64 threads. A
 * well-known durable store on the same device, for scale.
 * <p>
 * Immutable; {@link #run} is called by one thread at a time.
 */
final class RocksDbSyncScenario implements Scenario
{
    static final int VALUE_BYTES = 100;

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
        final String path = context.scenarioDirectory(name()).resolve("db").toString();
        try (Options options = new Options().setCreateIfMissing(true);
            WriteOptions sync = new WriteOptions().setSync(true);
            RocksDB db = RocksDB.open(options, path))
        {
            for (final int threads : threadCounts())
            {
                final Measurement m = LoadDriver.closedLoop(context, threads, VALUE_BYTES, thread ->
                {
                    final byte[] key = new byte[16];
                    final ByteBuffer keyView = ByteBuffer.wrap(key);
                    final byte[] value = new byte[VALUE_BYTES];
                    final long[] sequence = {0};
                    keyView.putLong(0, thread);
                    return () ->
                    {
                        keyView.putLong(8, sequence[0]++);
                        final long start = System.nanoTime();
                        db.put(sync, key, value);
                        return System.nanoTime() - start;
                    };
                });
                rows.add(threads, m, null);
            }
        }
    }
}
