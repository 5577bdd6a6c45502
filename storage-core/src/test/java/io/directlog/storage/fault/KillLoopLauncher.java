package io.directlog.storage.fault;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.directlog.storage.ChildJvmLauncher;

/**
 * The kill loop's child command line: the brief's JVM flags and a class-data-sharing archive trained by one short
 * {@link KillLoopChild} run ({@link ChildJvmLauncher} builds the rest). Half of a cycle is the child's cold start
 * (class loading before the store is open), and CDS cuts that by about a third here, which is what keeps 300
 * cycles within the CI budget on a loaded 2-core machine.
 * <p>
 * Thread-safe after {@link #prepare}.
 */
final class KillLoopLauncher
{
    private static final List<String> FLAGS = List.of("--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/java.nio=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED", "-Xmx256m",
        "-XX:MaxDirectMemorySize=256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    private final ChildJvmLauncher launcher;

    private KillLoopLauncher(final ChildJvmLauncher launcher)
    {
        this.launcher = launcher;
    }

    /** Packs the class path into jars and trains a CDS archive with one short child run in {@code work}. */
    static KillLoopLauncher prepare(final Path work)
    {
        // the training child appends briefly and exits cleanly (KillLoopChild.TRAIN_PROP_NAME)
        final ChildJvmLauncher.Training training = new ChildJvmLauncher.Training("kill-child.jsa",
            KillLoopChild.class.getName(), List.of("-D" + KillLoopChild.TRAIN_PROP_NAME + "=true"),
            dir -> List.of(dir.toString(), "1", "MIXED", "4", "0"), "", Duration.ofSeconds(60),
            ProcessBuilder.Redirect.DISCARD);
        return new KillLoopLauncher(ChildJvmLauncher.prepare("KillLoopLauncher", work, FLAGS, training));
    }

    List<String> command(final String... args)
    {
        return launcher.command(List.of(), KillLoopChild.class.getName(), List.of(args));
    }

    boolean hasArchive()
    {
        return launcher.hasArchive();
    }
}
