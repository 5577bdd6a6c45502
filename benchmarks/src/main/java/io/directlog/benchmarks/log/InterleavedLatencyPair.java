package io.directlog.benchmarks.log;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.benchmarks.BenchDirs;
import io.directlog.benchmarks.Payloads;
import io.directlog.benchmarks.raw.RawFile;
import io.directlog.benchmarks.raw.RawOverwriteBenchmark;
import io.directlog.storage.AppendWaiter;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The 1-producer latency target (engine p50 at most 1.2x the raw device's 4 KiB write p50), measured so that the
 * device's drift cancels out. JMH runs one benchmark after the other, and this device's own 4 KiB write p50 moves
 * by a third within minutes, so a pair of JMH rows a minute apart can disagree in either direction by more than
 * the engine's whole overhead. Here the engine (one producer, {@link AppendWaiter}, 100 B records, the log of
 * {@link EngineAppendBenchmark}) and the raw device ({@link RawOverwriteBenchmark}'s write: 4 KiB O_DIRECT, or
 * O_DIRECT|O_DSYNC, at the next block of a pre-zeroed file) take turns in short rounds, in one JVM, each side
 * first in every other round, and each round yields a ratio of p50s measured within a second of each other.
 * <pre>
 * java -cp benchmarks.jar io.directlog.benchmarks.log.InterleavedLatencyPair [--rounds 20] [--round-ms 500]
 *     [--warmup-ms 3000] [--durability DIRECT,DSYNC] [--json FILE] [--raw-zero-fill]
 * </pre>
 * Prints each round and a summary per durability: the median of the rounds' ratios, the median engine and raw
 * p50, and how many rounds were within 1.2x. Run it on an idle machine, as the JMH suites.
 * <p>
 * Not thread-safe; a command-line program.
 */
public final class InterleavedLatencyPair
{
    /** The target: engine p50 at most this many times the raw device's. */
    static final double TARGET_RATIO = 1.2;
    static final int RECORD_SIZE = 100;
    /** Samples one side keeps per round: 500 ms of 10 us operations. */
    private static final int SAMPLES_PER_ROUND = 50_000;

    private InterleavedLatencyPair()
    {
    }

    /**
     * @param args see the class comment.
     * @throws Exception when a side fails or an argument is bad.
     */
    public static void main(final String[] args) throws Exception
    {
        final Options options = Options.parse(args);
        final List<PairResult> results = new ArrayList<>();
        for (final Durability durability : options.durabilities)
        {
            results.add(measure(durability, options, System.out));
        }
        if (options.json != null)
        {
            Files.writeString(options.json, toJson(results, options));
        }
    }

    static PairResult measure(final Durability durability, final Options options, final PrintStream out)
        throws IOException
    {
        try (EngineSide engine = new EngineSide(durability);
            RawSide raw = new RawSide(durability == Durability.DSYNC, options.rawZeroFill))
        {
            final LatencySamples engineSamples = new LatencySamples(SAMPLES_PER_ROUND);
            final LatencySamples rawSamples = new LatencySamples(SAMPLES_PER_ROUND);
            // warm-up: both sides, alternating, so the JIT and the engine's background threads settle
            for (int i = 0; i < 4; i++)
            {
                engine.run(engineSamples, options.warmupMillis / 4);
                raw.run(rawSamples, options.warmupMillis / 4);
            }
            out.printf(Locale.ROOT, "%s: %d rounds of %d ms per side, engine %d B records, raw 4 KiB writes%n",
                durability, options.rounds, options.roundMillis, RECORD_SIZE);
            out.printf(Locale.ROOT, "%6s %14s %14s %7s %14s %14s%n", "round", "engine p50 us", "raw p50 us", "ratio",
                "engine p99 us", "raw p99 us");
            final List<Round> rounds = new ArrayList<>();
            for (int r = 0; r < options.rounds; r++)
            {
                if (r % 2 == 0)
                {
                    engine.run(engineSamples, options.roundMillis);
                    raw.run(rawSamples, options.roundMillis);
                }
                else
                {
                    raw.run(rawSamples, options.roundMillis);
                    engine.run(engineSamples, options.roundMillis);
                }
                final Round round = Round.of(engineSamples, rawSamples);
                rounds.add(round);
                out.printf(Locale.ROOT, "%6d %14.1f %14.1f %7.2f %14.1f %14.1f%n", r + 1, round.engineP50Micros,
                    round.rawP50Micros, round.ratio(), round.engineP99Micros, round.rawP99Micros);
            }
            final PairResult result = new PairResult(durability, rounds);
            out.printf(Locale.ROOT, "%s: median ratio %.2fx (engine p50 %.1f us, raw p50 %.1f us, medians of the " +
                "rounds); %d of %d rounds within %.1fx%n%n", durability, result.medianRatio(),
                result.median(Round::engineP50Micros), result.median(Round::rawP50Micros), result.roundsWithinTarget(),
                rounds.size(), TARGET_RATIO);
            return result;
        }
    }

