package io.directlog.benchmarks.raw;

import io.directlog.benchmarks.AbstractBenchmarkBase;
import io.directlog.benchmarks.BenchDirs;
import io.directlog.benchmarks.Payloads;
import io.directlog.nativeio.AlignedMemory;
import io.directlog.nativeio.Fadvise;
import io.directlog.nativeio.NativeFile;
import io.directlog.nativeio.OpenFlags;
import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * O_DIRECT pread against buffered pread (issue 4: "measure O_DIRECT reads against buffered pread"): one thread,
 * queue depth 1, each operation reads one {@link #chunk} of a pre-written file into posix_memalign'ed native
 * memory, at the next position ({@code sequential}, wrapping at the end) or at a seeded random chunk-aligned
 * position ({@code random}). The file is 2 GiB of random bytes (32 MiB in smoke mode), written with O_DIRECT and
 * fdatasync'ed at trial setup, so none of it is in the page cache when the trial starts.
 * <ul>
 *   <li>{@code direct}: an O_DIRECT descriptor, the engine's path; every read goes to the device.</li>
 *   <li>{@code buffered-cold}: a descriptor without O_DIRECT (default read-ahead). Before every iteration the
 *   file's pages are dropped with {@code posix_fadvise(POSIX_FADV_DONTNEED)} over the whole file (the pages are
 *   clean, so all of them go), so each iteration starts cold and measures the page cache's read path plus the
 *   copy. {@code /proc/sys/vm/drop_caches} is not used: it would empty the page cache of a shared machine and
 *   disturb everything else running on it.</li>
 *   <li>{@code buffered-warm}: the same descriptor, with the whole file read once at trial setup, so every read
 *   is a copy out of the page cache: the ceiling buffered I/O reaches only while the data fits in memory.</li>
 * </ul>
 * {@link ReadCounters#bytes} per second is the bandwidth (MiB/s = bytes / 2^20); the score is reads per second.
 * A cold sequential iteration that reads more than the whole file meets pages it cached itself earlier in the
 * same iteration; at 2 GiB a 1 s iteration stays below that on this machine's disk.
 * <p>
 * Not thread-safe; one thread.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
public class RawReadBenchmark extends AbstractBenchmarkBase
{
    /** Seeds the random positions, so every run reads the same sequence. */
    public static final long SEED = 0x5EED_4EADL;

    @Param({ "direct", "buffered-cold", "buffered-warm" })
    public String io;

    @Param({ "0004096", "0065536", "0262144", "1048576" })
    public String chunk;

    @Param({ "sequential", "random" })
    public String access;

    private Path dir;
    private NativeFile file;
    private AlignedMemory buffer;
    private int chunkSize;
    private long chunks;
    private long length;
    private boolean random;
    private SplittableRandom positions;
    private long next;

    /**
     * Writes the file with O_DIRECT, then opens the descriptor the trial reads through.
     *
     * @throws IOException when O_DIRECT, a write or the open fails.
     */
    @Setup(Level.Trial)
    public void open() throws IOException
    {
        dir = BenchDirs.create("raw-read");
        final Path path = dir.resolve("data");
        length = BenchDirs.choose(2 * GIB, 32L * MIB);
        chunkSize = size(chunk);
        chunks = length / chunkSize;
        random = switch (access)
        {
            case "sequential" -> false;
            case "random" -> true;
            default -> throw new IllegalArgumentException("access=" + access + " must be sequential or random");
        };
        write(path, length);
        final int flags = switch (io)
        {
            case "direct" -> OpenFlags.READ_ONLY | OpenFlags.DIRECT | OpenFlags.CLOEXEC;
            case "buffered-cold", "buffered-warm" -> OpenFlags.READ_ONLY | OpenFlags.CLOEXEC;
            default -> throw new IllegalArgumentException("io=" + io + " must be direct, buffered-cold or buffered-warm");
        };
        file = NativeFile.open(path, flags);
        buffer = AlignedMemory.allocate(chunkSize, RawFile.ALIGNMENT);
        if ("buffered-warm".equals(io))
        {
            try (AlignedMemory warm = AlignedMemory.allocate(MIB, RawFile.ALIGNMENT))
            {
                for (long position = 0; position < length; position += MIB)
                {
                    readFully(warm, position);
                }
            }
        }
        positions = new SplittableRandom(SEED);
        next = 0;
    }

    private static void write(final Path path, final long length) throws IOException
    {
        try (RawFile out = new NativeRawFile(path, false); RawFile.Block block = out.allocate(MIB))
        {
            block.buffer().put(Payloads.random(MIB));
            for (long position = 0; position < length; position += MIB)
            {
                out.write(block, position);
            }
            out.datasync();
        }
    }

    /**
     * Drops the file's cached pages before a cold iteration.
     *
     * @throws IOException when posix_fadvise fails.
     */
    @Setup(Level.Iteration)
    public void dropCache() throws IOException
    {
        if ("buffered-cold".equals(io))
        {
            file.fadvise(0, length, Fadvise.DONTNEED);
        }
    }

    /** Frees the buffer, closes and deletes the file. @throws IOException when closing fails. */
    @TearDown(Level.Trial)
    public void close() throws IOException
    {
        buffer.close();
        file.close();
        BenchDirs.delete(dir);
    }

    /** Bytes read, per second. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class ReadCounters
    {
        /** Bytes read into native memory. */
        public long bytes;

        /** Zeroes the counter. */
        @Setup(Level.Iteration)
        public void reset()
        {
            bytes = 0;
        }
    }

    /**
     * @param c the counters.
     * @return the position read.
     * @throws IOException when the read fails or ends early.
     */
    @Benchmark
    public long read(final ReadCounters c) throws IOException
    {
        final long position;
        if (random)
        {
            position = positions.nextLong(chunks) * chunkSize;
        }
        else
        {
            position = next;
            next = position + chunkSize == length ? 0 : position + chunkSize;
        }
        readFully(buffer, position);
        c.bytes += chunkSize;
        return position;
    }

    private void readFully(final AlignedMemory into, final long position) throws IOException
    {
        final long read = file.readFully(into.address(), into.size(), position);
        if (read != into.size())
        {
            throw new IOException("short read of " + file.path() + " at " + position + ": " + read + " of " +
                into.size() + " bytes");
        }
    }
}
