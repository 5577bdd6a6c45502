package io.directlog.kafka.baseline;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

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

    private static final Duration STOP_GRACE = Duration.ofSeconds(30);

    private final ChildProcess child;
    private final Path dataDir;
    private final String bootstrap;

    private DirectLogNode(final ChildProcess child, final Path dataDir, final String bootstrap)
    {
        this.child = child;
        this.dataDir = dataDir;
        this.bootstrap = bootstrap;
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
        final List<String> command = ChildProcess.javaCommand(System.getProperty("java.class.path"));
        command.addAll(ENGINE_JVM_FLAGS);
        command.addAll(jvmOptions);
        command.add(DirectLogNodeMain.class.getName());
        command.add(dataDir.resolve("data").toString());
        final ChildProcess process = new ChildProcess(ChildProcess.start(command, logFile), STOP_GRACE,
            "directlog-node", deleteOnClose ? dataDir : null);
        final long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        try
        {
            while (true)
            {
                final String bootstrap = bootstrapIn(Files.readString(logFile, StandardCharsets.UTF_8));
                if (bootstrap != null)
                {
                    return new DirectLogNode(process, dataDir, bootstrap);
                }
                if (!process.isAlive())
                {
                    throw new IOException("DirectLog's broker exited with " + process.exitValue() +
                        " before it started: " + ChildProcess.tail(logFile, 20));
                }
                if (System.nanoTime() - deadline > 0)
                {
                    throw new IOException("DirectLog's broker did not start in " + START_TIMEOUT + ": " +
                        ChildProcess.tail(logFile, 20));
                }
                Thread.sleep(100);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            process.stopKeepingFiles();
            throw ex;
        }
        catch (final InterruptedException ex)
        {
            process.stopKeepingFiles();
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
        return child.pid();
    }

    /** @return the directory holding the broker's data ({@code data/}) and log ({@code broker.log}). */
    public Path dataDir()
    {
        return dataDir;
    }

    @Override
    public void close()
    {
        child.stop();
    }

    @Override
    public String toString()
    {
        return "DirectLog's broker at " + bootstrap + " (pid " + child.pid() + ", " + dataDir + ")";
    }


}
