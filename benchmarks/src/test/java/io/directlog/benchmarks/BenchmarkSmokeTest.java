package io.directlog.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.directlog.benchmarks.log.EngineProbe;
import io.directlog.nativeio.NativeIo;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * CI smoke mode: every benchmark method runs once, in this JVM (forks 0), no warmup, one 300 ms measurement
 * iteration, one thread per method, with one small {@code @Param} combination per suite and small data sets
 * ({@code directlog.bench.smoke=true}, set by the POM). A benchmark that throws fails the test.
 * <p>
 * The engine suites are skipped, with the engine's own message, exactly while {@code LogStore.open} answers
 * "the engine is not built yet"; the raw suites are skipped when native I/O is unavailable. Suites are found in
 * JMH's generated benchmark list, so a new one cannot slip out of the smoke run: a suite missing from
 * {@link #PARAMS} (another team's, such as {@code nativeio}) runs with the first value of each of its
 * {@code @Param}s.
 */
class BenchmarkSmokeTest
{
    /** One small parameter combination per suite; suites without parameters map to an empty map. */
    static final Map<String, Map<String, String>> PARAMS = Map.ofEntries(
        Map.entry("log.EngineAppendBenchmark", Map.of("durability", "DSYNC", "recordSize", "00100")),
        // 1 log: today's engine charges a 64 MiB write page per log against the budget (issue 18)
        Map.entry("log.EngineManyLogsBenchmark", Map.of("logs", "1")),
        Map.entry("log.EngineAppendFutureBenchmark", Map.of("durability", "DSYNC", "recordSize", "00100")),
        Map.entry("log.EngineTailReadBenchmark", Map.of()),
        Map.entry("log.EngineColdReplayBenchmark", Map.of()),
        Map.entry("log.EngineRandomReadBenchmark", Map.of("residency", "cold")),
        Map.entry("peers.RocksDbWalBenchmark", Map.of("sync", "true", "recordSize", "00100")),
        Map.entry("peers.FileChannelAppendBenchmark", Map.of("recordSize", "00100")),
        Map.entry("peers.MappedBufferAppendBenchmark", Map.of("recordSize", "00100")),
        Map.entry("peers.ChronicleQueueBenchmark", Map.of("sync", "true", "recordSize", "00100")),
        Map.entry("raw.RawOverwriteBenchmark", Map.of("impl", "nativeio", "sync", "DSYNC")),
        Map.entry("raw.RawSequentialBenchmark", Map.of("impl", "nativeio")),
        Map.entry("raw.RawReadBenchmark", Map.of("io", "buffered-cold", "chunk", "0065536", "access", "random")));

    private static final String PACKAGE = "io.directlog.benchmarks.";

    @TestFactory
    List<DynamicTest> everyBenchmarkRunsOnceWithoutError()
    {
        final Map<String, List<String>> methodsBySuite = suites();
        assertFalse(methodsBySuite.isEmpty(), "no benchmarks in META-INF/BenchmarkList");
        final List<DynamicTest> tests = new ArrayList<>();
        methodsBySuite.forEach((suite, methods) -> tests.add(DynamicTest.dynamicTest(suite + " " + methods,
            () -> runSuite(suite, methods.size()))));
        return tests;
    }

    private static Map<String, List<String>> suites()
    {
        final Map<String, List<String>> suites = new TreeMap<>();
        final Collection<BenchmarkListEntry> entries = BenchmarkList.defaultList()
            .getAll(OutputFormatFactory.createFormatInstance(System.out, VerboseMode.SILENT), List.of());
        for (final BenchmarkListEntry entry : new TreeSet<>(entries))
        {
            final String suite = entry.getUserClassQName().substring(PACKAGE.length());
            final List<String> methods = suites.computeIfAbsent(suite, k -> new ArrayList<>());
            final String method = entry.getUsername().substring(entry.getUserClassQName().length() + 1);
            if (!methods.contains(method))
            {
                methods.add(method);
            }
        }
        return suites;
    }

    private static Map<String, String> firstParamValues(final Class<?> suite)
    {
        final Map<String, String> values = new TreeMap<>();
        for (Class<?> c = suite; c != null; c = c.getSuperclass())
        {
            for (final Field field : c.getDeclaredFields())
            {
                final Param param = field.getAnnotation(Param.class);
                if (param != null && param.value().length > 0 && !values.containsKey(field.getName()))
                {
                    values.put(field.getName(), param.value()[0]);
                }
            }
        }
        return values;
    }

    private static void runSuite(final String suite, final int methodCount)
        throws RunnerException, ClassNotFoundException
    {
        final Map<String, String> params = new TreeMap<>(firstParamValues(Class.forName(PACKAGE + suite)));
        params.putAll(PARAMS.getOrDefault(suite, Map.of()));
        if (suite.startsWith("log."))
        {
            final String notBuilt = EngineProbe.notBuiltReason();
            assumeTrue(notBuilt == null, () -> "skipped while the engine is a skeleton: " + notBuilt);
        }
        if (suite.startsWith("raw."))
        {
            assumeTrue(NativeIo.isAvailable(), () -> "native I/O unavailable: " + NativeIo.unavailabilityCause());
        }
        final ChainedOptionsBuilder options = new OptionsBuilder()
            .include("^" + PACKAGE.replace(".", "\\.") + suite.replace(".", "\\.") + "\\.")
            .forks(0)
            .warmupIterations(0)
            .measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(300))
            .threads(1)
            .timeout(TimeValue.seconds(60)) // JMH interrupts an iteration that hangs this long past its time
            .shouldFailOnError(true)
            .verbosity(VerboseMode.NORMAL);
        params.forEach(options::param);
        final long start = System.nanoTime();
        final Collection<RunResult> results = new Runner(options.build()).run();
        System.out.printf("smoke %s: %d results in %d ms%n", suite, results.size(),
            (System.nanoTime() - start) / 1_000_000);
        final long distinctMethods = results.stream()
            .map(r -> r.getParams().getBenchmark()).distinct().count();
        assertEquals(methodCount, distinctMethods, "benchmark methods run in " + suite);
    }
}
