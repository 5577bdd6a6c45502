package io.directlog.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.directlog.benchmarks.peers.ChronicleQueueBenchmark;
import io.directlog.benchmarks.peers.ChronicleReadBenchmark;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Fork;

/**
 * The JVM flags spelled out in the {@code @Fork} annotations stay in step with the POM properties they copy.
 */
class BenchmarkDefaultsTest
{
    @Test
    void baseForkCarriesTheStackFlagsFromTheRootPom() throws IOException
    {
        final List<String> fork = forkArgs(AbstractBenchmarkBase.class);
        final List<String> flags = pomProperty(Path.of("..", "pom.xml"), "directlog.jvm.flags");
        assertEquals(flags, fork.subList(0, flags.size()));
        assertTrue(fork.containsAll(List.of("-Xms2g", "-Xmx2g", "-XX:MaxDirectMemorySize=2g")), fork.toString());
        assertEquals(2, AbstractBenchmarkBase.class.getAnnotation(Fork.class).value());
    }

    @Test
    void chronicleForkCarriesTheBaseFlagsAndChronicleFlags() throws IOException
    {
        for (final Class<?> suite : List.of(ChronicleQueueBenchmark.class, ChronicleReadBenchmark.class))
        {
            final List<String> fork = forkArgs(suite);
            assertTrue(fork.containsAll(forkArgs(AbstractBenchmarkBase.class)), suite + " " + fork);
            assertTrue(fork.containsAll(pomProperty(Path.of("pom.xml"), "chronicle.jvm.flags")), suite + " " + fork);
        }
    }

    private static List<String> forkArgs(final Class<?> type)
    {
        return Arrays.asList(type.getAnnotation(Fork.class).jvmArgsAppend());
    }

    private static List<String> pomProperty(final Path pom, final String name) throws IOException
    {
        final Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]*)</").matcher(Files.readString(pom));
        assertTrue(m.find(), name + " in " + pom.toAbsolutePath());
        return Arrays.asList(m.group(1).trim().split("\\s+"));
    }
}
