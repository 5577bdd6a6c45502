package io.directlog.storage.fault;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
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

/**
 * Builds the kill loop's child command line: the current java binary, the brief's JVM flags, this JVM's class
 * path, and, when it can be made, an application class-data-sharing archive. Half of a cycle is the child's cold
 * start (class loading before the store is open), and CDS cuts that by about a third here, which is what keeps
 * 300 cycles within the CI budget on a loaded 2-core machine. CDS needs jars, so class directories (surefire's
 * target/classes and target/test-classes, also behind its manifest-only booter jar) are packed into jars first.
 * If anything about the archive fails, children start without it.
 * <p>
 * Thread-safe after {@link #prepare}.
 */
final class KillLoopLauncher
{
    private final List<String> base = new ArrayList<>();
    private final String classPath;
    private String archive;

    private KillLoopLauncher(final String classPath)
    {
        this.classPath = classPath;
        base.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        base.add("--add-opens");
        base.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        base.add("--add-opens");
        base.add("java.base/java.nio=ALL-UNNAMED");
        base.add("--enable-native-access=ALL-UNNAMED");
        base.add("-Xmx256m");
        base.add("-XX:MaxDirectMemorySize=256m");
        base.add("-XX:+UseSerialGC");
        base.add("-XX:TieredStopAtLevel=1");
    }

    /** Packs the class path into jars and trains a CDS archive with one short child run in {@code work}. */
    static KillLoopLauncher prepare(final Path work)
    {
        try
        {
            final List<String> entries = new ArrayList<>();
            for (final String e : System.getProperty("java.class.path").split(File.pathSeparator))
            {
                entries.addAll(expand(e));
            }
            final List<String> jars = new ArrayList<>();
            int n = 0;
            for (final String e : entries)
            {
                final Path p = Path.of(e);
                if (Files.isDirectory(p))
                {
                    final Path jar = work.resolve("cp-" + n++ + ".jar");
                    pack(p, jar);
                    jars.add(jar.toString());
                }
                else if (Files.exists(p))
                {
                    jars.add(e);
                }
            }
            final KillLoopLauncher launcher = new KillLoopLauncher(String.join(File.pathSeparator, jars));
            launcher.train(work);
            return launcher;
        }
        catch (final IOException | RuntimeException e)
        {
            System.out.println("KillLoopLauncher: children start without a CDS archive: " + e);
            return new KillLoopLauncher(System.getProperty("java.class.path"));
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return new KillLoopLauncher(System.getProperty("java.class.path"));
        }
    }

    List<String> command(final String... args)
    {
        final List<String> c = new ArrayList<>(base);
        if (archive != null)
        {
            c.add("-XX:SharedArchiveFile=" + archive);
        }
        c.add("-cp");
        c.add(classPath);
        c.add(KillLoopChild.class.getName());
        c.addAll(List.of(args));
        return c;
    }

    boolean hasArchive()
    {
        return archive != null;
    }

    private void train(final Path work) throws IOException, InterruptedException
    {
        final Path jsa = work.resolve("kill-child.jsa");
        Files.deleteIfExists(jsa); // the JVM writes archives read-only
        final Path dir = Files.createTempDirectory(work, "train");
        final List<String> c = new ArrayList<>(base);
        c.add("-XX:ArchiveClassesAtExit=" + jsa);
        c.add("-D" + KillLoopChild.TRAIN_PROP_NAME + "=true");
        c.add("-cp");
        c.add(classPath);
        c.add(KillLoopChild.class.getName());
        c.addAll(List.of(dir.toString(), "1", "MIXED", "4", "0"));
        final Process p = new ProcessBuilder(c).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(60, TimeUnit.SECONDS))
        {
            p.destroyForcibly().waitFor();
        }
        Dirs.delete(dir);
        if (p.exitValue() == 0 && Files.size(jsa) > 0)
        {
            archive = jsa.toString();
        }
        else
        {
            System.out.println("KillLoopLauncher: the CDS training run exited " + p.exitValue() +
                "; children start without an archive");
        }
    }

    /** Surefire's manifest-only booter jar names the real class path in its manifest. */
    private static List<String> expand(final String entry) throws IOException
    {
        final List<String> out = new ArrayList<>();
        if (entry.endsWith(".jar") && Files.exists(Path.of(entry)))
        {
            try (JarFile jar = new JarFile(entry))
            {
                final String cp = jar.getManifest() == null ? null :
                    jar.getManifest().getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
                if (cp != null && Path.of(entry).getFileName().toString().startsWith("surefirebooter"))
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
