package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A record's views are valid until their batch closes; using one later gives an exception, never stale bytes
 * and never a crash. What could crash the JVM runs in a child JVM ({@link #main}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RecordViewAfterCloseTest
{
    private static StoreConfig config(final Path dir)
    {
        return TestStores.store(dir).memoryBudget(16L << 20).build();
    }

    @Test
    void recordAndPayloadViewsThrowAfterTheirBatchIsClosed() throws Exception
    {
        try (LogStore store = LogStore.open(config(TestDirs.create("view-after-close"))))
        {
            final Log log = store.log("a");
            for (int i = 0; i < 10; i++)
            {
                log.append(("record-" + i).getBytes()).join();
            }
            final RecordBatch batch = log.read(0, 1 << 16);
            final Record first = batch.iterator().next();
            final DirectBuffer payload = first.payload();
            assertEquals('r', payload.getByte(0));
            batch.close();
            assertThrows(IllegalStateException.class, first::offset);
            assertThrows(IllegalStateException.class, first::payload);
            assertThrows(RuntimeException.class, () -> payload.getByte(0));
        }
    }

    @Test
    void payloadHeldAcrossBatchAndStoreCloseThrowsInsteadOfCrashingTheJvm() throws Exception
    {
        final Result child = runChild("after-store-close");
        assertEquals(0, child.crashFiles(), "the JVM crashed:\n" + child.output());
        assertEquals(0, child.exitCode(), child.output());
        assertTrue(child.output().contains("payload after store close: refused"), child.output());
    }

    @Test
    void checkedModeCatchesAPayloadUsedAfterTheIteratorMovedOn() throws Exception
    {
        final Result child = runChild("checked-moved-on", "-Ddirectlog.checked.views=true");
        assertEquals(0, child.exitCode(), child.output());
        assertTrue(child.output().contains("moved on: refused: java.lang.IllegalStateException"), child.output());
        assertTrue(child.output().contains("after close: refused: java.lang.IllegalStateException"), child.output());
    }

    /** The child: {@code after-store-close <dir>} or {@code checked-moved-on <dir>}. */
    public static void main(final String[] args) throws Exception
    {
        final LogStore store = LogStore.open(config(Path.of(args[1])));
        {
            final Log log = store.log("a");
            for (int i = 0; i < 100; i++)
            {
                log.append(("record-" + i).getBytes()).join();
            }
            final RecordBatch batch = log.read(0, 1 << 20);
            final Iterator<Record> it = batch.iterator();
            final DirectBuffer payload = it.next().payload();
            if (args[0].equals("checked-moved-on"))
            {
                it.next();
                report("moved on", () -> payload.getByte(0));
                batch.close();
                report("after close", () -> payload.getByte(0));
                System.exit(0);
            }
            batch.close();
            store.close();
            long sum = 0;
            for (int i = 0; i < 1 << 16; i++)
            {
                sum += readOrMinusOne(payload, i);
            }
            report("payload after store close", () -> payload.getLong(0));
            System.out.println("sum " + sum);
        }
        System.exit(0);
    }

    private static long readOrMinusOne(final DirectBuffer payload, final int i)
    {
        try
        {
            return payload.getByte(i & 7);
        }
        catch (final RuntimeException e)
        {
            return -1;
        }
    }

    private static void report(final String what, final Runnable action)
    {
        try
        {
            action.run();
            System.out.println(what + ": read");
        }
        catch (final RuntimeException e)
        {
            System.out.println(what + ": refused: " + e);
        }
    }

    private static Result runChild(final String mode, final String... jvmFlags) throws Exception
    {
        final Path work = TestDirs.create("view-child");
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
        command.addAll(List.of(jvmFlags));
        command.add("-Xmx128m");
        command.add("-XX:ErrorLogTimeout=10");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(RecordViewAfterCloseTest.class.getName());
        command.add(mode);
        command.add(work.resolve("store").toString());
        final Process p = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS))
        {
            p.destroyForcibly();
            throw new AssertionError("child JVM did not finish: " + out);
        }
        try (Stream<Path> files = Files.list(work))
        {
            return new Result(p.exitValue(), out,
                files.filter(f -> f.getFileName().toString().startsWith("hs_err_pid")).count());
        }
    }

    private record Result(int exitCode, String output, long crashFiles)
    {
    }
}
