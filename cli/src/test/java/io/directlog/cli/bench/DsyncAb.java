package io.directlog.cli.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.agrona.concurrent.UnsafeBuffer;

import io.directlog.storage.AppendWaiter;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;

/**
 * A/B probe of issue 23, run by hand (not a test): engine DSYNC closed loops on a fresh store per configuration, the
 * configurations taking turns in rounds in one JVM, each row printing appends/s, bytes the process wrote per append
 * (write_bytes of /proc/self/io: shows a zero-fill running in the window) and process CPU per append.
 * <pre>
 * java &lt;stack flags&gt; -cp "cli/target/test-classes:cli/target/classes:cli/target/lib/*" io.directlog.cli.bench.DsyncAb \
 *   DIR ROUNDS SECONDS RETENTION_MIB:BUDGET_MIB:ONE_PRODUCER_ROW_FIRST:PRODUCERS[:quiet][:prime][:unpinned] ...
 * </pre>
 * {@code quiet}: settle until nothing is written, else a fixed 500 ms; {@code prime}: one append before settling;
 * {@code unpinned}: writerCpus=none.
 */
public final class DsyncAb
{
    record Cfg(String name, long retention, long budget, boolean oneFirst, int producers, boolean quiet) { }

    public static void main(final String[] args) throws Exception
    {
        final Path base = Files.createTempDirectory(Path.of(args[0]), "ab-");
        final int rounds = Integer.parseInt(args[1]);
        final double seconds = Double.parseDouble(args[2]);
        final List<Cfg> cfgs = new ArrayList<>();
        for (int i = 3; i < args.length; i++)
        {
            final String[] p = args[i].split(":");
            cfgs.add(new Cfg(args[i], Long.parseLong(p[0]) << 20, Long.parseLong(p[1]) << 20,
                Boolean.parseBoolean(p[2]), Integer.parseInt(p[3]), p.length > 4 && p[4].equals("quiet")));
            // ":prime" at the end: one append before the settle
        }
        final BenchOptions options = BenchOptions.parse(new String[] {"--duration", args[2]});
        final BenchContext context = new BenchContext(base, options, System.err, null);
        for (int r = 0; r < rounds; r++)
        {
            final StringBuilder line = new StringBuilder("round " + r + ":");
            for (int k = 0; k < cfgs.size(); k++)
            {
                final Cfg c = cfgs.get((k + r) % cfgs.size());
                final double[] res = once(context, c);
                line.append(String.format(Locale.ROOT, "  %s %,.0f/s %.0fB/op files=%.0f cpu=%.1fus/op", c.name(), res[0], res[1], res[2], res[3] / 1000));
            }
            System.out.println(line);
        }
        BenchDirectory.delete(base);
    }

    static double[] once(final BenchContext context, final Cfg c) throws Exception
    {
        final Path dir = context.scenarioDirectory("ab");
        final LogConfig.Builder b = LogConfig.builder().segmentSize(64 << 20).durability(Durability.DSYNC);
        if (c.retention() > 0)
        {
            b.retentionBytes(c.retention());
        }
        double result;
        long bytes;
        long files;
        long cpu;
        try (LogStore store = LogStore.open(StoreConfig.builder(dir).memoryBudget(c.budget())
            .writerCpus(c.name().contains(":unpinned") ? StoreConfig.WRITER_CPUS_NONE : StoreConfig.WRITER_CPUS_AUTO).build()))
        {
            final Log log = store.log("bench", b.build());
            if (c.name().contains(":prime"))
            {
                new AppendWaiter().append(log, new UnsafeBuffer(new byte[100]), 0, 100, Durability.DSYNC);
            }
            if (c.quiet())
            {
                context.settle();
            }
            else
            {
                java.util.concurrent.locks.LockSupport.parkNanos(500_000_000L);
            }
            if (c.oneFirst())
            {
                run(context, log, 1);
            }
            final var os = (com.sun.management.OperatingSystemMXBean)java.lang.management.ManagementFactory.getOperatingSystemMXBean();
            final long cpu0 = os.getProcessCpuTime();
            final long w0 = ProcessWrites.bytesWritten();
            final Measurement m = run(context, log, c.producers());
            bytes = ProcessWrites.bytesWritten() - w0;
            result = m.opsPerSec();
            bytes = bytes / Math.max(1, m.operations());
            cpu = (os.getProcessCpuTime() - cpu0) / Math.max(1, m.operations());
            try (var s = Files.walk(dir))
            {
                files = s.filter(f -> f.toString().endsWith(".log")).count();
            }
        }
        BenchDirectory.delete(dir);
        return new double[] {result, bytes, files, cpu};
    }

    static Measurement run(final BenchContext context, final Log log, final int producers) throws Exception
    {
        return LoadDriver.closedLoop(context, producers, 100, thread ->
        {
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[100]);
            final AppendWaiter waiter = new AppendWaiter();
            return () ->
            {
                final long start = System.nanoTime();
                waiter.append(log, payload, 0, 100, Durability.DSYNC);
                return System.nanoTime() - start;
            };
        });
    }
}
