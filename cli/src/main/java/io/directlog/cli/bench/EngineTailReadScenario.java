package io.directlog.cli.bench;

import java.time.Duration;
import java.util.List;

import org.HdrHistogram.Histogram;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;

/**
 * {@code engine-tail-read}: one writer appending 100 B MEMORY records as fast as the engine takes them while one
 * reader follows the tail with read/awaitAppend. Reports records read per second; latency is from the append call
 * (a timestamp in the payload) to the read that returned the record.
 * <p>
 * Immutable; {@link #run} is called by one thread at a time.
 */
final class EngineTailReadScenario implements Scenario
{
    static final int RECORD_BYTES = 100;
    static final int READ_BYTES = 1 << 20;
    static final Duration AWAIT = Duration.ofMillis(100);

    @Override
    public String name()
    {
        return "engine-tail-read";
    }

    @Override
    public String summary()
    {
        return "one reader following one writer of 100 B MEMORY records (records/s read)";
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
        try (LogStore store = EngineStores.open(context.scenarioDirectory(name()), EngineAppendScenario.MEMORY_BUDGET))
        {
            final Log log = store.log(EngineStores.LOG_NAME, LogConfig.builder()
                .segmentSize(EngineAppendScenario.SEGMENT_BYTES).durability(Durability.MEMORY).build());
            context.settle();
            final Phases phases = new Phases();
            final Measurement m = Reader.follow(context, phases, log, new Writer(log, phases));
            rows.add(1, m, "1 reader behind 1 writer running flat out; latency: append to read, queueing behind that writer, not the lag at a set rate");
        }
    }

    /** Appends without waiting: the engine's back-pressure is the only brake. */
    private static final class Writer extends TailWriter
    {
        Writer(final Log log, final Phases phases)
        {
            super(log, phases);
        }

        @Override
        protected void appendUntilStopped()
        {
            while (!phases.stopped())
            {
                append(System.nanoTime());
            }
        }
    }

    /**
     * Follows the tail; counts and times only what it reads while measuring (each record's latency from the
     * {@code System.nanoTime()} in its first 8 bytes). Fields are read after join.
     */
    static final class Reader implements Runnable
    {
        private final Log log;
        private final Phases phases;
        private final Histogram latencies = Measurement.newLatencyHistogram();
        private long records;

        private Reader(final Log log, final Phases phases)
        {
            this.log = log;
            this.phases = phases;
        }

        /**
         * Runs {@code writer} and a reader following the tail of its log through the phases.
         *
         * @return what the reader measured: records read, their latencies, the measurement window.
         * @throws Exception the first failure of either, or a timeout when one did not stop.
         */
        static Measurement follow(final BenchContext context, final Phases phases, final Log log,
            final Runnable writer) throws Exception
        {
            final Reader reader = new Reader(log, phases);
            final long elapsed = phases.run(context,
                List.of(new Thread(writer, "bench-writer"), new Thread(reader, "bench-reader")));
            return new Measurement(reader.records, reader.records * RECORD_BYTES, elapsed, reader.latencies);
        }

        @Override
        public void run()
        {
            long offset = 0;
            try
            {
                while (!phases.stopped())
                {
                    offset = readOnce(offset);
                }
            }
            catch (final Throwable t)
            {
                phases.fail(t);
            }
        }

        private long readOnce(final long offset) throws InterruptedException
        {
            try (RecordBatch batch = log.read(offset, READ_BYTES))
            {
                if (batch.isEmpty())
                {
                    log.awaitAppend(offset, AWAIT);
                    return offset;
                }
                if (phases.measuring())
                {
                    // One clock read per batch: a record's latency ends when the read that returns it returns.
                    final long now = System.nanoTime();
                    for (final Record r : batch)
                    {
                        latencies.recordValue(Math.max(0, now - r.payload().getLong(0)));
                        records += r.recordCount();
                    }
                }
                return batch.nextOffset();
            }
        }
    }
}
