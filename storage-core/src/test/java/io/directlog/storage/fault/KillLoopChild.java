package io.directlog.storage.fault;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.TestStores;

/**
 * The victim of the kill loop ({@link KillLoopTest}): opens (recovers) a store, reports what it recovered, then
 * appends at saturation and reports every acknowledgement until the parent kills it with SIGKILL.
 * <p>
 * Arguments: {@code <dir> <seed> <MEMORY|DIRECT|DSYNC|MIXED> <producers> <verifyFrom>}. Lines on stdout:
 * <pre>
 * S                                        before the store is opened
 * O start end openMillis                   the store is open (recovery done)
 * T from                                   records are reported from here on: where the report starts, and again
 *                                          where retention moved the start while it ran
 * R offset count length crc32c selfCheck   one per recovered record at or above verifyFrom
 * Z ok | Z bad why                        I5: the newest segment is zero after its last record, which is end - 1
 * V                                        every recovered record was reported; appends start now
 * A offset length seed crc32c mode ackNanos one per acknowledged append (ackNanos: System.nanoTime, which is
 *                                          CLOCK_MONOTONIC and so comparable across processes on Linux)
 * F message                                an append failed (never expected)
 * </pre>
 * A payload of 8 bytes or more starts with its seed (little-endian) and the rest is derived from it, so any
 * recovered record can be checked on its own: an invented or garbled record fails the self-check even when no
 * acknowledgement for it reached the parent. Shorter payloads are the seed's first bytes.
 */
public final class KillLoopChild
{
    /** Segment size of the kill loop's log: small, so rolls and pre-zeroing happen often. */
    static final int SEGMENT_SIZE = 1 << 20;
    /** MEMORY mode's flush settings; the parent checks the observed loss against them. */
    static final int FLUSH_BYTES = 256 << 10;
    static final Duration FLUSH_INTERVAL = Duration.ofMillis(20);
    static final String LOG_NAME = "kill";
    /**
     * Retention keeps a few segments, and the syncer that applies it runs every 20 ms: a chain recycles segment
     * files within a cycle, so kills land in retention, in the preparer's reuse of a file and in the writer's
     * appends into a recycled segment, and recovery meets recycled segments with stale records after their end.
     */
    static final long RETENTION_BYTES = 4L * SEGMENT_SIZE;
    static final Duration SYNC_INTERVAL = Duration.ofMillis(20);
    /** Set by {@link KillLoopLauncher}'s CDS training run: append briefly, then exit cleanly. */
    static final String TRAIN_PROP_NAME = "directlog.kill.train";
    private static final int MAX_PAYLOAD = SEGMENT_SIZE - 4096 - 32;

    private KillLoopChild()
    {
    }

    static StoreConfig config(final Path dir, final Durability durability)
    {
        return StoreConfig.builder(dir).memoryBudget(64L << 20).writerThreads(1)
            .defaultLogConfig(LogConfig.builder().segmentSize(SEGMENT_SIZE).durability(durability)
                .flushBytes(FLUSH_BYTES).flushInterval(FLUSH_INTERVAL).syncInterval(SYNC_INTERVAL)
                .retentionBytes(RETENTION_BYTES).build())
            .build();
    }

