package io.directlog.benchmarks.log;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

import io.directlog.storage.Durability;

/**
 * CPU time per append of the pipelined MEMORY suite's producer and writer threads (ThreadMXBean), so that two jars
 * can be compared on a shared machine, where throughput follows the share of the cores a run gets. Drives the
 * suite's own state objects. Args: records per pass, passes.
 */
public final class CpuPerAppend
{
    public static void main(final String[] args) throws Exception
    {
        final long records = Long.parseLong(args[0]);
        final int passes = Integer.parseInt(args[1]);
        final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        final EngineAppendPipelinedBenchmark b = new EngineAppendPipelinedBenchmark();
        b.durability = Durability.MEMORY;
        b.recordSize = "00100";
        b.open();
        final EngineAppendPipelinedBenchmark.Producer p = new EngineAppendPipelinedBenchmark.Producer();
        p.length = 100;
        p.record = EngineFixture.directRecord(100);
        for (int pass = 0; pass < passes; pass++)
        {
            final long writer = writerId();
            final long w0 = mx.getThreadCpuTime(writer);
            final long p0 = mx.getCurrentThreadCpuTime();
            final long t0 = System.nanoTime();
            for (long i = 0; i < records; i++)
            {
                p.append(b.log, Durability.MEMORY);
            }
            p.drain();
            final long t1 = System.nanoTime();
            final long pc = mx.getCurrentThreadCpuTime() - p0;
            final long wc = mx.getThreadCpuTime(writer) - w0;
            System.out.printf("pass %d: %.0f appends/s wall, producer %.1f ns/append, writer %.1f ns/append%n", pass,
                records * 1e9 / (t1 - t0), pc / (double)records, wc / (double)records);
        }
        b.close();
        System.exit(0);
    }

    private static long writerId()
    {
        for (final Thread t : Thread.getAllStackTraces().keySet())
        {
            if (t.getName().startsWith("directlog-writer-0"))
            {
                return t.getId();
            }
        }
        throw new IllegalStateException("no writer thread");
    }
}
