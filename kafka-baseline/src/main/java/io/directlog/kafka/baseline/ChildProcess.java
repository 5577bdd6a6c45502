package io.directlog.kafka.baseline;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A broker running in a child JVM, and the one way this module stops it: SIGTERM (the broker's clean shutdown), a
 * grace period, then SIGKILL. A shutdown hook stops the child if this JVM exits first, so a failed test run leaves no
 * broker behind.
 *
 * <p>Thread-safe: {@link #stop()} may race with the shutdown hook; the child is stopped once.
 */
final class ChildProcess
{
    private final Process process;
    private final Duration stopGrace;
    private final Path deleteOnStop;
    private final Thread shutdownHook;
    private boolean stopped;

    /**
     * Takes charge of a started child.
     *
     * @param process   the child.
     * @param stopGrace how long its clean shutdown may take before it is killed.
     * @param name      names the shutdown hook's thread.
     * @param deleteOnStop a directory {@link #stop()} deletes once the child has stopped, or null.
     */
    ChildProcess(final Process process, final Duration stopGrace, final String name, final Path deleteOnStop)
    {
        this.process = process;
        this.stopGrace = stopGrace;
        this.deleteOnStop = deleteOnStop;
        this.shutdownHook = new Thread(() -> terminate(process, stopGrace), name + "-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts {@code command} with standard output and error in {@code logFile}.
     *
     * @param command the command line.
     * @param logFile where the child writes.
     * @return the started child.
     * @throws IOException when it cannot be started.
     */
    static Process start(final List<String> command, final Path logFile) throws IOException
    {
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(logFile.toFile()).start();
    }

    /**
     * The start of a command line that runs a class on a classpath with this JVM's {@code java}.
     *
     * @param classpath the child's classpath.
     * @return a mutable list: {@code java -cp classpath}; add options and the main class.
     */
    static List<String> javaCommand(final String classpath)
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(classpath);
        return command;
    }

    /** @return the child's process id, for measuring its CPU. */
    long pid()
    {
        return process.pid();
    }

    /** @return whether the child still runs. */
    boolean isAlive()
    {
        return process.isAlive();
    }

    /** @return the child's exit value; only once it has exited. */
    int exitValue()
    {
        return process.exitValue();
    }

    /**
     * Stops the child (SIGTERM, grace, SIGKILL), drops the shutdown hook and deletes the directory given for that.
     * Idempotent.
     */
    void stop()
    {
        stop(true);
    }

    /**
     * Stops several children at once and returns when all have stopped: members of a cluster stopped one after the
     * other would each wait for the next (Kafka's clean shutdown needs a controller quorum).
     *
     * @param children the children.
     */
    static void stopAll(final List<ChildProcess> children)
    {
        stopAll(children, true);
    }

    /**
     * As {@link #stopAll(List)}; {@code deleteFiles} false keeps each child's directory, for inspecting a failed start.
     *
     * @param children    the children.
     * @param deleteFiles whether each child deletes the directory it was given for that.
     */
    static void stopAll(final List<ChildProcess> children, final boolean deleteFiles)
    {
        final List<Thread> stops = new ArrayList<>();
        for (final ChildProcess child : children)
        {
            final Thread t = new Thread(() -> child.stop(deleteFiles), "child-process-stop");
            stops.add(t);
            t.start();
        }
        for (final Thread t : stops)
        {
            try
            {
                t.join();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Stops the child as {@link #stop()} does but keeps its directory, for inspecting a start that failed. */
    void stopKeepingFiles()
    {
        stop(false);
    }

    private synchronized void stop(final boolean delete)
    {
        if (stopped)
        {
            return;
        }
        stopped = true;
        try
        {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        }
        catch (final IllegalStateException ignore)
        {
            // The JVM is shutting down; the hook stops the child.
        }
        terminate(process, stopGrace);
        if (delete && deleteOnStop != null)
        {
            deleteRecursively(deleteOnStop);
        }
    }

    private static void terminate(final Process process, final Duration grace)
    {
        process.destroy();
        try
        {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS))
            {
                process.destroyForcibly();
                process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The last lines of a child's log, for an exception message.
     *
     * @param file  the log.
     * @param lines how many lines.
     * @return the file's name and its last lines, or why it could not be read.
     */
    static String tail(final Path file, final int lines)
    {
        try
        {
            final List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return file + " ends with:\n" + String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        }
        catch (final IOException | UncheckedIOException ex)
        {
            return "(" + file + " unreadable: " + ex + ")";
        }
    }

    /**
     * Deletes a directory tree, best effort: a temporary directory left behind is not worth failing a stopped broker
     * for.
     *
     * @param dir the tree's root.
     */
    static void deleteRecursively(final Path dir)
    {
        try (Stream<Path> paths = Files.walk(dir))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (final IOException ignore)
        {
            // See above.
        }
    }
}
