package io.directlog.kafka.baseline;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Apache Kafka in a child JVM: one KRaft node that is broker and controller, listening on two free loopback ports,
 * over a fresh data directory. {@link #start(Config)} formats the storage, starts {@code kafka.Kafka} and returns
 * once the node has logged that it started and its client port accepts connections; {@link #close()} stops it with
 * SIGTERM (Kafka's clean shutdown) and, when the data directory was made here, deletes it.
 *
 * <p>The child runs on a classpath holding {@code kafka_2.13} and its dependencies; by default the one this JVM runs
 * on (this module's runtime classpath pulls them in), see {@link Config#classpath(String)}.
 *
 * <p>Design note: a child process rather than Kafka inside this JVM, because Kafka's shutdown calls
 * {@code Exit.exit}, keeps static metrics registries and threads, and because the broker comparison must measure the
 * broker's CPU apart from the load generator's.
 *
 * <p>Thread-safe: {@link #close()} may race with a shutdown hook.
 */
public final class KafkaNode implements BrokerUnderTest
{
    /** System property naming the classpath the child JVM runs on, when this JVM's classpath lacks Kafka. */
    public static final String CLASSPATH_PROP_NAME = "directlog.kafka.classpath";
    /** The line {@code KafkaRaftServer} logs when the node is up. */
    static final String STARTED_MARKER = "Kafka Server started";
    private static final String VERSION_MARKER = "Kafka version: ";
    /** How long Kafka's clean shutdown may take before it is killed; it took over 10 s here under load. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);

    private final ChildProcess child;
    private final Path dataDir;
    private final Path logFile;
    private final String bootstrap;
    private final String version;

    private KafkaNode(
        final ChildProcess child, final Path dataDir, final Path logFile,
        final String bootstrap, final String version)
    {
        this.child = child;
        this.dataDir = dataDir;
        this.logFile = logFile;
        this.bootstrap = bootstrap;
        this.version = version;
    }

    /**
     * Formats a fresh data directory, starts Kafka and waits until it serves clients.
     *
     * @param config where and how to run it.
     * @return the running node.
     * @throws IOException when the data directory cannot be made, formatting fails, or the node does not start in
     *                     time; the message carries the tail of the node's log.
     */
    public static KafkaNode start(final Config config) throws IOException
    {
        final boolean madeDataDir = config.dataDir == null;
        final Path dataDir = madeDataDir ? Files.createTempDirectory("kafka-baseline-") : config.dataDir;
        Files.createDirectories(dataDir);
        final int clientPort = freeLoopbackPort();
        int controllerPort = freeLoopbackPort();
        while (controllerPort == clientPort)
        {
            controllerPort = freeLoopbackPort();
        }

        final Path properties = dataDir.resolve("server.properties");
        Files.writeString(properties, serverProperties(config, dataDir.resolve("log"), clientPort, controllerPort));
        final Path logFile = dataDir.resolve("kafka.log");
        try
        {
            format(config, properties, dataDir.resolve("format.log"));
            final ChildProcess process = launch(config, properties, logFile, madeDataDir ? dataDir : null);
            final String bootstrap = "127.0.0.1:" + clientPort;
            final String version;
            try
            {
                version = awaitStarted(process, logFile, clientPort, config.startTimeout);
            }
            catch (final IOException | RuntimeException ex)
            {
                process.stopKeepingFiles();
                throw ex;
            }
            return new KafkaNode(process, dataDir, logFile, bootstrap, version);
        }
        catch (final IOException | RuntimeException ex)
        {
            if (madeDataDir)
            {
                ex.addSuppressed(new IOException("data directory kept for inspection: " + dataDir));
            }
            throw ex;
        }
    }

    @Override
    public String bootstrap()
    {
        return bootstrap;
    }

    /**
     * The version the node logged at start, e.g. {@code 4.4.0}.
     *
     * @return the version, or {@code "unknown"} if the log did not say.
     */
    public String version()
    {
        return version;
    }

    /**
     * The child's process id, for measuring its CPU.
     *
     * @return the pid.
     */
    public long pid()
    {
        return child.pid();
    }

    /**
     * Where the node keeps its configuration, log and data.
     *
     * @return the data directory.
     */
    public Path dataDir()
    {
        return dataDir;
    }

    /**
     * The child's standard output and error.
     *
     * @return the log file inside {@link #dataDir()}.
     */
    public Path logFile()
    {
        return logFile;
    }

    @Override
    public void close()
    {
        child.stop();
    }

    @Override
    public String toString()
    {
        return "Apache Kafka " + version + " at " + bootstrap + " (pid " + child.pid() + ", " + dataDir + ")";
    }

    static String serverProperties(
        final Config config, final Path logDir, final int clientPort, final int controllerPort)
    {
        final Map<String, String> props = singleNodeProperties(logDir, clientPort, controllerPort);
        props.putAll(config.brokerProperties);
        return text(props);
    }

    /**
     * The properties of node {@code nodeId} of a cluster of combined broker+controller nodes with a static quorum
     * ({@code controller.quorum.voters}): the internal topics keep Kafka's defaults (three replicas, two in sync),
     * and the config's broker properties come last, so they override.
     */
    static String clusterMemberProperties(final Config config, final Path logDir, final int nodeId,
        final int clientPort, final int controllerPort, final String voters)
    {
        final Map<String, String> props = singleNodeProperties(logDir, clientPort, controllerPort);
        props.put("node.id", Integer.toString(nodeId));
        props.remove("controller.quorum.bootstrap.servers");
        props.put("controller.quorum.voters", voters);
        props.keySet().removeIf(key -> key.endsWith(".replication.factor") || key.endsWith(".min.isr"));
        props.putAll(config.brokerProperties);
        return text(props);
    }

    private static String text(final Map<String, String> props)
    {
        final StringBuilder text = new StringBuilder();
        props.forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
        return text.toString();
    }

    private static Map<String, String> singleNodeProperties(final Path logDir, final int clientPort,
        final int controllerPort)
    {
        final String client = "127.0.0.1:" + clientPort;
        final String controller = "127.0.0.1:" + controllerPort;
        final Map<String, String> props = new LinkedHashMap<>();
        props.put("process.roles", "broker,controller");
        props.put("node.id", "1");
        props.put("controller.quorum.bootstrap.servers", controller);
        props.put("listeners", "PLAINTEXT://" + client + ",CONTROLLER://" + controller);
        props.put("advertised.listeners", "PLAINTEXT://" + client + ",CONTROLLER://" + controller);
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
        props.put("log.dirs", logDir.toString());
        props.put("num.partitions", "1");
        // One node: the internal topics cannot have the default three replicas.
        props.put("offsets.topic.replication.factor", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("share.coordinator.state.topic.replication.factor", "1");
        props.put("share.coordinator.state.topic.min.isr", "1");
        // The default 3 s delay before the first rebalance of a new group only slows tests down.
        props.put("group.initial.rebalance.delay.ms", "0");
        return props;
    }

    private static void format(final Config config, final Path properties, final Path formatLog) throws IOException
    {
        format(config, properties, formatLog, randomClusterId(), true);
    }

    /**
     * Formats a node's storage: {@code standalone} for a one-node quorum of its own, else for the static quorum its
     * properties name (every member formatted with the same cluster id).
     */
    static void format(final Config config, final Path properties, final Path formatLog, final String clusterId,
        final boolean standalone) throws IOException
    {
        final List<String> command = javaCommand(config);
        command.add("-Xmx256m");
        command.add("kafka.tools.StorageTool");
        command.addAll(List.of("format", "-t", clusterId, "-c", properties.toString()));
        if (standalone)
        {
            command.add("--standalone");
        }
        final Process format = new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(formatLog.toFile())
            .start();
        try
        {
            if (!format.waitFor(config.startTimeout.toMillis(), TimeUnit.MILLISECONDS))
            {
                format.destroyForcibly();
                throw new IOException("kafka-storage format did not finish in " + config.startTimeout + ": " +
                    tail(formatLog));
            }
        }
        catch (final InterruptedException ex)
        {
            format.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while formatting", ex);
        }
        if (format.exitValue() != 0)
        {
            throw new IOException("kafka-storage format exited with " + format.exitValue() + ": " + tail(formatLog));
        }
    }

    /** Starts {@code kafka.Kafka} on a formatted node's properties; {@code deleteOnStop} may be null. */
    static ChildProcess launch(final Config config, final Path properties, final Path logFile,
        final Path deleteOnStop) throws IOException
    {
        final List<String> command = javaCommand(config);
        command.addAll(config.jvmOptions);
        command.add("kafka.Kafka");
        command.add(properties.toString());
        return new ChildProcess(ChildProcess.start(command, logFile), STOP_GRACE, "kafka-node", deleteOnStop);
    }

    /** @return the config's data directory, or null for a temporary one. */
    static Path dataDir(final Config config)
    {
        return config.dataDir;
    }

    /** @return the config's start timeout, for a cluster that starts its members itself. */
    static Duration startTimeout(final Config config)
    {
        return config.startTimeout;
    }

    static String awaitStarted(
        final ChildProcess process, final Path logFile, final int clientPort, final Duration timeout) throws IOException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true)
        {
            final String log = Files.exists(logFile) ? Files.readString(logFile, StandardCharsets.UTF_8) : "";
            if (log.contains(STARTED_MARKER) && accepts(clientPort))
            {
                return versionIn(log);
            }
            if (!process.isAlive())
            {
                throw new IOException("Kafka exited with " + process.exitValue() + " before it started: " +
                    tail(logFile));
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new IOException("Kafka did not start in " + timeout + ": " + tail(logFile));
            }
            sleepMillis(200);
        }
    }

    static String versionIn(final String log)
    {
        final int at = log.indexOf(VERSION_MARKER);
        if (at < 0)
        {
            return "unknown";
        }
        int end = at + VERSION_MARKER.length();
        while (end < log.length() && !Character.isWhitespace(log.charAt(end)))
        {
            end++;
        }
        return log.substring(at + VERSION_MARKER.length(), end);
    }

    static boolean accepts(final int port)
    {
        try (Socket socket = new Socket())
        {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1_000);
            return true;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }


    private static List<String> javaCommand(final Config config)
    {
        return ChildProcess.javaCommand(config.classpath != null ? config.classpath : defaultClasspath());
    }

    private static String defaultClasspath()
    {
        final String configured = System.getProperty(CLASSPATH_PROP_NAME);
        // Under surefire java.class.path may be a manifest-only jar; its Class-Path entries serve the child too.
        return configured != null && !configured.isBlank() ? configured : System.getProperty("java.class.path");
    }

    /** A KRaft cluster id: 16 random bytes, URL-safe Base64 without padding, never starting with '-' (as Kafka's Uuid). */
    static String randomClusterId()
    {
        final SecureRandom random = new SecureRandom();
        final byte[] bytes = new byte[16];
        String id;
        do
        {
            random.nextBytes(bytes);
            id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        }
        while (id.startsWith("-"));
        return id;
    }

    static int freeLoopbackPort() throws IOException
    {
        // The port is free now; another process could take it before Kafka binds it, which the start then reports.
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }

    static String tail(final Path file)
    {
        return ChildProcess.tail(file, 30);
    }

    private static void sleepMillis(final long millis) throws IOException
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for Kafka to start", ex);
        }
    }


    /**
     * How to run a {@link KafkaNode}. Not thread-safe; build it, then start.
     */
    public static final class Config
    {
        private Path dataDir;
        private String classpath;
        private Duration startTimeout = Duration.ofSeconds(120);
        private final List<String> jvmOptions = new ArrayList<>(List.of("-Xms512m", "-Xmx512m"));
        private final Map<String, String> brokerProperties = new LinkedHashMap<>();

        /**
         * Where the configuration, log and data go; it must be empty or absent. Default: a new temporary directory,
         * deleted on close.
         *
         * @param dataDir the directory.
         * @return this.
         */
        public Config dataDir(final Path dataDir)
        {
            this.dataDir = dataDir;
            return this;
        }

        /**
         * The classpath of the child JVM. Default: {@value #CLASSPATH_PROP_NAME} if set, else this JVM's.
         *
         * @param classpath a path-separator-separated classpath holding {@code kafka_2.13}.
         * @return this.
         */
        public Config classpath(final String classpath)
        {
            this.classpath = classpath;
            return this;
        }

        /**
         * How long formatting and starting may each take. Default 120 s (a loaded two-core machine took 60 s to start).
         *
         * @param startTimeout the bound.
         * @return this.
         */
        public Config startTimeout(final Duration startTimeout)
        {
            this.startTimeout = startTimeout;
            return this;
        }

        /**
         * Replaces the child's JVM options. Default {@code -Xms512m -Xmx512m}.
         *
         * @param options the options, e.g. {@code -Xmx1g}.
         * @return this.
         */
        public Config jvmOptions(final String... options)
        {
            jvmOptions.clear();
            jvmOptions.addAll(List.of(options));
            return this;
        }

        /**
         * Adds or overrides a line of {@code server.properties}, e.g. {@code log.flush.interval.messages=1}.
         *
         * @param key   the broker configuration name.
         * @param value its value.
         * @return this.
         */
        public Config brokerProperty(final String key, final String value)
        {
            brokerProperties.put(key, value);
            return this;
        }
    }
}
