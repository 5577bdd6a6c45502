package io.directlog.broker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One running {@link ClusterNodeMain} child: started over a data directory, killed with SIGKILL, paused with
 * SIGSTOP and resumed with SIGCONT, and asked debug questions over its standard input. Its output goes to a file
 * beside the data directory ({@code node-N.out}, appended across restarts) for a person reading a failure.
 * <p>
 * Not thread-safe: driven by the test thread (the output is drained by a thread of its own).
 */
final class ClusterNodeProcess implements AutoCloseable
{
    /** A JVM start on two shared cores under load took up to 25 s; beyond this the start has failed. */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final int nodeId;
    private final Process process;
    private final PrintWriter questions;
    private final BlockingQueue<String> answers;
    private final long pid;
    /** What the node said of its start on its ready line (phase durations), and the launch-to-ready wall time. */
    private final String startInfo;
    private int seq;
    private boolean paused;

    private ClusterNodeProcess(final int nodeId, final Launched launched, final Path outFile, final long launchedAt)
        throws IOException, InterruptedException
    {
        this.nodeId = nodeId;
        this.process = launched.process();
        this.answers = launched.answers();
        this.questions = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        final String ready = answers.poll(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (ready == null || !ready.startsWith(ClusterNodeMain.READY))
        {
            process.destroyForcibly();
            throw new IOException("node " + nodeId + " did not start within " + START_TIMEOUT + " (got " + ready +
                "; see " + outFile + ")");
        }
        final String[] words = ready.substring(ClusterNodeMain.READY.length()).trim().split(" ", 2);
        pid = Long.parseLong(words[0]);
        startInfo = "launch_to_ready_ms=" + (System.currentTimeMillis() - launchedAt) +
            (words.length > 1 ? " " + words[1] : "");
    }

    /**
     * A started child whose output is drained from the start: a node logs at INFO while it starts, and a pipe nobody
     * reads fills (64 KiB) and blocks it, listening but deaf, until the test gets round to {@link #await}.
     *
     * @param process the child.
     * @param answers its answer and ready lines, as the drain finds them.
     */
    record Launched(Process process, BlockingQueue<String> answers)
    {
    }

    /**
     * @param command {@link ClusterNodeMain} and its arguments.
     * @param nodeId  the node's id, for the drain thread's name.
     * @param outFile where its output goes (appended).
     * @return the started child, its output drained by a thread of its own from now on; see {@link #await}.
     * @throws IOException when the process or the output file cannot be opened.
     */
    static Launched launch(final List<String> command, final int nodeId, final Path outFile) throws IOException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
        final Writer out;
        try
        {
            out = Files.newBufferedWriter(outFile, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        }
        catch (final IOException e)
        {
            process.destroyForcibly();
            throw e;
        }
        final Thread drain = new Thread(() -> drain(process, answers, out), "node-" + nodeId + "-output");
        drain.setDaemon(true);
        drain.start();
        return new Launched(process, answers);
    }

    /**
     * Waits until a launched node listens.
     *
     * @param p       the launched child ({@link #launch}).
     * @param nodeId  the node's id, for messages.
     * @param outFile where its output goes.
     * @param launchedAt when it was launched ({@link System#currentTimeMillis()}).
     * @return the running node.
     * @throws IOException when it does not start in time (it is killed then).
     */
    static ClusterNodeProcess await(final Launched p, final int nodeId, final Path outFile, final long launchedAt)
        throws IOException
    {
        try
        {
            return new ClusterNodeProcess(nodeId, p, outFile, launchedAt);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            p.process().destroyForcibly();
            throw new IOException("interrupted while starting node " + nodeId, e);
        }
    }

    private static void drain(final Process process, final BlockingQueue<String> answers, final Writer out)
    {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8)); out)
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                if (line.startsWith("@") || line.startsWith(ClusterNodeMain.READY))
                {
                    answers.add(line);
                }
                else
                {
                    out.write(line);
                    out.write('\n');
                    out.flush();
                }
            }
        }
        catch (final IOException e)
        {
            // the process is gone
        }
    }

    /** @return {@code launch_to_ready_ms=N jvm_to_main_ms=N main_to_ready_ms=N <broker phases>}. */
    String startInfo()
    {
        return startInfo;
    }

    int nodeId()
    {
        return nodeId;
    }

    boolean alive()
    {
        return process.isAlive();
    }

    boolean paused()
    {
        return paused;
    }

    /**
     * Asks a question and waits for its answer.
     *
     * @param question e.g. "STATE" or "DIGEST topic 0 1234".
     * @param timeout  how long the answer may take.
     * @return the answer without its sequence prefix.
     * @throws IllegalStateException when the node is paused, dead, or does not answer in time.
     */
    String ask(final String question, final Duration timeout) throws InterruptedException
    {
        if (paused || !process.isAlive())
        {
            throw new IllegalStateException("node " + nodeId + " cannot answer: " + (paused ? "paused" : "dead"));
        }
        final String prefix = "@" + (++seq) + " ";
        questions.println(seq + " " + question);
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true)
        {
            final String a = answers.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (a == null)
            {
                throw new IllegalStateException("node " + nodeId + " did not answer '" + question + "' within " +
                    timeout);
            }
            if (a.startsWith(prefix))
            {
                return a.substring(prefix.length());
            }
            // an answer to an earlier question that timed out: dropped
        }
    }

    /**
     * Waits for the process to end by itself.
     *
     * @param timeout how long it may take.
     * @return its exit status.
     * @throws AssertionError when it still runs after the timeout.
     */
    int awaitExit(final Duration timeout) throws InterruptedException
    {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
        {
            throw new AssertionError(this + " still runs after " + timeout);
        }
        return process.exitValue();
    }

    /** kill -9: the process ends without closing anything; waits until it is gone. */
    void kill() throws InterruptedException
    {
        process.destroyForcibly(); // SIGKILL on Linux, also to a stopped process
        if (!process.waitFor(30, TimeUnit.SECONDS))
        {
            throw new IllegalStateException("node " + nodeId + " (pid " + pid + ") survived SIGKILL for 30 s");
        }
        paused = false;
    }

    /** SIGSTOP: the process stays, its threads stop; its sockets keep accepting into the kernel's buffers. */
    void pause() throws IOException, InterruptedException
    {
        signal("STOP");
        paused = true;
    }

    /** SIGCONT. */
    void resume() throws IOException, InterruptedException
    {
        signal("CONT");
        paused = false;
    }

    private void signal(final String name) throws IOException, InterruptedException
    {
        final Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).redirectErrorStream(true)
            .start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0)
        {
            throw new IOException("kill -" + name + " " + pid + " failed: " +
                new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    /** Kills the process (cleanup after a test; a fault suite needs no clean stop). */
    @Override
    public void close()
    {
        try
        {
            final OutputStream in = process.getOutputStream();
            in.close();
        }
        catch (final IOException e)
        {
            // it is being killed anyway
        }
        process.destroyForcibly();
        try
        {
            process.waitFor(30, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString()
    {
        return "node " + nodeId + " (pid " + pid + (paused ? ", paused" : "") + ")";
    }
}