    /**
     * @param args dir, seed, mode, producers, verifyFrom.
     * @throws Exception on any failure (the parent sees the exit code and stderr).
     */
    public static void main(final String[] args) throws Exception
    {
        final Path dir = Path.of(args[0]);
        final long seed = Long.parseLong(args[1]);
        final String mode = args[2];
        final int producers = Integer.parseInt(args[3]);
        final long verifyFrom = Long.parseLong(args[4]);
        final PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out),
            1 << 16), false);
        final Thread flusher = new Thread(() ->
        {
            while (true)
            {
                synchronized (out)
                {
                    out.flush();
                }
                try
                {
                    Thread.sleep(1); // flush often: an acknowledgement still in this buffer at the kill is not counted
                }
                catch (final InterruptedException e)
                {
                    return;
                }
            }
        }, "ack-flusher");
        flusher.setDaemon(true);
        flusher.start();
        emit(out, "S");
        final long t0 = System.nanoTime();
        final Durability fixed = "MIXED".equals(mode) ? null : Durability.valueOf(mode);
        final LogStore store = LogStore.open(config(dir, fixed == null ? Durability.DSYNC : fixed));
        final Log log = store.log(LOG_NAME);
        emit(out, "O " + log.startOffset() + " " + log.endOffset() + " " + (System.nanoTime() - t0) / 1_000_000);
        emit(out, cleanTail(dir.resolve(LOG_NAME), log.endOffset()));
        report(out, log, Math.max(verifyFrom, log.startOffset()));
        emit(out, "V");
        final Semaphore bytesInFlight = new Semaphore(32 << 10); // KiB units: bounds the heap at saturation
        for (int p = 0; p < producers; p++)
        {
            final SplittableRandom rng = new SplittableRandom(seed * 1_000_003L + p);
            final Thread t = new Thread(() -> produce(out, log, rng, fixed, bytesInFlight), "producer-" + p);
            t.setDaemon(true);
            t.start();
        }
        if (Boolean.getBoolean(TRAIN_PROP_NAME))
        {
            Thread.sleep(500);
            synchronized (out)
            {
                out.flush();
            }
            Runtime.getRuntime().halt(0); // producers are mid-append; the archive is written at VM exit anyway
        }
        Thread.sleep(60_000); // the parent kills long before this; a forgotten child exits on its own
        store.close();
        System.exit(3);
    }

    private static void emit(final PrintStream out, final String line)
    {
        synchronized (out)
        {
            out.println(line);
        }
    }

    /**
     * I5, checked on the files before anything new is appended: the newest segment with a header holds records
     * ending at the recovered end, and every byte after them is zero.
     *
     * @return "Z ok", or "Z bad ..." saying what is wrong.
     */
    private static String cleanTail(final Path logDir, final long end) throws java.io.IOException
    {
        Path last = null;
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(logDir))
        {
            for (final Path f : (Iterable<Path>)files.sorted()::iterator)
            {
                final String name = f.getFileName().toString();
                try
                {
                    if (name.endsWith(".log") && !LogSurgery.zeroFrom(f, 0, 64))
                    {
                        last = f;
                    }
                }
                catch (final java.io.UncheckedIOException e)
                {
                    if (!(e.getCause() instanceof java.nio.file.NoSuchFileException))
                    {
                        throw e;
                    }
                    // retention gave it back since the listing: an old segment, not the newest
                }
            }
        }
        if (last == null)
        {
            return end == 0 ? "Z ok" : "Z bad no segment with a header, end " + end;
        }
        final byte[] bytes = LogSurgery.read(last);
        final java.util.List<LogSurgery.Found> found = LogSurgery.records(bytes);
        final int tail = found.isEmpty() ? LogSurgery.HEADER :
            found.get(found.size() - 1).position() + found.get(found.size() - 1).aligned();
        if (!LogSurgery.cleanAfter(last, tail))
        {
            return "Z bad " + last.getFileName() + ": bytes other than a gap and zeros after the records ending at " + tail;
        }
        if (!found.isEmpty() && found.get(found.size() - 1).offset() + 1 != end)
        {
            return "Z bad " + last.getFileName() + ": last record offset " + found.get(found.size() - 1).offset() +
                ", recovered end " + end;
        }
        return "Z ok";
    }

    private static void report(final PrintStream out, final Log log, final long from)
    {
        final long end = log.endOffset();
        long next = from;
        emit(out, "T " + next);
        while (next < end)
        {
            final RecordBatch read;
            try
            {
                read = log.read(next, 4 << 20);
            }
            catch (final io.directlog.storage.OffsetOutOfRangeException e)
            {
                next = log.startOffset(); // the syncer's retention dropped segments while this reported
                emit(out, "T " + next);
                continue;
            }
            try (RecordBatch batch = read)
            {
                if (batch.isEmpty())
                {
                    emit(out, "F read at " + next + " returned nothing before the end " + end);
                    return;
                }
                for (final Record r : batch)
                {
                    final byte[] payload = r.payloadBytes();
                    emit(out, "R " + r.offset() + " " + r.recordCount() + " " + payload.length + " " +
                        crc(payload) + " " + (selfCheck(payload) ? 1 : 0));
                }
                next = batch.nextOffset();
            }
        }
    }

    private static void produce(final PrintStream out, final Log log, final SplittableRandom rng,
        final Durability fixed, final Semaphore bytesInFlight)
    {
        final Durability[] modes = Durability.values();
        while (true)
        {
            final int length = payloadLength(rng);
            final long payloadSeed = rng.nextLong();
            final byte[] payload = payload(payloadSeed, length);
            final int crc = crc(payload);
            final Durability durability = fixed != null ? fixed : modes[rng.nextInt(modes.length)];
            final int permits = (length >> 10) + 1;
            bytesInFlight.acquireUninterruptibly(permits);
            log.append(payload, durability).whenComplete((offset, error) ->
            {
                bytesInFlight.release(permits);
                if (error != null)
                {
                    emit(out, "F " + error);
                }
                else
                {
                    emit(out, "A " + offset + " " + length + " " + payloadSeed + " " + crc + " " +
                        durability.ordinal() + " " + System.nanoTime());
                }
            });
        }
    }

    /** Mostly small records, some up to the largest a 1 MiB segment holds. */
    static int payloadLength(final SplittableRandom rng)
    {
        final int p = rng.nextInt(100);
        if (p < 5)
        {
            return 0;
        }
        if (p < 75)
        {
            return rng.nextInt(1, 257);
        }
        if (p < 93)
        {
            return rng.nextInt(257, 16 << 10);
        }
        if (p < 99)
        {
            return rng.nextInt(16 << 10, 256 << 10);
        }
        return rng.nextInt(256 << 10, MAX_PAYLOAD + 1);
    }

    /** The seed in the first 8 bytes (little-endian), then bytes that follow from it alone: see {@link #selfCheck}. */
    static byte[] payload(final long seed, final int length)
    {
        return TestStores.payload(0, seed, length);
    }

    /** @return true when a payload of 8 bytes or more is what its leading seed generates (shorter: unknowable). */
    static boolean selfCheck(final byte[] payload)
    {
        if (payload.length < 8)
        {
            return true;
        }
        long seed = 0;
        for (int i = 7; i >= 0; i--)
        {
            seed = (seed << 8) | (payload[i] & 0xFF);
        }
        return java.util.Arrays.equals(payload, payload(seed, payload.length));
    }

    static int crc(final byte[] payload)
    {
        return (int)TestStores.crc(payload);
    }
}
