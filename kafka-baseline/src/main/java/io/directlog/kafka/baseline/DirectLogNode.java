package io.directlog.kafka.baseline;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * DirectLog's broker in a child JVM ({@link DirectLogNodeMain}) on a free loopback port with a fresh data directory:
 * the same shape as {@link KafkaNode}, so the compatibility suite and the broker benchmark treat both alike, and the
 * child's pid gives its CPU time.
 * <pre>{@code
 * try (DirectLogNode node = DirectLogNode.start(Files.createTempDirectory("dl-"), List.of())) {
 *     String bootstrap = node.bootstrap();
 * }
 * }</pre>
 * Thread-safe.
 */
public final class DirectLogNode implements BrokerUnderTest
{
    /** The JVM flags the storage engine needs (Agrona reaches JDK internals; JNA is native access). */
    public static final List<String> ENGINE_JVM_FLAGS = List.of(
        "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/java.nio=ALL-UNNAMED",
        "--enable-native-access=ALL-UNNAMED");

    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);

    private final Process process;
    private final Path dataDir;
    private final boolean deleteDataDir;
    private final String bootstrap;
    private final Thread shutdownHook;
    private boolean closed;

    private DirectLogNode(final Process process, final Path dataDir, final boolean deleteDataDir, final String bootstrap)
    {
        this.process = process;
        this.dataDir = dataDir;
        this.deleteDataDir = deleteDataDir;
        this.bootstrap = bootstrap;
        this.shutdownHook = new Thread(() -> stop(process), "directlog-node-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts the broker in a fresh temporary directory, deleted on {@link #close()}.
     *
     * @return the running node.
     * @throws IOException when it does not start in time; the message carries the tail of its log.
     */
    public static DirectLogNode start() throws IOException
    {
        return start(Files.createTempDirectory("directlog-node-"), true, List.of());
    }

    /**
     * Starts the broker on this JVM's classpath.
     *
     * @param dataDir       the directory for the broker's data and the child's log ({@code broker.log}).
     * @param deleteOnClose whether {@link #close()} deletes {@code dataDir}.
     * @param jvmOptions    extra options for the child JVM, e.g. {@code -Xmx1g}.
     * @return the running node.
     * @throws IOException when it does not start in time; the message carries the tail of its log.
     */
    public static DirectLogNode start(final Path dataDir, final boolean deleteOnClose, final List<String> jvmOptions)
        throws IOException
    {
        Files.createDirectories(dataDir);
        final Path logFile = dataDir.resolve("broker.log");
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ENGINE_JVM_FLAGS);
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(DirectLogNodeMain.class.getName());
        command.add(dataDir.resolve("data").toString());
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(logFile.toFile())
            .start();
        final long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        try
        {
            while (true)
            {
                final String bootstrap = bootstrapIn(Files.readString(logFile, StandardCharsets.UTF_8));
                if (bootstrap != null)
                {
                    return new DirectLogNode(process, dataDir, deleteOnClose, bootstrap);
                }
                if (!process.isAlive())
                {
                    throw new IOException("DirectLog's broker exited with " + process.exitValue() +
                        " before it started: " + tail(logFile));
                }
                if (System.nanoTime() - deadline > 0)
                {
                    throw new IOException("DirectLog's broker did not start in " + START_TIMEOUT + ": " + tail(logFile));
                }
                Thread.sleep(100);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            process.destroyForcibly();
            throw ex;
        }
        catch (final InterruptedException ex)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting DirectLog's broker", ex);
        }
    }

    static String bootstrapIn(final String log)
    {
        final int at = log.indexOf(DirectLogNodeMain.LISTENING_MARKER);
        if (at < 0)
        {
            return null;
        }
        final int end = log.indexOf('\n', at);
        return end < 0 ? null : log.substring(at + DirectLogNodeMain.LISTENING_MARKER.length(), end).trim();
    }

    @Override
    public String bootstrap()
    {
        return bootstrap;
    }

    /** @return the child's process id, for measuring its CPU. */
    public long pid()
    {
        return process.pid();
    }

    /** @return the directory holding the broker's data ({@code data/}) and log ({@code broker.log}). */
    public Path dataDir()
    {
        return dataDir;
    }

    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        }
        catch (final IllegalStateException ignore)
        {
            // The JVM is shutting down; the hook stops the child.
        }
        stop(process);
        if (deleteDataDir)
        {
            KafkaNode.deleteRecursively(dataDir);
        }
    }

    @Override
    public String toString()
    {
        return "DirectLog's broker at " + bootstrap + " (pid " + process.pid() + ", " + dataDir + ")";
    }

    private static void stop(final Process process)
    {
        process.destroy();
        try
        {
            if (!process.waitFor(30, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static String tail(final Path file) throws IOException
    {
        final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    }
}
