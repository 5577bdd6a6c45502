package io.directlog.cli.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ./directlog broker} as a process (issue 20): with no {@code --dir} it keeps its data under the directory
 * it runs in, prints where it listens and where the data goes, serves a Kafka client, and stops cleanly on SIGTERM
 * (the JVM's shutdown hook closes the broker and says so); started again it finds its topic.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class BrokerCommandTest
{
    private static final Pattern LISTENING = Pattern.compile("listening on (\\S+) \\(Kafka protocol\\), data in (.+), " +
        "(\\d+) topics");
    private static final long WAIT_SECONDS = 90;

    @Test
    void runsInTheForegroundServesClientsAndStopsCleanlyOnSigterm() throws Exception
    {
        final Path cwd = Files.createTempDirectory("directlog-broker-command");
        final Matcher first = runUntilListening(cwd, topics ->
        {
            try (Admin admin = admin(topics))
            {
                admin.createTopics(List.of(new NewTopic("kept", 2, (short)1))).all().get(60, TimeUnit.SECONDS);
            }
        });
        assertEquals(cwd.resolve("directlog-broker-data").toRealPath().toString(),
            cwd.resolve(first.group(2)).toRealPath().toString(), "the default data directory is under the working one");
        assertEquals("0", first.group(3));
        final Matcher second = runUntilListening(cwd, bootstrap ->
        {
            try (Admin admin = admin(bootstrap))
            {
                assertTrue(admin.listTopics().names().get(60, TimeUnit.SECONDS).contains("kept"));
            }
        });
        assertEquals("1", second.group(3), "the topic is there again after the clean stop");
    }

    private interface ClientStep
    {
        void run(String bootstrap) throws Exception;
    }

    /** Starts the command in {@code cwd}, runs {@code step} against it, sends SIGTERM, checks the clean stop. */
    private static Matcher runUntilListening(final Path cwd, final ClientStep step) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
            .toString(), "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens",
            "java.base/java.nio=ALL-UNNAMED", "-Xmx512m", "-cp", System.getProperty("java.class.path"),
            "io.directlog.cli.Main", "broker", "--port", "0"));
        final Process process = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true).start();
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final Thread reader = new Thread(() -> pump(process, lines), "broker-command-output");
        reader.setDaemon(true);
        reader.start();
        try
        {
            final Matcher listening = awaitLine(lines, LISTENING, new ArrayList<>());
            assertNotNull(listening, "no 'listening on' line in " + WAIT_SECONDS + " s");
            step.run(listening.group(1));
            // SIGTERM through the process handle: Process.destroy() also closes this side's pipes at once (JDK's
            // ProcessImpl.destroy), so the lines the shutdown hook prints after the signal were lost to the reader
            // ("Stream closed"); this is why the test once failed here while the command stopped cleanly by hand
            assertTrue(process.toHandle().destroy(), "SIGTERM could not be requested");
            assertTrue(process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS), "still running " + WAIT_SECONDS +
                " s after SIGTERM");
            final List<String> seen = new ArrayList<>();
            assertNotNull(awaitLine(lines, Pattern.compile("stopped; data is in"), seen), () ->
                "no clean stop reported; lines after 'listening': " + seen);
            return listening;
        }
        finally
        {
            process.destroyForcibly();
        }
    }

    private static Admin admin(final String bootstrap)
    {
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000);
        return Admin.create(p);
    }

    private static void pump(final Process process, final BlockingQueue<String> lines)
    {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                lines.add(line);
            }
        }
        catch (final IOException e)
        {
            lines.add("(output lost: " + e + ")");
        }
    }

    /** @return the first line matching, or null when none came within the wait. */
    private static Matcher awaitLine(final BlockingQueue<String> lines, final Pattern pattern, final List<String> seen)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (System.nanoTime() < deadline)
        {
            final String line = lines.poll(1, TimeUnit.SECONDS);
            if (line != null)
            {
                seen.add(line);
                final Matcher m = pattern.matcher(line);
                if (m.find())
                {
                    return m;
                }
            }
        }
        return null;
    }
}
