package io.directlog.kafka.baseline;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Runs each non-Java client's script under {@code compat/} against one broker (see {@link BrokerTargets}) and
 * asserts that every case it reports passed. A client whose toolchain is not installed is skipped, naming the
 * {@code .ci/run} step that installs it. Each script bounds its own waits; this test bounds the whole run.
 */
class ClientCompatibilityTest
{
    static final String COMPAT_DIR_PROP_NAME = "directlog.compat.dir";

    private static BrokerUnderTest broker;
    private static Path compatDir;
    private static Path outputDir;
    private static String runId;

    @BeforeAll
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    static void startBroker() throws IOException
    {
        compatDir = Path.of(System.getProperty(COMPAT_DIR_PROP_NAME, "../compat")).toAbsolutePath().normalize();
        outputDir = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "compat-output"));
        // Topic and group names are new in every run, so a long-lived external broker can be reused.
        runId = "compat-" + Long.toString(System.currentTimeMillis(), 36);
        if (Arrays.stream(CompatClient.values()).allMatch(client -> client.missingToolchain(compatDir).isPresent()))
        {
            System.out.println("compat: no client toolchain installed, so no broker started; .ci/run installs them");
            return;
        }
        final long started = System.nanoTime();
        broker = BrokerTargets.open();
        System.out.printf("compat: %s (ready in %.1f s), prefix %s%n",
            broker, (System.nanoTime() - started) / 1e9, runId);
    }

    @AfterAll
    static void stopBroker()
    {
        if (broker != null)
        {
            broker.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(CompatClient.class)
    void everyCasePasses(final CompatClient client) throws IOException, InterruptedException
    {
        final Optional<String> missing = client.missingToolchain(compatDir);
        missing.ifPresent(why -> System.out.println("COMPAT-SKIPPED client=" + client.clientName() + " " + why + "; " +
            client.installHint()));
        assumeTrue(missing.isEmpty(), () -> client.clientName() + " skipped: " + missing.orElse("") + "; " +
            client.installHint());

        final Path stdout = outputDir.resolve(client.clientName() + ".out");
        final Path stderr = outputDir.resolve(client.clientName() + ".err");
        final long started = System.nanoTime();
        final Process process = new ProcessBuilder(client.command(compatDir, broker.bootstrap(), runId))
            .directory(client.workingDirectory(compatDir).toFile())
            .redirectOutput(stdout.toFile())
            .redirectError(stderr.toFile())
            .start();
        final boolean exited = process.waitFor(client.timeout().toSeconds(), TimeUnit.SECONDS);
        if (!exited)
        {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        final List<String> lines = Files.readAllLines(stdout, StandardCharsets.UTF_8);
        final CompatOutput output = CompatOutput.parse(client.clientName(), lines);
        output.caseLines().forEach(System.out::println);
        System.out.printf("%s (%.1f s)%n", output.summary(), (System.nanoTime() - started) / 1e9);

        final String context = client.clientName() + " against " + broker + "; stdout " + stdout + ", stderr " + stderr +
            "\n" + tail(stderr);
        assertTrue(exited, () -> client.clientName() + " did not finish in " + client.timeout() + "; " + context);
        assertTrue(output.allPassed() && process.exitValue() == 0, () -> client.clientName() + " exit " +
            process.exitValue() + ", failed cases " + output.failedCases() + ", summary " + output.summary() + "; " +
            context);
    }

    private static String tail(final Path file) throws IOException
    {
        final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    }
}
