package io.directlog.benchmarks.nativeio;

import io.directlog.nativeio.AlignedMemory;
import io.directlog.nativeio.NativeFile;
import io.directlog.nativeio.OpenFlags;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Per-call cost of JNA direct mapping versus interface mapping, for:
 * <ul>
 *   <li>{@code abs}: a libc function that never enters the kernel, so the figure is the binding alone;</li>
 *   <li>{@code getpid} and {@code fcntl(fd, F_GETFL)}: the cheapest system calls, binding plus kernel entry;</li>
 *   <li>{@code pwrite} of 4 KiB from aligned memory into a pre-zeroed file opened <em>without</em> O_DIRECT, so the
 *   page cache, not the device, answers; plus the same write through {@link NativeFile#write}, which adds the
 *   use-count CAS pair and the call counter of the {@code storage-native} facade.</li>
 * </ul>
 * Writes cycle over 256 pages of a 1 MiB file so that every call overwrites a cached page and the file never grows.
 * The data directory is {@code -Ddirectlog.bench.dir} (default {@code ./target/bench-data}); it should be on the
 * disk filesystem the engine will use, although with buffered writes the figures barely depend on it.
 * <p>
 * Not thread-safe; JMH runs it on one thread.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 2, jvmArgsAppend = {
    "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-opens", "java.base/java.nio=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Xms1g", "-Xmx1g", "-XX:MaxDirectMemorySize=1g" })
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Thread)
public class NativeCallBenchmark
{
    private static final int PAGE = 4096;
    private static final int PAGES = 256;
    private static final int F_GETFL = 3;

    private Path dir;
    private NativeFile file;
    private int fd;
    private AlignedMemory page;
    private long address;
    private int next;
    private int value = -12345;

    /**
     * Creates and pre-zeroes the file, opens it buffered, allocates the source page and binds both mappings.
     *
     * @throws IOException if the file cannot be created.
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        final String base = System.getProperty("directlog.bench.dir", "./target/bench-data");
        dir = Files.createTempDirectory(Files.createDirectories(Paths.get(base)), "nativecall-");
        final Path path = dir.resolve("pwrite.dat");
        Files.write(path, new byte[PAGE * PAGES], StandardOpenOption.CREATE_NEW, StandardOpenOption.SYNC);
        file = NativeFile.open(path, OpenFlags.READ_WRITE | OpenFlags.CLOEXEC);
        fd = file.fd();
        page = AlignedMemory.allocate(PAGE, PAGE);
        page.buffer().setMemory(0, PAGE, (byte)0x5A);
        address = page.address();
        // Bind both now so that class initialisation is not inside a measured call.
        if (DirectLibC.getpid() != InterfaceLibC.INSTANCE.getpid())
        {
            throw new IllegalStateException("the two bindings disagree about getpid");
        }
    }

    /**
     * Closes and deletes everything.
     *
     * @throws IOException if the file cannot be closed or deleted.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException
    {
        page.close();
        file.close();
        try (Stream<Path> paths = Files.walk(dir))
        {
            for (final Path p : (Iterable<Path>)paths.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.deleteIfExists(p);
            }
        }
    }

    private long nextPosition()
    {
        final int i = next;
        next = (i + 1) & (PAGES - 1);
        return (long)i * PAGE;
    }

    /** @return abs() through direct mapping. */
    @Benchmark
    public int absDirect()
    {
        return DirectLibC.abs(value);
    }

    /** @return abs() through interface mapping. */
    @Benchmark
    public int absInterface()
    {
        return InterfaceLibC.INSTANCE.abs(value);
    }

    /** @return getpid() through direct mapping. */
    @Benchmark
    public int getpidDirect()
    {
        return DirectLibC.getpid();
    }

    /** @return getpid() through interface mapping. */
    @Benchmark
    public int getpidInterface()
    {
        return InterfaceLibC.INSTANCE.getpid();
    }

    /** @return fcntl(fd, F_GETFL) through direct mapping. */
    @Benchmark
    public int fcntlDirect()
    {
        return DirectLibC.fcntl(fd, F_GETFL, 0);
    }

    /** @return fcntl(fd, F_GETFL) through interface mapping. */
    @Benchmark
    public int fcntlInterface()
    {
        return InterfaceLibC.INSTANCE.fcntl(fd, F_GETFL, 0);
    }

    /** @return bytes written by a 4 KiB pwrite through direct mapping. */
    @Benchmark
    public long pwrite4kDirect()
    {
        return DirectLibC.pwrite(fd, address, PAGE, nextPosition());
    }

    /** @return bytes written by a 4 KiB pwrite through interface mapping. */
    @Benchmark
    public long pwrite4kInterface()
    {
        return InterfaceLibC.INSTANCE.pwrite(fd, address, PAGE, nextPosition());
    }

    /**
     * @return bytes written by a 4 KiB pwrite through the storage-native facade (direct mapping underneath).
     * @throws IOException if the write fails.
     */
    @Benchmark
    public long pwrite4kFacade() throws IOException
    {
        return file.write(address, PAGE, nextPosition());
    }
}
