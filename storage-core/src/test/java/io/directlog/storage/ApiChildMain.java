package io.directlog.storage;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.directlog.nativeio.Errno;
import io.directlog.storage.io.ErrorInjectingBlockIo;
import io.directlog.storage.io.ErrorInjectingBlockIo.Op;

/**
 * The child JVM of the API fault tests: things that cannot be checked inside the test JVM, because a file lock
 * is per process or because a use-after-free would kill the JVM running the build.
 * <ul>
 *   <li>{@code lock <dir>}: opens a store on dir; exit 3 on {@link StoreLockedException}, 0 when it opened.</li>
 *   <li>{@code use-after-close <dir>}: holds a batch pinned from a cache page, a reader and a log handle across
 *   the store's close, then uses them; exit 0 unless the JVM dies.</li>
 *   <li>{@code close-during-sync <dir>}: closes a fail-stopped log while the syncer is inside a (stalled)
 *   fdatasync; exit 0 unless the JVM dies.</li>
 * </ul>
 */
public final class ApiChildMain
{
    static final int LOCKED = 3;

    private ApiChildMain()
    {
    }

    public static void main(final String[] args)
    {
        final Path dir = Path.of(args[1]);
        final StoreConfig config = StoreConfig.builder(dir).memoryBudget(32L << 20).writerThreads(1)
            .defaultLogConfig(LogConfig.builder().segmentSize(1 << 20).build()).build();
        switch (args[0])
        {
            case "lock" ->
            {
                try (LogStore store = LogStore.open(config))
                {
                    System.out.println("opened " + store.logNames());
                }
                catch (final StoreLockedException e)
                {
                    System.out.println("locked: " + e.getMessage());
                    System.exit(LOCKED);
                }
            }
            case "use-after-close" -> useAfterClose(config);
            case "close-during-sync" -> closeDuringSync(dir);
            default -> throw new IllegalArgumentException(args[0]);
        }
        System.exit(0);
    }

    private static void useAfterClose(final StoreConfig config)
    {
        final LogStore store = LogStore.open(config);
        final Log log = store.log("a");
        for (int i = 0; i < 100; i++)
        {
            log.append(("record-" + i).getBytes(), Durability.DIRECT).join();
        }
        final RecordBatch batch = log.read(0, 1 << 20);
        final LogReader reader = log.reader(0);
        store.close();
        long sum = 0;
        try
        {
            for (final Record r : batch)
            {
                sum += r.payloadBytes().length; // must not touch freed memory
            }
            System.out.println("batch after close: " + sum + " bytes");
        }
        catch (final RuntimeException e)
        {
            System.out.println("batch after close: " + e);
        }
        batch.close();
        report("read", () -> log.read(0, 100).close());
        report("poll", () -> reader.poll(100).close());
        report("append", () -> log.append(new byte[1]).join());
        report("offsetForTimestamp", () -> log.offsetForTimestamp(0));
        report("stats", log::stats);
    }

    /**
     * Closes a fail-stopped log while the syncer is inside its fdatasync (stalled 400 ms), so the syncer's tick
     * goes on after close() freed the log's resources.
     */
    private static void closeDuringSync(final Path dir)
    {
        final ErrorInjectingBlockIo io = IoErrorFaultTest.injecting(1);
        final LogConfig lc = LogConfig.builder().segmentSize(1 << 20).durability(Durability.DIRECT)
            .syncInterval(java.time.Duration.ofMillis(50)).build();
        try (LogStore store = LogStore.open(IoErrorFaultTest.config(dir, io, lc)))
        {
            final Log log = store.log("a");
            for (int i = 0; i < 100; i++)
            {
                log.append(new byte[1000], Durability.DIRECT).join();
            }
            io.stallOneIn(Op.DATASYNC, 1, 400, 400,
                ErrorInjectingBlockIo.named(".log"));
            while (io.injections().isEmpty())
            {
                Thread.onSpinWait(); // until the syncer is inside a stalled fdatasync
            }
            io.failCall(Op.WRITE, 1, Errno.EIO,
                ErrorInjectingBlockIo.named(".log"));
            report("append", () -> log.append(new byte[1000], Durability.DIRECT).join());
            log.close();
            System.out.println("closed while the syncer is in fdatasync");
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000_000L);
            for (int i = 0; i < 200; i++)
            {
                org.agrona.BufferUtil.allocateDirectAligned(4096, 4096); // lets malloc notice a corrupted heap
            }
            for (int i = 0; i < 10; i++)
            {
                store.log("b" + i).append(new byte[10], Durability.DSYNC).join();
            }
        }
        System.out.println("store closed");
    }

    private static void report(final String what, final Runnable action)
    {
        try
        {
            action.run();
            System.out.println(what + " after close: no error");
        }
        catch (final RuntimeException e)
        {
            System.out.println(what + " after close: " + e);
        }
    }

    /**
     * Runs this class in a new JVM with the test JVM's class path and module flags.
     *
     * @return the exit code and output.
     */
    static Result run(final Path workDir, final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse(
            System.getProperty("java.home") + File.separator + "bin" + File.separator + "java"));
        for (final String a : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (a.startsWith("--add-opens") || a.startsWith("--enable-native-access") || a.startsWith("-Djna"))
            {
                command.add(a);
            }
        }
        command.add("-Xmx128m");
        command.add("-XX:ErrorLogTimeout=10"); // a corrupted native heap can hang the crash report for minutes
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ApiChildMain.class.getName());
        command.addAll(List.of(args));
        final Process p = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS))
        {
            p.destroyForcibly();
            throw new AssertionError("child JVM did not finish: " + out);
        }
        final long crashFiles;
        try (Stream<Path> files = Files.list(workDir))
        {
            crashFiles = files.filter(f -> f.getFileName().toString().startsWith("hs_err_pid")).count();
        }
        return new Result(p.exitValue(), out, crashFiles);
    }

    record Result(int exitCode, String output, long crashFiles)
    {
    }
}