    static String toJson(final List<PairResult> results, final Options options)
    {
        final StringBuilder json = new StringBuilder(4096).append("{\n");
        json.append(String.format(Locale.ROOT, " \"roundMillis\": %d,\n \"recordSize\": %d,\n \"targetRatio\": %.1f,\n",
            options.roundMillis, RECORD_SIZE, TARGET_RATIO));
        json.append(" \"pairs\": [\n");
        for (int i = 0; i < results.size(); i++)
        {
            final PairResult result = results.get(i);
            json.append(String.format(Locale.ROOT, "  {\"durability\": \"%s\", \"medianRatio\": %.3f, " +
                "\"engineP50MedianUs\": %.2f, \"rawP50MedianUs\": %.2f, \"roundsWithinTarget\": %d, \"rounds\": [\n",
                result.durability, result.medianRatio(), result.median(Round::engineP50Micros),
                result.median(Round::rawP50Micros), result.roundsWithinTarget()));
            for (int r = 0; r < result.rounds.size(); r++)
            {
                final Round round = result.rounds.get(r);
                json.append(String.format(Locale.ROOT, "   {\"engineP50Us\": %.2f, \"rawP50Us\": %.2f, " +
                    "\"engineP99Us\": %.2f, \"rawP99Us\": %.2f, \"engineOps\": %d, \"rawOps\": %d}%s\n",
                    round.engineP50Micros, round.rawP50Micros, round.engineP99Micros, round.rawP99Micros,
                    round.engineOps, round.rawOps, r + 1 < result.rounds.size() ? "," : ""));
            }
            json.append("  ]}").append(i + 1 < results.size() ? ",\n" : "\n");
        }
        return json.append(" ]\n}\n").toString();
    }

    /** One round: both sides' p50 and p99, measured back to back. */
    record Round(double engineP50Micros, double rawP50Micros, double engineP99Micros, double rawP99Micros,
        int engineOps, int rawOps)
    {
        static Round of(final LatencySamples engine, final LatencySamples raw)
        {
            engine.sort();
            raw.sort();
            return new Round(engine.percentile(0.5) / 1e3, raw.percentile(0.5) / 1e3, engine.percentile(0.99) / 1e3,
                raw.percentile(0.99) / 1e3, engine.count(), raw.count());
        }

        double ratio()
        {
            return engineP50Micros / rawP50Micros;
        }
    }

    /** The rounds of one durability. */
    record PairResult(Durability durability, List<Round> rounds)
    {
        double medianRatio()
        {
            return median(Round::ratio);
        }

        double median(final java.util.function.ToDoubleFunction<Round> value)
        {
            final double[] values = rounds.stream().mapToDouble(value).sorted().toArray();
            final int n = values.length;
            return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
        }

        long roundsWithinTarget()
        {
            return rounds.stream().filter(r -> r.ratio() <= TARGET_RATIO).count();
        }
    }

    /** The engine's side: the log of EngineAppendBenchmark, one producer waiting for each acknowledgement. */
    private static final class EngineSide implements AutoCloseable
    {
        private final EngineFixture fixture;
        private final Log log;
        private final Durability durability;
        private final UnsafeBuffer record = EngineFixture.directRecord(RECORD_SIZE);
        private final AppendWaiter waiter = EngineAppendBenchmark.newWaiter();

        EngineSide(final Durability durability)
        {
            this.durability = durability;
            fixture = new EngineFixture("latency-pair", 512L * AbstractBenchmarkBase.MIB,
                EngineAppendBenchmark.logConfig(durability));
            log = fixture.log();
        }

        void run(final LatencySamples samples, final long millis)
        {
            samples.clear();
            final long deadline = System.nanoTime() + millis * 1_000_000L;
            long now = System.nanoTime();
            while (now - deadline < 0)
            {
                final long start = now;
                waiter.append(log, record, 0, RECORD_SIZE, durability);
                now = System.nanoTime();
                samples.record(now - start);
            }
        }

        @Override
        public void close()
        {
            fixture.close();
        }
    }

    /**
     * The raw device's side: RawOverwriteBenchmark's write, one thread. With {@code zeroFill}, a second thread does
     * what the engine's preparer does for a lone producer's log: every 64 MiB of blocks written (a segment's worth,
     * since such a log puts one record in each block), it zero-fills a 64 MiB file with 1 MiB O_DIRECT writes and
     * fdatasyncs it. That row says how much of the engine's difference is the preparer's traffic on the device.
     */
    private static final class RawSide implements AutoCloseable
    {
        private static final long FILE_LENGTH = 256L << 20;
        private static final long SEGMENT_BLOCKS = (64L << 20) / RawOverwriteBenchmark.BLOCK_SIZE;

        private final Path dir = BenchDirs.create("latency-pair-raw");
        private final RawFile file;
        private final RawFile.Block block;
        private final ZeroFiller zeroFiller;
        private long nextBlock;

