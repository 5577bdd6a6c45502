package io.directlog.storage;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * Command lines for child JVMs that tests start many times (a kill loop's children, a broker per kill cycle): this
 * JVM's java binary, the caller's flags, this JVM's class path, and, when one can be made, an application
 * class-data-sharing archive. Class loading is most of a child's start, and CDS cuts it by about a third; the
 * archive is trained once per test JVM by one short run of the child that exits cleanly. CDS reads jars only, so
 * class directories (target/classes, target/test-classes, also named by surefire's manifest-only booter jar) are
 * packed into jars first. If anything about the archive fails, children start without it (slower, same behaviour).
 * <p>
 * Thread-safe after {@link #prepare}.
 */
public final class ChildJvmLauncher
{
    /** What a training run is given: a fresh directory of its own (deleted after the run). */
    @FunctionalInterface
    public interface TrainingArguments
    {
        /**
         * @param dir the run's directory.
         * @return the child's arguments.
         * @throws IOException when they cannot be made (the children then start without an archive).
         */
        List<String> in(Path dir) throws IOException;
    }

    /**
     * The one run whose JVM writes the archive at its exit: it should load the classes every child loads.
     *
     * @param archiveName the archive's file name in the work directory.
     * @param mainClass   the child's main class.
     * @param flags       JVM flags of this run only, after the launcher's own.
     * @param arguments   the child's arguments.
     * @param input       written to the child's standard input, which is then closed.
     * @param timeout     how long the run may take; a run that takes longer is killed and no archive is used.
     * @param output      where the child's output goes.
     */
    public record Training(String archiveName, String mainClass, List<String> flags, TrainingArguments arguments,
        String input, Duration timeout, ProcessBuilder.Redirect output)
    {
    }

    private final List<String> flags;
    private final String classPath;
    private final String archive;

    private ChildJvmLauncher(final List<String> flags, final String classPath, final String archive)
    {
        this.flags = List.copyOf(flags);
        this.classPath = classPath;
        this.archive = archive;
    }

    /**
     * Packs the class path into jars under {@code work} and trains an archive there with one run of the child.
     *
     * @param name     who launches, for the line that says whether children start with an archive.
     * @param work     a directory for the jars and the archive (created if missing).
     * @param flags    the JVM flags of every child.
     * @param training the training run.
     * @return the launcher; without an archive when it could not be made.
     */
    public static ChildJvmLauncher prepare(final String name, final Path work, final List<String> flags,
        final Training training)
    {
        final String plain = System.getProperty("java.class.path");
        try
        {
            Files.createDirectories(work);
            final String classPath = packedClassPath(plain, work);
            final String archive = train(work, flags, classPath, training);
            System.out.println(name + ": children start " + (archive == null ? "without" : "with") +
                " a CDS archive");
            return new ChildJvmLauncher(flags, classPath, archive);
        }
        catch (final IOException | RuntimeException e)
        {
            System.out.println(name + ": children start without a CDS archive: " + e);
            return new ChildJvmLauncher(flags, plain, null);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return new ChildJvmLauncher(flags, plain, null);
        }
    }

    /**
     * @param extraFlags JVM flags of this child only, after the launcher's.
     * @param mainClass  the child's main class.
     * @param args       its arguments.
     * @return the command line.
     */
    public List<String> command(final List<String> extraFlags, final String mainClass, final List<String> args)
    {
        final List<String> c = javaWith(flags);
        if (archive != null)
        {
            c.add("-XX:SharedArchiveFile=" + archive);
        }
        c.addAll(extraFlags);
        c.add("-cp");
        c.add(classPath);
        c.add(mainClass);
        c.addAll(args);
        return c;
    }

    /** @return true when children start with the trained archive. */
    public boolean hasArchive()
    {
        return archive != null;
    }

    private static List<String> javaWith(final List<String> flags)
    {
        final List<String> c = new ArrayList<>();
        c.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        c.addAll(flags);
        return c;
    }

    private static String packedClassPath(final String plain, final Path work) throws IOException
    {
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
        return String.join(File.pathSeparator, jars);
    }

    /** @return the archive's path, or null when the run failed or wrote none. */
    private static String train(final Path work, final List<String> flags, final String classPath,
        final Training training) throws IOException, InterruptedException
    {
        final Path jsa = work.resolve(training.archiveName());
        Files.deleteIfExists(jsa); // the JVM writes archives read-only
        final Path dir = Files.createTempDirectory(work, "train");
        try
        {
            final List<String> c = javaWith(flags);
            c.add("-XX:ArchiveClassesAtExit=" + jsa);
            c.addAll(training.flags());
            c.add("-cp");
            c.add(classPath);
            c.add(training.mainClass());
            c.addAll(training.arguments().in(dir));
            final Process p = new ProcessBuilder(c).redirectErrorStream(true).redirectOutput(training.output())
                .start();
            try (OutputStream in = p.getOutputStream())
            {
                in.write(training.input().getBytes(StandardCharsets.UTF_8));
            } // end of input: a child that reads it answers and exits
            if (!p.waitFor(training.timeout().toMillis(), TimeUnit.MILLISECONDS))
            {
                p.destroyForcibly().waitFor();
                return null;
            }
            return p.exitValue() == 0 && Files.exists(jsa) && Files.size(jsa) > 0 ? jsa.toString() : null;
        }
        finally
        {
            TestDirs.deleteQuietly(dir);
        }
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
