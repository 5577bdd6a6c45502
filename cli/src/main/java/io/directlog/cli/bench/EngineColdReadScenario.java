package io.directlog.cli.bench;

import java.util.List;

import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;

import io.directlog.storage.AppendCallback;
import io.directlog.storage.AppendWaiter;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;

/**
 * {@code engine-cold-read}: writes 512 MiB (128 MiB with --quick) of 64 KiB records, closes the store, reopens it
 * with a 256 MiB cache, and reads everything in order with 1 MiB reads. Nothing is resident after the reopen, so
 * this is the engine's catch-up read from disk, to set beside raw-seq-read-1m. The cache is large enough for the
 * default read-ahead (64 MiB: one segment), as a consumer catching up would run.
 * <p>
 * Record size, read size and budgets are {@code EngineColdReplayBenchmark}'s (JMH; {@code BenchMatchesJmhTest} holds
 * them equal), so that the two tell the same story (issue 23); the JMH suite replays 2 GiB round and round, this
 * reads what it wrote once. Before, this row read 1 KiB records with 4 MiB reads: a thousand records a MiB to
 * check and hand out, on two shared cores, against one 1 MiB read of the raw row.
 * <p>
 * The first sixteenth of the log is the warm-up; MB/s counts payload bytes of the rest, latency is per read call.
 * <p>
 * Immutable; {@link #run} is called by one thread at a time.
 */
final class EngineColdReadScenario implements Scenario
{
    static final int RECORD_BYTES = 64 << 10;
    static final int READ_BYTES = 1 << 20;
    static final long WRITE_MEMORY_BUDGET = 512L << 20;
    static final long READ_MEMORY_BUDGET = 256L << 20;

    @Override
    public String name()
    {
        return "engine-cold-read";
    }

    @Override
    public String summary()
    {
        return "write 512 MiB (--quick 128) of 64 KiB records, reopen, read it all in 1 MiB reads (MB/s from disk)";
    }

    @Override
    public int recordBytes()
    {
        return RECORD_BYTES;
    }

    @Override
    public List<Integer> threadCounts()
    {
        return List.of(1);
    }

    @Override
    public void run(final BenchContext context, final RowSink rows) throws Exception
    {
        final var directory = context.scenarioDirectory(name());
        final LogConfig config = LogConfig.builder()
            .segmentSize(EngineAppendScenario.SEGMENT_BYTES).durability(Durability.MEMORY).build();
        final long records = context.coldReadBytes() / RECORD_BYTES;

        try (LogStore store = EngineStores.open(directory, WRITE_MEMORY_BUDGET))
        {
            context.progress("writing " + (context.coldReadBytes() >> 20) + " MiB of 64 KiB records");
            write(store.log(EngineStores.LOG_NAME, config), records);
        }

        context.progress("reopening with a " + (READ_MEMORY_BUDGET >> 20) + " MiB cache and reading it back");
        try (LogStore store = EngineStores.open(directory, READ_MEMORY_BUDGET))
        {
            final Log log = store.log(EngineStores.LOG_NAME, config);
            final long end = log.visibleEndOffset();
            if (end != records)
            {
                throw new IllegalStateException("the reopened log ends at offset " + end + ", " + records +
                    " records were written");
            }
            rows.add(1, read(log, end), "1 MiB reads; latency per read");
        }
    }

    /** Pipelined appends (the write is preparation, not measured); waits for the last, whose callback is last. */
    private static void write(final Log log, final long records) throws Exception
    {
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[RECORD_BYTES]);
        payload.setMemory(0, RECORD_BYTES, (byte)'c');
        final Throwable[] failure = new Throwable[1];
        final AppendCallback onError = (offset, error) ->
        {
            if (error != null && failure[0] == null)
            {
                failure[0] = error;
            }
        };
        for (long i = 0; i < records - 1; i++)
        {
            payload.putLong(0, i);
            log.append(payload, 0, RECORD_BYTES, Durability.MEMORY, onError);
        }
        // The last callback comes after every other (callbacks of a log run in offset order, on one thread),
        // so the waiter's return also publishes failure[0].
        new AppendWaiter().append(log, payload, 0, RECORD_BYTES, Durability.MEMORY);
        Phases.rethrow(failure[0]);
    }

    private static Measurement read(final Log log, final long end)
    {
        final long warmupEnd = end / 16;
        long offset = 0;
        while (offset < warmupEnd)
        {
            try (RecordBatch batch = log.read(offset, READ_BYTES))
            {
                offset = next(batch, offset, end);
            }
        }

        final Histogram latencies = Measurement.newLatencyHistogram();
        long records = 0;
        long payloadBytes = 0;
        final long start = System.nanoTime();
        while (offset < end)
        {
            final long readStart = System.nanoTime();
            try (RecordBatch batch = log.read(offset, READ_BYTES))
            {
                latencies.recordValue(System.nanoTime() - readStart);
                for (final Record r : batch)
                {
                    records += r.recordCount();
                    payloadBytes += r.payloadLength();
                }
                offset = next(batch, offset, end);
            }
        }
        return new Measurement(records, payloadBytes, System.nanoTime() - start, latencies);
    }

    private static long next(final RecordBatch batch, final long offset, final long end)
    {
        if (batch.isEmpty())
        {
            // Every offset below the end was durable before the reopen: an empty batch would loop forever.
            throw new IllegalStateException("read at offset " + offset + " below the end " + end + " returned nothing");
        }
        return batch.nextOffset();
    }
}