        RawSide(final boolean dsync, final boolean zeroFill) throws IOException
        {
            file = RawFile.open("nativeio", dir.resolve("segment"), dsync);
            file.preZero(BenchDirs.choose(FILE_LENGTH, 8L << 20));
            block = file.allocate(RawOverwriteBenchmark.BLOCK_SIZE);
            block.buffer().put(Payloads.random(RawOverwriteBenchmark.BLOCK_SIZE));
            zeroFiller = zeroFill ? new ZeroFiller(dir.resolve("next-segment")) : null;
        }

        void run(final LatencySamples samples, final long millis) throws IOException
        {
            samples.clear();
            final long blocks = BenchDirs.choose(FILE_LENGTH, 8L << 20) / RawOverwriteBenchmark.BLOCK_SIZE;
            final long deadline = System.nanoTime() + millis * 1_000_000L;
            long now = System.nanoTime();
            while (now - deadline < 0)
            {
                final long start = now;
                file.write(block, (nextBlock++ % blocks) * RawOverwriteBenchmark.BLOCK_SIZE);
                if (zeroFiller != null && nextBlock % SEGMENT_BLOCKS == 0)
                {
                    zeroFiller.request();
                }
                now = System.nanoTime();
                samples.record(now - start);
            }
        }

        @Override
        public void close() throws IOException
        {
            try
            {
                if (zeroFiller != null)
                {
                    zeroFiller.close();
                }
                block.close();
                file.close();
            }
            finally
            {
                BenchDirs.delete(dir);
            }
        }
    }

    /** The preparer's model: zero-fills a 64 MiB file on request, on its own thread. */
    private static final class ZeroFiller implements AutoCloseable
    {
        private final java.util.concurrent.Semaphore requests = new java.util.concurrent.Semaphore(0);
        private final RawFile file;
        private final Thread thread;
        private volatile boolean running = true;
        private volatile IOException failure;

        ZeroFiller(final Path path) throws IOException
        {
            file = RawFile.open("nativeio", path, false);
            thread = new Thread(this::run, "zero-filler");
            thread.setDaemon(true);
            thread.start();
        }

        void request() throws IOException
        {
            if (failure != null)
            {
                throw failure;
            }
            requests.release();
        }

        private void run()
        {
            try
            {
                while (running)
                {
                    requests.acquire();
                    if (running)
                    {
                        file.preZero(BenchDirs.choose(64L << 20, 8L << 20));
                    }
                }
            }
            catch (final IOException e)
            {
                failure = e;
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() throws IOException
        {
            running = false;
            requests.release();
            try
            {
                thread.join();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            file.close();
        }
    }

    /** The parsed command line. */
    record Options(int rounds, long roundMillis, long warmupMillis, List<Durability> durabilities, Path json,
        boolean rawZeroFill)
    {
        static Options parse(final String[] args)
        {
            int rounds = 20;
            long roundMillis = 500;
            long warmupMillis = 3000;
            List<Durability> durabilities = List.of(Durability.DIRECT, Durability.DSYNC);
            Path json = null;
            boolean rawZeroFill = false;
            for (int i = 0; i < args.length; i++)
            {
                final String name = args[i];
                if ("--raw-zero-fill".equals(name))
                {
                    rawZeroFill = true;
                    continue;
                }
                if (i + 1 >= args.length)
                {
                    throw new IllegalArgumentException("option " + name + " needs a value");
                }
                final String value = args[++i];
                switch (name)
                {
                    case "--rounds" -> rounds = positive(name, value);
                    case "--round-ms" -> roundMillis = positive(name, value);
                    case "--warmup-ms" -> warmupMillis = positive(name, value);
                    case "--durability" -> durabilities = Arrays.stream(value.split(","))
                        .map(d -> durableOrFail(name, d)).toList();
                    case "--json" -> json = Path.of(value);
                    default -> throw new IllegalArgumentException("unknown option " + name +
                        " (expected --rounds, --round-ms, --warmup-ms, --durability, --json, --raw-zero-fill)");
                }
            }
            return new Options(rounds, roundMillis, warmupMillis, durabilities, json, rawZeroFill);
        }

        private static int positive(final String name, final String value)
        {
            final int parsed;
            try
            {
                parsed = Integer.parseInt(value);
            }
            catch (final NumberFormatException e)
            {
                throw new IllegalArgumentException(name + " " + value + ": not a whole number", e);
            }
            if (parsed <= 0)
            {
                throw new IllegalArgumentException(name + " " + value + ": must be at least 1");
            }
            return parsed;
        }

        private static Durability durableOrFail(final String name, final String value)
        {
            if ("DIRECT".equals(value))
            {
                return Durability.DIRECT;
            }
            if ("DSYNC".equals(value))
            {
                return Durability.DSYNC;
            }
            throw new IllegalArgumentException(name + " " + value + ": expected DIRECT or DSYNC (the raw device " +
                "has no MEMORY counterpart)");
        }
    }
}
