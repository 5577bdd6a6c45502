package io.directlog.storage.realfs;

import io.directlog.nativeio.DirectIoProbe;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.io.NativeBlockIo;

import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The child JVM of the crash-image test: appends on a loop-mounted filesystem until killed, and prints each
 * acknowledgement ({@code A offset producer seq length crc}) on stdout, in offset order. The parent freezes it
 * (SIGSTOP), copies the image, and lets it go on.
 * <p>
 * Arguments: store directory, producers, largest record, bytes per second (all producers), seed, durability
 * (DIRECT, DSYNC or MIXED).
 */
public final class CrashWriterMain
{
    static final String LOG_NAME = "crash";

    private CrashWriterMain()
    {
    }

    /** The log's settings, shared with the parent that reopens crash images: small segments so rolls are frequent. */
    static LogConfig logConfig()
    {
        return LogConfig.builder().segmentSize(1 << 20).preparedSegments(2)
            .syncInterval(Duration.ofMillis(200)).durability(Durability.DSYNC).build();
    }

    static StoreConfig storeConfig(final Path dir, final FiemapCheckingBlockIo io)
    {
        return StoreConfig.builder(dir).memoryBudget(64L << 20).writerThreads(1)
            .appendTimeout(Duration.ofSeconds(10)).defaultLogConfig(logConfig()).blockIo(io).build();
    }

    static FiemapCheckingBlockIo checkingIo(final Path dir)
    {
        final DirectIoProbe.Result probe = DirectIoProbe.probe(dir);
        if (!probe.supported())
        {
            throw new IllegalStateException("no O_DIRECT in " + dir + ": " + probe.reason());
        }
        return new FiemapCheckingBlockIo(new NativeBlockIo(Math.max(4096, probe.alignment())));
    }

    public static void main(final String[] args) throws Exception
    {
        final Path dir = Path.of(args[0]);
        final int producers = Integer.parseInt(args[1]);
        final int maxRecord = Integer.parseInt(args[2]);
        final long bytesPerSecond = Long.parseLong(args[3]);
        final long seed = Long.parseLong(args[4]);
        final String durability = args[5];

        final LinkedBlockingQueue<String> out = new LinkedBlockingQueue<>();
        final FiemapCheckingBlockIo io = checkingIo(dir);
        final LogStore store = LogStore.open(storeConfig(dir, io));
        final Log log = store.log(LOG_NAME, logConfig());
        out.add("R " + log.endOffset());

        final List<Thread> threads = new ArrayList<>();
        for (int p = 1; p <= producers; p++)
        {
            final int producer = p;
            final SplittableRandom random = new SplittableRandom(seed * 31 + p);
            threads.add(new Thread(() -> produce(log, producer, random, maxRecord,
                bytesPerSecond / producers, durability, out), "producer-" + p));
        }
        threads.forEach(Thread::start);

        // The printer: acknowledgements in the order the callbacks ran (offset order), flushed whenever the
        // queue runs dry, so what the parent has read was acknowledged before it froze this process.
        final OutputStream stdout = new BufferedOutputStream(System.out, 1 << 16);
        long reportedChecks = -1;
        final List<String> batch = new ArrayList<>();
        while (true)
        {
            final String first = out.poll(50, TimeUnit.MILLISECONDS);
            if (first != null)
            {
                batch.add(first);
                out.drainTo(batch);
            }
            final long checks = io.segmentsChecked.get();
            if (checks != reportedChecks)
            {
                batch.add("C " + checks);
                reportedChecks = checks;
            }
            for (String v; (v = io.violations.poll()) != null; )
            {
                batch.add("V " + v);
            }
            for (final String line : batch)
            {
                stdout.write(line.getBytes(StandardCharsets.US_ASCII));
                stdout.write('\n');
            }
            stdout.flush();
            for (final String line : batch)
            {
                if (line.startsWith("E "))
                {
                    // a failed append leaves a gap in its producer's sequence: stop, the parent reports the line
                    Runtime.getRuntime().halt(3);
                }
            }
            batch.clear();
        }
    }

    private static void produce(final Log log, final int producer, final SplittableRandom random, final int maxRecord,
        final long bytesPerSecond, final String durability, final LinkedBlockingQueue<String> out)
    {
        final Semaphore inFlight = new Semaphore(16);
        final long startNanos = System.nanoTime();
        long bytes = 0;
        for (long seq = 1; ; seq++)
        {
            final int roll = random.nextInt(100);
            final int length = roll < 60 ? random.nextInt(16, 257) :
                roll < 90 ? random.nextInt(257, 8193) : random.nextInt(8193, maxRecord + 1);
            final Durability d = switch (durability)
            {
                case "DIRECT" -> Durability.DIRECT;
                case "DSYNC" -> Durability.DSYNC;
                default -> random.nextBoolean() ? Durability.DIRECT : Durability.DSYNC;
            };
            final byte[] payload = TestRecords.payload(producer, seq, length);
            final long s = seq;
            inFlight.acquireUninterruptibly();
            log.append(payload, d).whenComplete((offset, error) ->
            {
                inFlight.release();
                if (error != null)
                {
                    out.add("E " + producer + ' ' + s + ' ' + error.toString().replace('\n', ' '));
                }
                else
                {
                    out.add(new TestRecords.Ack(offset, producer, s, payload.length,
                        TestRecords.crc(payload)).line());
                }
            });
            bytes += length;
            // pacing keeps a run within a small image; the writer still sees bursts of up to 16 appends per producer
            final long dueNanos = startNanos + bytes * 1_000_000_000L / bytesPerSecond;
            final long ahead = dueNanos - System.nanoTime();
            if (ahead > 0)
            {
                LockSupport.parkNanos(ahead);
            }
        }
    }
}
