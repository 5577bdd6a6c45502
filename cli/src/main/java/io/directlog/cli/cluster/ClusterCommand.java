package io.directlog.cli.cluster;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.directlog.cli.Command;
import io.directlog.cli.CommandLine;
import io.directlog.cli.Main;
import io.directlog.cli.UsageException;

/**
 * {@code ./directlog cluster}: starts a three-node cluster on one machine, each node a {@code ./directlog broker
 * --node-id N --peers ...} process of its own (so one can be killed with kill -9 and started again with the command
 * it prints), and stops them all on Ctrl-C or SIGTERM.
 * <p>
 * Used from the main thread; the shutdown hook runs on its own thread.
 */
public final class ClusterCommand implements Command
{
    static final String DIR_DEFAULT = "directlog-cluster-data";
    static final int BASE_PORT_DEFAULT = 19092;
    static final int NODES = 3;
    /** Raft ports sit this far above the Kafka ports. */
    static final int RAFT_PORT_OFFSET = 100;

    private static final String USAGE = String.join("\n",
        "usage: ./directlog cluster [--dir DIR] [--base-port PORT] [--topics NAME:PARTITIONS,...]",
        "",
        "Starts three broker processes on 127.0.0.1 that replicate every partition over all three (Raft, one group",
        "per partition; docs/replication.md). Node N (1..3) listens for Kafka clients on BASE+N-1 and for Raft on",
        "BASE+N-1+" + RAFT_PORT_OFFSET + ", keeps its data in DIR/node-N and its output in DIR/node-N.log. Ctrl-C or",
        "SIGTERM stops all three cleanly. Kill one (kill -9 PID) to watch another take over its partitions, and",
        "start it again with the command printed for it.",
        "",
        "  --dir DIR          data directory (default: ./" + DIR_DEFAULT + ")",
        "  --base-port PORT   the first node's Kafka port (default " + BASE_PORT_DEFAULT + ")",
        "  --topics LIST      the topics (default demo:3)",
        "  --help             this text",
        "");

    @Override
    public String name()
    {
        return "cluster";
    }

    @Override
    public String summary()
    {
        return "start a three-node replicated broker cluster on 127.0.0.1 (three processes)";
    }

    @Override
    public int run(final String[] args) throws Exception
    {
        Path dir = Path.of(DIR_DEFAULT);
        long basePort = BASE_PORT_DEFAULT;
        String topics = "demo:3";
        final CommandLine line = new CommandLine(args);
        while (line.next())
        {
            switch (line.name())
            {
                case "--help", "-h" ->
                {
                    System.out.print(USAGE);
                    return 0;
                }
                case "--dir" -> dir = Path.of(line.value());
                case "--base-port" -> basePort = line.longValue("a port number");
                case "--topics" -> topics = line.value();
                default -> throw line.unknown();
            }
        }
        if (basePort < 1 || basePort + NODES - 1 + RAFT_PORT_OFFSET > 65_535)
        {
            throw new UsageException("--base-port must leave room for " + NODES + " Kafka ports and their Raft ports " +
                "(+" + RAFT_PORT_OFFSET + ") below 65536, got " + basePort);
        }
        dir = dir.toAbsolutePath();
        Files.createDirectories(dir);
        final List<List<String>> commands = commands(dir, (int)basePort, topics);
        final List<Process> nodes = new ArrayList<>();
        final Thread hook = new Thread(() -> stopAll(nodes), "directlog-cluster-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        for (int n = 1; n <= NODES; n++)
        {
            final File log = dir.resolve("node-" + n + ".log").toFile();
            final Process p = new ProcessBuilder(commands.get(n - 1)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
            synchronized (nodes)
            {
                nodes.add(p);
            }
            System.out.println("directlog cluster: node " + n + " pid " + p.pid() + ", Kafka 127.0.0.1:" +
                (basePort + n - 1) + ", output " + log);
        }
        System.out.println("directlog cluster: bootstrap.servers=" + bootstrap((int)basePort));
        System.out.println("directlog cluster: restart a node (after kill -9 PID) from the repository with:");
        for (int n = 1; n <= NODES; n++)
        {
            final List<String> cmd = commands.get(n - 1);
            System.out.println("  ./directlog " + String.join(" ", cmd.subList(cmd.indexOf("broker"), cmd.size())) +
                " >> " + dir.resolve("node-" + n + ".log") + " 2>&1 &");
        }
        System.out.println("directlog cluster: Ctrl-C or SIGTERM stops all three");
        for (final Process p : List.copyOf(nodes))
        {
            final int code = p.waitFor();
            System.out.println("directlog cluster: pid " + p.pid() + " exited with " + code);
        }
        return 0;
    }

    static String bootstrap(final int basePort)
    {
        final List<String> out = new ArrayList<>();
        for (int n = 1; n <= NODES; n++)
        {
            out.add("127.0.0.1:" + (basePort + n - 1));
        }
        return String.join(",", out);
    }

    /** The command line of each node: this JVM's java, options and class path, running {@code broker}. */
    static List<List<String>> commands(final Path dir, final int basePort, final String topics)
    {
        final List<String> peers = new ArrayList<>();
        for (int n = 1; n <= NODES; n++)
        {
            peers.add(n + "=127.0.0.1:" + (basePort + n - 1) + ":" + (basePort + n - 1 + RAFT_PORT_OFFSET));
        }
        final List<List<String>> out = new ArrayList<>();
        for (int n = 1; n <= NODES; n++)
        {
            final List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "broker",
                "--node-id", Integer.toString(n), "--peers", String.join(",", peers), "--topics", topics,
                "--dir", dir.resolve("node-" + n).toString()));
            out.add(cmd);
        }
        return out;
    }

    /** SIGTERM to every node (each closes its broker cleanly), then waits for them, bounded. */
    private static void stopAll(final List<Process> nodes)
    {
        final List<Process> all;
        synchronized (nodes)
        {
            all = List.copyOf(nodes);
        }
        all.forEach(Process::destroy);
        for (final Process p : all)
        {
            try
            {
                if (!p.waitFor(30, TimeUnit.SECONDS))
                {
                    p.destroyForcibly();
                }
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
