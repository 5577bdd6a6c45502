package io.directlog.benchmarks;

import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The defaults every suite shares: two forks with fixed heap and direct memory and the JVM flags the stack needs
 * (the root POM's {@code directlog.jvm.flags}), 5 x 1 s warmup, 10 x 1 s measurement, benchmark-scoped state.
 * <p>
 * Subclasses set up at {@code Level.Trial} or {@code Level.Iteration}, keep their files under
 * {@link BenchDirs#base()} and delete them in their tear-down. A subclass that needs more JVM flags (Chronicle
 * Queue) repeats the whole {@code @Fork}: JMH takes the nearest annotation, it does not merge them.
 * <p>
 * Producers are JMH threads. {@code @Threads} is static, so a suite that varies the producer count has one
 * {@code @Benchmark} method per count ({@code producers01}, {@code producers04}, {@code producers16},
 * {@code producers64}); the JSON's {@code threads} field carries the count, and {@code -t} on the command line
 * overrides it for every method at once.
 * <p>
 * Design note: the flags are spelled out rather than read from the POM because annotation values must be
 * compile-time constants; {@code BenchmarkDefaultsTest} checks that they still match {@code directlog.jvm.flags}.
 * <p>
 * Not thread-safe as such: JMH shares a subclass instance between its benchmark threads, and each subclass says
 * which of its fields producers touch and how.
 */
@Fork(value = 2, jvmArgsAppend = {
    "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-opens", "java.base/java.nio=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Xms2g", "-Xmx2g", "-XX:MaxDirectMemorySize=2g" })
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@State(Scope.Benchmark)
public abstract class AbstractBenchmarkBase
{
    /** Bytes in a KiB. */
    public static final int KIB = 1024;
    /** Bytes in a MiB. */
    public static final int MIB = 1024 * 1024;
    /** Bytes in a GiB. */
    public static final long GIB = 1024L * 1024 * 1024;

    /**
     * Parses a zero-padded size {@code @Param} ("00100" is 100 bytes).
     *
     * @param param the parameter's value.
     * @return the size in bytes.
     */
    protected static int size(final String param)
    {
        return Integer.parseInt(param);
    }
}
