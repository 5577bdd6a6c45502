package io.directlog.broker;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.directlog.replication.ratis.RaftTransport;
import io.directlog.storage.ChildJvmLauncher;

/**
 * The command line of a {@link ClusterNodeMain} child: flags that keep a start cheap (C1 only, serial GC, small
 * heap) and a class-data-sharing archive trained by starting and cleanly stopping a one-node cluster, asked one
 * question on its standard input ({@link ChildJvmLauncher} builds the rest). The suite starts a broker JVM per kill
 * cycle, and class loading is most of a start.
 * <p>
 * Thread-safe after {@link #prepared}.
 */
final class ChildJvm
{
    /**
     * The node's SLF4J (Ratis, replication) at INFO, over the test JVM's quiet simplelogger.properties: elections,
     * role changes, log truncations and the broker's own warnings go to standard error, which the suite keeps in
     * {@code node-N.out} beside the node's data directory. Ratis prints every configuration key it reads at INFO
     * (ConfUtils, RaftServerConfigKeys: a quarter of a node's lines), once per group and start, and its shaded
     * Netty's LoggingHandler each bind: those only at WARN.
     */
    private static final List<String> LOGGING = List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        "-Dorg.slf4j.simpleLogger.log.org.apache.ratis=info", "-Dorg.slf4j.simpleLogger.log.io.directlog=info",
        "-Dorg.slf4j.simpleLogger.log.org.apache.ratis.conf.ConfUtils=warn",
        "-Dorg.slf4j.simpleLogger.log.org.apache.ratis.server.RaftServerConfigKeys=warn",
        "-Dorg.slf4j.simpleLogger.log.org.apache.ratis.thirdparty.io.netty.handler.logging.LoggingHandler=warn",
        "-Dorg.slf4j.simpleLogger.showThreadName=true");
    private static final List<String> FLAGS = flags();

    private static ChildJvm prepared;

    private final ChildJvmLauncher launcher;

    private ChildJvm(final ChildJvmLauncher launcher)
    {
        this.launcher = launcher;
    }

    /** @return the launcher of this test JVM, prepared on first use in {@code work} (one training run). */
    static synchronized ChildJvm prepared(final Path work)
    {
        if (prepared == null)
        {
            // the node answers the one STATE question, then the end of its input closes its broker and it exits
            final ChildJvmLauncher.Training training = new ChildJvmLauncher.Training("cluster-node.jsa",
                ClusterNodeMain.class.getName(), List.of(), ChildJvm::trainingArguments, "1 STATE\n",
                Duration.ofSeconds(120), ProcessBuilder.Redirect.to(work.resolve("train.out").toFile()));
            prepared = new ChildJvm(ChildJvmLauncher.prepare("ChildJvm (broker)", work, FLAGS, training));
        }
        return prepared;
    }

    /**
     * @return the children's flags; they use this JVM's Raft transport (-Ddirectlog.cluster.rpc=grpc|netty on the
     *     mvn command line) and its gRPC settings (directlog.cluster.grpc.*)
     */
    private static List<String> flags()
    {
        final List<String> c = new ArrayList<>(List.of("--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-opens", "java.base/java.nio=ALL-UNNAMED", "-Xmx256m", "-XX:MaxDirectMemorySize=192m",
            "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData"));
        c.addAll(LOGGING);
        c.add("-D" + RaftTransport.PROPERTY + "=" + RaftTransport.configured().propertyValue());
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("directlog.cluster.grpc."))
            .sorted().forEach(k -> c.add("-D" + k + "=" + System.getProperty(k)));
        return List.copyOf(c);
    }

    /** @return a one-node cluster in {@code dir} on two free ports, with one topic of one partition. */
    private static List<String> trainingArguments(final Path dir) throws IOException
    {
        final int[] ports = BrokerCluster.freePorts(2);
        return List.of(dir.toString(), "1", "1=127.0.0.1:" + ports[0] + ":" + ports[1], "train:1", "1000", "2000");
    }

    /** @return the command running {@link ClusterNodeMain} with the arguments. */
    List<String> command(final List<String> args)
    {
        // e.g. -Ddirectlog.cluster.childJvmOptions=-XX:StartFlightRecording=filename=/tmp/n.jfr to see a start
        final String extra = System.getProperty("directlog.cluster.childJvmOptions", "").trim();
        return launcher.command(extra.isEmpty() ? List.of() : List.of(extra.split("\\s+")),
            ClusterNodeMain.class.getName(), args);
    }
}
