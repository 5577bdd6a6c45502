package io.directlog.broker;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import io.directlog.replication.ratis.RaftTransport;

/**
 * The command line of a {@link ClusterNodeMain} child: this JVM's java binary, flags that keep a start cheap (C1
 * only, serial GC, small heap), this JVM's class path, and, when one can be made, an application class-data-sharing
 * archive. The suite starts a broker JVM per kill cycle, and class loading is most of a start: the archive is
 * trained once per test JVM by starting and cleanly stopping a one-node cluster. CDS reads jars only, so class
 * directories (target/classes, target/test-classes, also named by surefire's manifest-only booter jar) are packed
 * into jars first. If anything about the archive fails, children start without it (slower, same behaviour).
 * storage-core's KillLoopLauncher does the same for its own child; this one trains a broker.
 * <p>
 * Thread-safe after {@link #prepared}.
 */
final class ChildJvm
{
    private static ChildJvm prepared;

    private final String classPath;
    private final String archive;

    private ChildJvm(final String classPath, final String archive)
    {
        this.classPath = classPath;
        this.archive = archive;
    }

    /** @return the launcher of this test JVM, prepared on first use in {@code work} (one training run). */
    static synchronized ChildJvm prepared(final Path work)
    {
        if (prepared == null)
        {
            prepared = prepare(work);
        }
        return prepared;
    }

    /** @return the command running {@link ClusterNodeMain} with the arguments. */
    List<String> command(final List<String> args)
    {
        final List<String> c = base();
        if (archive != null)
        {
            c.add("-XX:SharedArchiveFile=" + archive);
        }
        // e.g. -Ddirectlog.cluster.childJvmOptions=-XX:StartFlightRecording=filename=/tmp/n.jfr to see a start
        final String extra = System.getProperty("directlog.cluster.childJvmOptions", "").trim();
        if (!extra.isEmpty())
        {
            c.addAll(List.of(extra.split("\\s+")));
        }
        c.add("-cp");
        c.add(classPath);
        c.add(ClusterNodeMain.class.getName());
        c.addAll(args);
        return c;
    }

    boolean hasArchive()
    {
        return archive != null;
    }

    private static List<String> base()
    {
        final List<String> c = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
            .toString(), "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens",
            "java.base/java.nio=ALL-UNNAMED", "-Xmx256m", "-XX:MaxDirectMemorySize=192m", "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC", "-XX:-UsePerfData"));
        // the children use this JVM's Raft transport (-Ddirectlog.cluster.rpc=grpc|netty on the mvn command line)
        // and its gRPC settings (directlog.cluster.grpc.*)
        c.add("-D" + RaftTransport.PROPERTY + "=" + RaftTransport.configured().propertyValue());
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("directlog.cluster.grpc."))
            .sorted().forEach(k -> c.add("-D" + k + "=" + System.getProperty(k)));
        return c;
    }

    private static ChildJvm prepare(final Path work)
    {
        final String plain = System.getProperty("java.class.path");
        try
        {
            Files.createDirectories(work);
            final List<String> jars = new ArrayList<>();
            int n = 0;
            for (final String e : plain.split(File.pathSeparator))
            {
                for (final String entry : expand(e))
                {
                    final Path p = Path.of(entry);
                    if (Files.isDirectory(p))
                    {
                        final Path jar = work.resolve("cp-" + n++ + ".jar");
                        pack(p, jar);
                        jars.add(jar.toString());
                    }
                    else if (Files.exists(p))
                    {
                        jars.add(entry);
                    }
                }
            }
            final String classPath = String.join(File.pathSeparator, jars);
            final String archive = train(work, classPath);
            System.out.println("ChildJvm: broker children start " + (archive == null ? "without" : "with") +
                " a CDS archive");
            return new ChildJvm(classPath, archive);
        }
        catch (final IOException | RuntimeException e)
        {
            System.out.println("ChildJvm: children start without a CDS archive: " + e);
            return new ChildJvm(plain, null);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return new ChildJvm(plain, null);
        }
    }

    /** Starts a one-node cluster with -XX:ArchiveClassesAtExit, asks it a question, and stops it cleanly. */
    private static String train(final Path work, final String classPath) throws IOException, InterruptedException
    {
        final Path jsa = work.resolve("cluster-node.jsa");
        Files.deleteIfExists(jsa); // the JVM writes archives read-only
        final Path dir = Files.createTempDirectory(work, "train");
        final int[] ports = BrokerCluster.freePorts(2);
        final List<String> c = base();
        c.add("-XX:ArchiveClassesAtExit=" + jsa);
        c.add("-cp");
        c.add(classPath);
        c.add(ClusterNodeMain.class.getName());
        c.addAll(List.of(dir.toString(), "1", "1=127.0.0.1:" + ports[0] + ":" + ports[1], "train:1", "1000",
            "2000"));
        final Process p = new ProcessBuilder(c).redirectErrorStream(true)
            .redirectOutput(work.resolve("train.out").toFile()).start();
        try (PrintWriter in = new PrintWriter(p.getOutputStream(), true, StandardCharsets.UTF_8))
        {
            in.println("1 STATE");
        } // end of input: the node answers, closes its broker and exits
        if (!p.waitFor(120, TimeUnit.SECONDS))
        {
            p.destroyForcibly().waitFor();
            return null;
        }
        return p.exitValue() == 0 && Files.exists(jsa) && Files.size(jsa) > 0 ? jsa.toString() : null;
    }

    /** Surefire's manifest-only booter jar names the real class path in its manifest. */
    private static List<String> expand(final String entry) throws IOException
    {
        final List<String> out = new ArrayList<>();
        if (entry.endsWith(".jar") && Path.of(entry).getFileName().toString().startsWith("surefirebooter") &&
            Files.exists(Path.of(entry)))
        {
            try (JarFile jar = new JarFile(entry))
            {
                final String cp = jar.getManifest() == null ? null :
                    jar.getManifest().getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
                if (cp != null)
                {
                    for (final String u : cp.trim().split("\\s+"))
                    {
                        out.add(Path.of(URI.create(u)).toString());
                    }
                    return out;
                }
            }
        }
        out.add(entry);
        return out;
    }

    private static void pack(final Path dir, final Path jar) throws IOException
    {
        try (OutputStream os = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(os);
            Stream<Path> files = Files.walk(dir))
        {
            for (final Path f : (Iterable<Path>)files.filter(Files::isRegularFile).sorted()::iterator)
            {
                out.putNextEntry(new JarEntry(dir.relativize(f).toString().replace(File.separatorChar, '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
        }
    }
}
