package io.directlog.cli.bench;

import java.util.ArrayList;
import java.util.List;

import org.HdrHistogram.Histogram;

/**
 * Runs a closed loop on N threads: each thread repeats one operation, starting the next when the previous has
 * completed, and records each operation's latency in its own histogram. An operation that straddles a phase
 * change is not recorded, so the count matches the window.
 * <p>
 * Stateless; each call uses its own threads.
 */
final class LoadDriver
{
    /** One operation of one thread. */
    @FunctionalInterface
    interface Operation
    {
        /**
         * @return the operation's latency in nanoseconds, as the operation defines it.
         * @throws Exception when it failed; the whole row then fails.
         */
        long runOnce() throws Exception;
    }

    /** Makes each thread's operation, on the coordinating thread, before any thread starts. */
    @FunctionalInterface
    interface OperationFactory
    {
        /**
         * @param thread the thread's index, from 0.
         * @return that thread's operation.
         * @throws Exception when it cannot be made.
         */
        Operation create(int thread) throws Exception;
    }

    private LoadDriver()
    {
    }

    /**
     * @param context    timing of the run.
     * @param threads    how many threads run the loop.
     * @param bytesPerOp payload bytes per operation, for MB/s.
     * @param factory    makes one operation per thread.
     * @return what the measurement window saw.
     * @throws Exception the first failure of any operation, or a timeout when one never completed.
     */
    static Measurement closedLoop(final BenchContext context, final int threads, final long bytesPerOp,
        final OperationFactory factory) throws Exception
    {
        final Phases phases = new Phases();
        final List<Worker> workers = new ArrayList<>(threads);
        final List<Thread> workerThreads = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++)
        {
            final Worker w = new Worker(factory.create(i), phases);
            workers.add(w);
            workerThreads.add(new Thread(w, "bench-" + i));
        }

        final long elapsed = phases.run(context, workerThreads);

        // Read after join: the workers' plain fields are visible.
        final Histogram latencies = Measurement.newLatencyHistogram();
        long operations = 0;
        for (final Worker w : workers)
        {
            latencies.add(w.latencies);
            operations += w.operations;
        }
        return new Measurement(operations, operations * bytesPerOp, elapsed, latencies);
    }

    private static final class Worker implements Runnable
    {
        private final Operation operation;
        private final Phases phases;
        private final Histogram latencies = Measurement.newLatencyHistogram();
        private long operations;

        Worker(final Operation operation, final Phases phases)
        {
            this.operation = operation;
            this.phases = phases;
        }

        @Override
        public void run()
        {
            try
            {
                while (phases.warmingUp())
                {
                    operation.runOnce();
                }
                while (phases.measuring())
                {
                    final long latency = operation.runOnce();
                    if (!phases.measuring())
                    {
                        break;
                    }
                    latencies.recordValue(latency);
                    operations++;
                }
            }
            catch (final Throwable t)
            {
                phases.fail(t);
            }
        }
    }
}
