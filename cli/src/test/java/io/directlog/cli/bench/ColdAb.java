package io.directlog.cli.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import org.agrona.concurrent.UnsafeBuffer;

import io.directlog.storage.AppendWaiter;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;

/**
 * A/B probe of issue 23, run by hand (not a test): raw-seq-read-1m, then engine cold reads of RECORD_BYTES:READ_KIB
 * configurations (each writes TOTAL_MIB, reopens with 256 MiB, reads once), taking turns in rounds in one JVM;
 * prints MB/s, the ratio to that round's raw row, and process CPU per MiB read.
 * <pre>
 * java &lt;stack flags&gt; -cp "cli/target/test-classes:cli/target/classes:cli/target/lib/*" io.directlog.cli.bench.ColdAb \
 *   DIR ROUNDS TOTAL_MIB 1024:4096 65536:1024 ...
 * </pre>
 */
public final class ColdAb
{
    public static void main(final String[] args) throws Exception
    {
        final Path base = Files.createTempDirectory(Path.of(args[0]), "cold-");
        final int rounds = Integer.parseInt(args[1]);
        final long total = Long.parseLong(args[2]) << 20;
        final BenchOptions options = BenchOptions.parse(new String[] {"--duration", "2"});
        final BenchContext context = new BenchContext(base, options, System.err, DirectIoSupport.probe(base));
        for (int r = 0; r < rounds; r++)
        {
            final StringBuilder line = new StringBuilder("round " + r + ":");
            final double[] raw = new double[2];
            final var os = (com.sun.management.OperatingSystemMXBean)java.lang.management.ManagementFactory
                .getOperatingSystemMXBean();
            SequentialFile.ensure(context);
            final long cpu0 = os.getProcessCpuTime();
            new RawSequentialReadScenario().run(context, (t, m, n) ->
            {
                raw[0] = m.mbPerSec();
                raw[1] = m.bytes();
            });
            // warm-up reads included: CPU over the whole row, per MiB of the measured window and the warm-up alike
            final double rawCpuPerMib = (os.getProcessCpuTime() - cpu0) / 1e3 /
                (raw[1] * (1 + (double)context.warmupNanos() / context.measureNanos()) / (1 << 20));
            line.append(String.format(Locale.ROOT, "  raw %,.0f cpu %,.0f us/MiB", raw[0], rawCpuPerMib));
            for (int k = 3; k < args.length; k++)
            {
                final String[] p = args[3 + (k - 3 + r) % (args.length - 3)].split(":");
                final int recordBytes = Integer.parseInt(p[0]);
                final int readBytes = Integer.parseInt(p[1]) << 10;
                final long[] counted = new long[2];
                final double mbs = once(context, recordBytes, readBytes, total, counted);
                line.append(String.format(Locale.ROOT, "  %s:%s %,.0f (%.0f%%) cpu %,d us/MiB", p[0], p[1], mbs, 100 * mbs / raw[0], counted[0] / 1000));
            }
            System.out.println(line);
        }
        BenchDirectory.delete(base);
    }

    static double once(final BenchContext context, final int recordBytes, final int readBytes, final long total,
        final long[] counted) throws Exception
    {
        final Path dir = context.scenarioDirectory("cold");
        final LogConfig config = LogConfig.builder().segmentSize(64 << 20).durability(Durability.MEMORY).build();
        final long records = total / recordBytes;
        try (LogStore store = EngineStores.open(dir, 256L << 20))
        {
            final Log log = store.log("bench", config);
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[recordBytes]);
            final AppendWaiter w = new AppendWaiter();
            for (long i = 0; i < records - 1; i++)
            {
                log.append(payload, 0, recordBytes, Durability.MEMORY, (o, e) -> { });
            }
            w.append(log, payload, 0, recordBytes, Durability.MEMORY);
        }
        final double result;
        try (LogStore store = EngineStores.open(dir, 256L << 20))
        {
            final Log log = store.log("bench", config);
            final long end = log.visibleEndOffset();
            long offset = 0;
            while (offset < end / 16)
            {
                try (RecordBatch batch = log.read(offset, readBytes))
                {
                    offset = batch.nextOffset();
                }
            }
            long bytes = 0;
            final var os = (com.sun.management.OperatingSystemMXBean)java.lang.management.ManagementFactory.getOperatingSystemMXBean();
            final long cpu0 = os.getProcessCpuTime();
            final long start = System.nanoTime();
            while (offset < end)
            {
                try (RecordBatch batch = log.read(offset, readBytes))
                {
                    for (final Record r : batch)
                    {
                        bytes += r.payloadLength();
                    }
                    offset = batch.nextOffset();
                }
            }
            result = bytes * 1e3 / (System.nanoTime() - start);
            counted[0] = (os.getProcessCpuTime() - cpu0) / Math.max(1, bytes >> 20);
        }
        BenchDirectory.delete(dir);
        return result;
    }
}
