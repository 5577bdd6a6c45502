package io.directlog.storage.fault;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.RecoveryMode;
import io.directlog.storage.StorageException;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.format.RecordDescriptor;
import io.directlog.storage.format.SegmentHeaderDescriptor;
import io.directlog.storage.log.RecordScanner;
import io.directlog.storage.log.SegmentIndex;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Seeded mutation fuzzing of the recovery parser: valid 64 KiB segment images (encoded here, independently of
 * the engine's writer) are damaged by bit flips, garbage runs, zeroed sectors and blocks, block swaps, absurd
 * length and count fields, stale record copies and truncation, then scanned by {@link RecordScanner}; a sample is
 * written into a real log and opened through the whole {@link LogStore} recovery. The oracle: no exception, no
 * hang (over 1 s per segment), no OutOfMemoryError, the scan stops on a record boundary of the original, and no
 * record whose bytes were changed (or that was never written) is accepted.
 * <p>
 * Not thread-safe.
 */
final class ParserFuzz
{
    private static final int SEG = 64 << 10;
    /** The block size of the fuzzed segments: gaps end at multiples of it. */
    private static final int BLOCK = 4096;
    private static final int HEADER = SegmentHeaderDescriptor.LENGTH;
    private static final int BASES = 32;
    private static volatile Result last;

    private final long seed;
    private final SplittableRandom rng;
    private final List<String> violations = new ArrayList<>();
    private long corruptAccepted;
    private long detected;
    private long injected;
    private long recordsChecked;
    private long maxScanNanos;
    private long knownBug;
    private long scannerAccepted;
    private long openReturnedDamaged;
    private String openExample;
    private long hangs;
    private String hangExample;
    private String knownBugExample;

    /** What a run found. */
    record Result(long seed, long segments, long opens, long injected, long detected, long corruptAccepted,
        long recordsChecked, double maxScanMillis, double seconds, long knownBug, String knownBugExample,
        long scannerAccepted, long openReturnedDamaged, String openExample, long hangs, String hangExample,
        List<String> violations)
    {
    }

    /** One valid segment image and its record boundaries. */
    private record Base(UnsafeBuffer bytes, int[] starts, int[] lengths, int end, long baseOffset, int logId)
    {
    }

    ParserFuzz(final long seed)
    {
        this.seed = seed;
        this.rng = new SplittableRandom(seed);
    }

    static Result lastResult()
    {
        return last;
    }

    Result run(final int segments, final int opens, final Path dir) throws Exception
    {
        final long t0 = System.nanoTime();
        final Base[] bases = new Base[BASES];
        for (int i = 0; i < BASES; i++)
        {
            bases[i] = base(rng.split());
        }
        final UnsafeBuffer work = new UnsafeBuffer(ByteBuffer.allocateDirect(SEG).order(ByteOrder.nativeOrder()));
        final RecordScanner scanner = new RecordScanner(BLOCK);
        for (int n = 0; n < segments && violations.size() < 20; n++)
        {
            final Base b = bases[rng.nextInt(BASES)];
            work.putBytes(0, b.bytes, 0, SEG);
            mutate(work, b, 1 + rng.nextInt(3));
            final int firstDiff = firstDiff(work, b.bytes);
            if (firstDiff < SEG)
            {
                injected++;
            }
            final int mode = rng.nextInt(4);
            final int limit = mode == 3 ? HEADER + rng.nextInt((SEG - HEADER) / 512 + 1) * 512 : SEG;
            final SegmentIndex index = mode == 2 ? new SegmentIndex(SEG) : null;
            final long s0 = System.nanoTime();
            final RecordScanner.Stop stop;
            try
            {
                stop = scanner.scan(work, HEADER, limit, b.baseOffset, b.logId, index, 0, SEG);
            }
            catch (final IllegalArgumentException e)
            {
                if (overflowingLength(work, scanner))
                {
                    // engine bug: RecordDescriptor.alignedLength(length) overflows for length >= 2^31 - 7
                    knownBug++;
                    knownBugExample = knownBugExample != null ? knownBugExample : "segment " + n + ": " + e;
                    detected += firstDiff < SEG ? 1 : 0; // refused, though untyped
                }
                else
                {
                    violations.add("segment " + n + ": scanner threw " + e);
                }
                continue;
            }
            catch (final RuntimeException | Error e)
            {
                violations.add("segment " + n + ": scanner threw " + e);
                continue;
            }
            final long took = System.nanoTime() - s0;
            maxScanNanos = Math.max(maxScanNanos, took);
            if (took > 1_000_000_000L)
            {
                violations.add("segment " + n + ": scan took " + took / 1_000_000 + " ms");
            }
            check(n, work, b, stop, scanner, limit, firstDiff);
        }
        final int opened = opens > 0 ? fullOpens(opens, dir) : 0;
        final Result r = new Result(seed, segments, opened, injected, detected, corruptAccepted, recordsChecked,
            maxScanNanos / 1e6, (System.nanoTime() - t0) / 1e9, knownBug, knownBugExample, scannerAccepted,
            openReturnedDamaged, openExample, hangs, hangExample, List.copyOf(violations));
        last = r;
        return r;
    }

    private void check(final int n, final UnsafeBuffer work, final Base b, final RecordScanner.Stop stop,
        final RecordScanner scanner, final int limit, final int firstDiff)
    {
        final int position = scanner.position();
        final int k = scanner.records();
        if (stop == null || position < HEADER || position > limit || ((position - HEADER) & 7) != 0)
        {
            violations.add("segment " + n + ": stop " + stop + " at position " + position);
            return;
        }
        // walk the records the scan accepted the way the format places them (over gaps), in the mutated bytes: each
        // must be byte-identical to the written record with that index, wherever it lies (a block swap can put an
        // authentic copy of the next record at a gap's start), and the scan must stop right after the last one
        if (k > b.starts.length)
        {
            reject(n, "accepted " + k + " records, more than the " + b.starts.length + " written");
            return;
        }
        int p = HEADER;
        for (int i = 0; i < k; i++)
        {
            if (work.getInt(p + RecordDescriptor.LENGTH_OFFSET) == 0 && RecordDescriptor.isGap(p, BLOCK))
            {
                p = RecordDescriptor.gapEnd(p, BLOCK);
            }
            if (!same(work, p, b.bytes, b.starts[i], b.lengths[i]))
            {
                reject(n, "accepted record " + i + " at " + p + ", not the bytes written as record " + i + " (at " +
                    b.starts[i] + "); stop " + stop + " " + scanner.reason());
                return;
            }
            p += RecordDescriptor.alignedLength(b.lengths[i]);
        }
        if (position != p)
        {
            reject(n, "accepted " + k + " records ending at " + p + " but stopped at " + position + " (written end " +
                b.end + "); stop " + stop + " " + scanner.reason());
            return;
        }
        recordsChecked += k;
        if (firstDiff < SEG)
        {
            detected++;
        }
    }

    /** Writes fuzzed images over the start of a real log's last segment and opens it through LogStore. */
    private int fullOpens(final int opens, final Path dir) throws Exception
    {
        final Path src = dir.resolve("src");
        final List<byte[]> payloads = new ArrayList<>();
        try (LogStore store = LogStore.open(config(src, RecoveryMode.TOLERATE_TORN_TAIL)))
        {
            // four writes (MEMORY appends, each wave ended by a DSYNC one), so the image has gaps between them;
            // no timed flush in between, so it stays within one fuzzed segment
            final Log log = store.log("f", LogConfig.builder().segmentSize(1 << 20).preparedSegments(1)
                .flushInterval(java.time.Duration.ofMinutes(1)).build());
            for (int i = 0; i < 120; i++)
            {
                final byte[] p = new byte[rng.nextInt(i % 10 == 0 ? 0 : 1, 400)];
                rng.nextBytes(p);
                payloads.add(p);
                log.append(p, i % 30 == 29 ? Durability.DSYNC : Durability.MEMORY).join();
            }
        }
        final Path srcSeg = LogSurgery.segment(src.resolve("f"), 0);
        final byte[] original = LogSurgery.read(srcSeg);
        final List<LogSurgery.Found> found = LogSurgery.records(original);
        final int end = found.get(found.size() - 1).position() + found.get(found.size() - 1).aligned();
        if (end > SEG)
        {
            throw new IllegalStateException("fuzz log ends at " + end + ", beyond " + SEG);
        }
        final Base b = fromFound(original, found, end);
        final UnsafeBuffer work = new UnsafeBuffer(ByteBuffer.allocateDirect(SEG).order(ByteOrder.nativeOrder()));
        final RecoveryMode[] modes = RecoveryMode.values();
        int done = 0;
        for (int n = 0; n < opens && violations.size() < 20; n++)
        {
            final Path img = dir.resolve("open-" + n);
            LogSurgery.crashImage(src, "f", img);
            work.putBytes(0, b.bytes, 0, SEG);
            mutate(work, b, 1 + rng.nextInt(3));
            final byte[] image = new byte[SEG];
            work.getBytes(0, image);
            final int firstDiff = firstDiff(work, b.bytes);
            if (firstDiff < SEG)
            {
                injected++;
            }
            LogSurgery.write(LogSurgery.segment(img.resolve("f"), 0), 0, image);
            final RecoveryMode mode = modes[rng.nextInt(modes.length)];
            final long t0 = System.nanoTime();
            final int sample = n;
            final java.util.concurrent.FutureTask<Void> task = new java.util.concurrent.FutureTask<>(() ->
            {
                openSample(sample, img, mode, payloads, firstDiff);
                return null;
            });
            final Thread runner = new Thread(task, "fuzz-open-" + n);
            runner.setDaemon(true);
            runner.start();
            try
            {
                task.get(30, java.util.concurrent.TimeUnit.SECONDS);
            }
            catch (final java.util.concurrent.TimeoutException e)
            {
                // engine bug: a read of a damaged log loops forever; the thread is abandoned (it keeps a core busy,
                // so no further opens are tried)
                hangs++;
                hangExample = "open " + n + " (" + mode + ", seed " + seed + "): no return after 30 s, stuck in " +
                    java.util.Arrays.toString(java.util.Arrays.copyOf(runner.getStackTrace(), 6));
                done++;
                break;
            }
            catch (final java.util.concurrent.ExecutionException e)
            {
                violations.add("open " + n + " (" + mode + "): " + e.getCause());
            }
            final long took = System.nanoTime() - t0;
            if (took > 10_000_000_000L)
            {
                violations.add("open " + n + " took " + took / 1_000_000 + " ms");
            }
            Dirs.delete(img);
            done++;
        }
        Dirs.delete(src);
        return done;
    }

    private void openSample(final int n, final Path img, final RecoveryMode mode, final List<byte[]> payloads,
        final int firstDiff)
    {
        try (LogStore store = LogStore.open(config(img, mode)))
        {
            final Log log = store.log("f");
            final long logEnd = log.endOffset();
            if (logEnd > payloads.size())
            {
                corruptAccepted++;
                violations.add("open " + n + " (" + mode + "): end " + logEnd + " beyond the " + payloads.size() +
                    " records written");
            }
            long next = 0;
            while (next < logEnd)
            {
                try (RecordBatch batch = log.read(next, 1 << 20))
                {
                    if (batch.isEmpty())
                    {
                        violations.add("open " + n + ": nothing readable at " + next);
                        break;
                    }
                    for (final Record r : batch)
                    {
                        if (r.offset() >= payloads.size() ||
                            !java.util.Arrays.equals(payloads.get((int)r.offset()), r.payloadBytes()))
                        {
                            // engine bug: reads do not check the CRC of records the open did not scan
                            corruptAccepted++;
                            openReturnedDamaged++;
                            openExample = openExample != null ? openExample : "open " + n + " (" + mode +
                                "): offset " + r.offset() + " returned with bytes never appended there";
                        }
                        recordsChecked++;
                        next = r.nextOffset();
                    }
                }
            }
            final long appended = log.append(new byte[] {7}, Durability.DSYNC).join();
            if (appended != logEnd)
            {
                violations.add("open " + n + ": append after recovery got " + appended + ", end was " + logEnd);
            }
            if (firstDiff < SEG)
            {
                detected++; // opened as a clean prefix: the damage was cut, no damaged record returned
            }
        }
        catch (final StorageException e)
        {
            if (firstDiff < SEG)
            {
                detected++; // refused with a typed error
            }
            else
            {
                violations.add("open " + n + " (" + mode + "): an undamaged log was refused: " + e);
            }
        }
        catch (final IndexOutOfBoundsException e)
        {
            knownBug++; // ReadPath.collect/locate: the same alignedLength overflow, at read time
            knownBugExample = knownBugExample != null ? knownBugExample : "open " + n + " (read): " + e;
        }
        catch (final IllegalArgumentException e)
        {
            if (e.getMessage() != null && e.getMessage().startsWith("newLimit < 0"))
            {
                knownBug++; // the alignedLength overflow, through the whole open
                knownBugExample = knownBugExample != null ? knownBugExample : "open " + n + ": " + e;
                detected += firstDiff < SEG ? 1 : 0;
            }
            else
            {
                violations.add("open " + n + " (" + mode + "): untyped failure " + e);
            }
        }
        catch (final RuntimeException | Error e)
        {
            violations.add("open " + n + " (" + mode + "): untyped failure " + e);
        }
    }

    private static StoreConfig config(final Path dir, final RecoveryMode mode)
    {
        return StoreConfig.builder(dir).memoryBudget(16L << 20).writerThreads(1).recoveryMode(mode)
            .defaultLogConfig(LogConfig.builder().segmentSize(1 << 20).preparedSegments(1).build()).build();
    }

    private Base base(final SplittableRandom r)
    {
        final UnsafeBuffer buf = new UnsafeBuffer(ByteBuffer.allocateDirect(SEG).order(ByteOrder.nativeOrder()));
        final long logId = r.nextLong() | 1;
        final int recordLogId = RecordDescriptor.recordLogId(logId);
        final long baseOffset = r.nextLong(1L << 40);
        SegmentHeaderDescriptor.write(buf, logId, baseOffset, r.nextInt(1000), SEG, BLOCK, System.currentTimeMillis(), 0);
        // one base in four runs to 8, 16 or 24 bytes before the segment's end: a gap shorter than a header
        final int shortTail = r.nextInt(4) == 0 ? 8 * (1 + r.nextInt(3)) : 0;
        final int fill = shortTail > 0 ? SEG : HEADER + r.nextInt(SEG - HEADER + 1);
        final List<int[]> records = new ArrayList<>();
        int p = HEADER;
        long offset = baseOffset;
        long timestamp = 1_700_000_000_000L + r.nextInt(1 << 20);
        final CRC32C crc = new CRC32C();
        boolean last = false;
        while (!last)
        {
            final int kind = r.nextInt(100);
            int payload = kind < 20 ? 0 : kind < 80 ? r.nextInt(1, 200) : kind < 97 ? r.nextInt(200, 4096) :
                r.nextInt(4096, 20_000);
            if (shortTail > 0 && p + RecordDescriptor.alignedLength(RecordDescriptor.HEADER_LENGTH + payload) >
                SEG - shortTail - RecordDescriptor.HEADER_LENGTH)
            {
                payload = SEG - shortTail - p - RecordDescriptor.HEADER_LENGTH; // the last one, ending there
                last = true;
                if (payload < 0)
                {
                    break;
                }
            }
            final int length = RecordDescriptor.HEADER_LENGTH + payload;
            final int aligned = RecordDescriptor.alignedLength(length);
            if (p + aligned > fill)
            {
                break;
            }
            final int count = r.nextInt(10) == 0 ? r.nextInt(2, 50) : 1;
            buf.putInt(p + RecordDescriptor.LENGTH_OFFSET, length);
            buf.putLong(p + RecordDescriptor.OFFSET_OFFSET, offset);
            buf.putLong(p + RecordDescriptor.TIMESTAMP_OFFSET, timestamp);
            buf.putInt(p + RecordDescriptor.COUNT_OFFSET, count);
            buf.putInt(p + RecordDescriptor.LOG_ID_OFFSET, recordLogId);
            final byte[] body = new byte[payload];
            r.nextBytes(body);
            buf.putBytes(p + RecordDescriptor.HEADER_LENGTH, body);
            final byte[] covered = new byte[length - RecordDescriptor.CRC_COVERAGE_OFFSET];
            buf.getBytes(p + RecordDescriptor.CRC_COVERAGE_OFFSET, covered);
            crc.reset();
            crc.update(covered, 0, covered.length);
            buf.putInt(p + RecordDescriptor.CRC_OFFSET, (int)crc.getValue());
            records.add(new int[] {p, length});
            p += aligned;
            offset += count;
            timestamp += r.nextInt(3);
            if (last || r.nextInt(4) == 0)
            {
                // a write ended here: the writer leaves a gap (zero length, then filler) to the next block
                final int gapEnd = Math.min(SEG, RecordDescriptor.gapEnd(p, BLOCK));
                if (gapEnd > p)
                {
                    buf.setMemory(p + 4, gapEnd - p - 4, RecordDescriptor.GAP_FILL);
                }
                p = gapEnd;
            }
        }
        final int end = records.isEmpty() ? HEADER :
            records.get(records.size() - 1)[0] + RecordDescriptor.alignedLength(records.get(records.size() - 1)[1]);
        buf.setMemory(p, SEG - p, (byte)0); // after the last record: its gap if one was left, then zeros
        return new Base(buf, records.stream().mapToInt(x -> x[0]).toArray(),
            records.stream().mapToInt(x -> x[1]).toArray(), end, baseOffset, recordLogId);
    }

    private static Base fromFound(final byte[] segment, final List<LogSurgery.Found> found, final int end)
    {
        final UnsafeBuffer buf = new UnsafeBuffer(ByteBuffer.allocateDirect(SEG).order(ByteOrder.nativeOrder()));
        buf.putBytes(0, segment, 0, SEG);
        final ByteBuffer bb = ByteBuffer.wrap(segment).order(ByteOrder.nativeOrder());
        return new Base(buf, found.stream().mapToInt(LogSurgery.Found::position).toArray(),
            found.stream().mapToInt(LogSurgery.Found::length).toArray(), end, found.get(0).offset(),
            bb.getInt(HEADER + RecordDescriptor.LOG_ID_OFFSET));
    }

    private void mutate(final UnsafeBuffer work, final Base b, final int times)
    {
        for (int t = 0; t < times; t++)
        {
            final boolean inRecords = b.starts.length > 0 && rng.nextInt(10) < 7;
            final int at = inRecords ? HEADER + rng.nextInt(Math.max(1, b.end - HEADER)) :
                HEADER + rng.nextInt(SEG - HEADER);
            switch (rng.nextInt(9))
            {
                case 0, 1 -> work.putByte(at, (byte)(work.getByte(at) ^ (1 << rng.nextInt(8))));
                case 2 ->
                {
                    final int n = Math.min(1 + rng.nextInt(64), SEG - at);
                    for (int i = 0; i < n; i++)
                    {
                        work.putByte(at + i, (byte)rng.nextInt(256));
                    }
                }
                case 3 ->
                {
                    final int size = rng.nextBoolean() ? 512 : 4096;
                    final int from = Math.max(HEADER, at & -size);
                    work.setMemory(from, Math.min(size, SEG - from), (byte)0);
                }
                case 4 ->
                {
                    final int size = rng.nextBoolean() ? 512 : 4096;
                    final int x = Math.max(HEADER, at & -size);
                    final int y = HEADER + (rng.nextInt(SEG - HEADER) & -size);
                    if (x + size <= SEG && y + size <= SEG && x != y)
                    {
                        final byte[] tmp = new byte[size];
                        work.getBytes(x, tmp);
                        work.putBytes(x, work, y, size);
                        work.putBytes(y, tmp);
                    }
                }
                case 5 ->
                {
                    final int p = recordStart(b);
                    final int[] absurd = {Integer.MAX_VALUE, Integer.MIN_VALUE, -1, 0, 1, 31, 32, 33, SEG, SEG - p,
                        SEG - p + 1, 1 << 30, rng.nextInt()};
                    work.putInt(p + RecordDescriptor.LENGTH_OFFSET, absurd[rng.nextInt(absurd.length)]);
                }
                case 6 ->
                {
                    final int p = recordStart(b);
                    final int[] counts = {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 2};
                    if (rng.nextBoolean())
                    {
                        work.putInt(p + RecordDescriptor.COUNT_OFFSET, counts[rng.nextInt(counts.length)]);
                    }
                    else
                    {
                        work.putLong(p + RecordDescriptor.OFFSET_OFFSET,
                            work.getLong(p + RecordDescriptor.OFFSET_OFFSET) + (rng.nextBoolean() ? 1 : -1));
                    }
                }
                case 7 ->
                {
                    // a stale copy of a valid record at a record boundary or right after the end
                    if (b.starts.length > 0)
                    {
                        final int i = rng.nextInt(b.starts.length);
                        final int len = RecordDescriptor.alignedLength(b.lengths[i]);
                        final int to = rng.nextBoolean() ? b.end : b.starts[rng.nextInt(b.starts.length)];
                        if (to + len <= SEG && to != b.starts[i])
                        {
                            work.putBytes(to, b.bytes, b.starts[i], len);
                        }
                    }
                }
                default ->
                {
                    // truncation: everything from here on reads as zeros
                    work.setMemory(at, SEG - at, (byte)0);
                }
            }
        }
    }

    /** @return true when the scan stopped at a length field that overflows alignedLength (the known bug). */
    private static boolean overflowingLength(final UnsafeBuffer work, final RecordScanner scanner)
    {
        final int p = scanner.position();
        return p + 4 <= SEG && work.getInt(p + RecordDescriptor.LENGTH_OFFSET) >= Integer.MAX_VALUE - 6;
    }

    private int recordStart(final Base b)
    {
        return b.starts.length == 0 ? HEADER : b.starts[rng.nextInt(b.starts.length)];
    }

    private static int firstDiff(final UnsafeBuffer a, final UnsafeBuffer b)
    {
        for (int i = 0; i < SEG; i += 8)
        {
            if (a.getLong(i) != b.getLong(i))
            {
                for (int j = i; ; j++)
                {
                    if (a.getByte(j) != b.getByte(j))
                    {
                        return j;
                    }
                }
            }
        }
        return SEG;
    }

    private static boolean same(final UnsafeBuffer a, final int at, final UnsafeBuffer b, final int from,
        final int length)
    {
        for (int i = 0; i < length; i++)
        {
            if (a.getByte(at + i) != b.getByte(from + i))
            {
                return false;
            }
        }
        return true;
    }

    private void reject(final int n, final String what)
    {
        corruptAccepted++;
        scannerAccepted++;
        violations.add("segment " + n + ": " + what);
    }
}
