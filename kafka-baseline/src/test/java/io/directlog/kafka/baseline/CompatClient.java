package io.directlog.kafka.baseline;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The non-Java clients of the compatibility suite: where each one's script lives under {@code compat/}, how to run
 * it, and how to tell that its toolchain is missing (and which {@code .ci/run} step installs it).
 *
 * <p>Immutable.
 */
enum CompatClient
{
    KCAT("kcat", "kcat", Duration.ofSeconds(180), "its apt step installs the Debian package kcat")
    {
        @Override
        List<String> command(final Path compatDir, final String bootstrap, final String prefix)
        {
            return List.of("bash", compatDir.resolve("kcat/run.sh").toString(), bootstrap, prefix);
        }

        @Override
        Optional<String> missingToolchain(final Path compatDir)
        {
            return onPath("kcat") ? Optional.empty() : Optional.of("kcat is not on the PATH");
        }
    },
    CONFLUENT_KAFKA("confluent-kafka", "python", Duration.ofSeconds(180),
        "its Python step makes compat/python/.venv from compat/python/requirements.txt")
    {
        @Override
        List<String> command(final Path compatDir, final String bootstrap, final String prefix)
        {
            return List.of(venvPython(compatDir).toString(), "confluent_kafka_compat.py", bootstrap, prefix);
        }

        @Override
        Optional<String> missingToolchain(final Path compatDir)
        {
            // .ci/run writes the stamp after pip installed every pinned client.
            return Files.isExecutable(venvPython(compatDir)) && Files.exists(compatDir.resolve("python/.venv/.installed")) ?
                Optional.empty() : Optional.of("no Python venv with the clients in compat/python/.venv");
        }
    },
    KAFKA_PYTHON("kafka-python", "python", Duration.ofSeconds(180), CONFLUENT_KAFKA.installedBy)
    {
        @Override
        List<String> command(final Path compatDir, final String bootstrap, final String prefix)
        {
            return List.of(venvPython(compatDir).toString(), "kafka_python_compat.py", bootstrap, prefix);
        }

        @Override
        Optional<String> missingToolchain(final Path compatDir)
        {
            return CONFLUENT_KAFKA.missingToolchain(compatDir);
        }
    },
    KAFKAJS("kafkajs", "node", Duration.ofSeconds(180), "its npm step runs npm ci in compat/node")
    {
        @Override
        List<String> command(final Path compatDir, final String bootstrap, final String prefix)
        {
            return List.of("node", "compat.js", bootstrap, prefix);
        }

        @Override
        Optional<String> missingToolchain(final Path compatDir)
        {
            if (!onPath("node"))
            {
                return Optional.of("node is not on the PATH");
            }
            return Files.isDirectory(compatDir.resolve("node/node_modules/kafkajs")) ? Optional.empty() :
                Optional.of("compat/node/node_modules has no kafkajs");
        }
    },
    // Generous: a cold build of franz-go took minutes on a loaded two-core machine; .ci/run warms the build cache.
    FRANZ_GO("franz-go", "go", Duration.ofSeconds(420), "its Go step runs go mod download and go build in compat/go")
    {
        @Override
        List<String> command(final Path compatDir, final String bootstrap, final String prefix)
        {
            return List.of("go", "run", ".", bootstrap, prefix);
        }

        @Override
        Optional<String> missingToolchain(final Path compatDir)
        {
            return onPath("go") ? Optional.empty() : Optional.of("go is not on the PATH");
        }
    };

    private final String clientName;
    private final String directory;
    private final Duration timeout;
    private final String installedBy;

    CompatClient(final String clientName, final String directory, final Duration timeout, final String installedBy)
    {
        this.clientName = clientName;
        this.directory = directory;
        this.timeout = timeout;
        this.installedBy = installedBy;
    }

    /** The name the script prints in its CASE and COMPAT-SUMMARY lines. */
    String clientName()
    {
        return clientName;
    }

    /** The directory under {@code compat/} the command runs in. */
    Path workingDirectory(final Path compatDir)
    {
        return compatDir.resolve(directory);
    }

    /** The bound on one run of the client's script, its toolchain's start-up included. */
    Duration timeout()
    {
        return timeout;
    }

    /** What to tell someone whose machine lacks the toolchain. */
    String installHint()
    {
        return ".ci/run installs it: " + installedBy;
    }

    abstract List<String> command(Path compatDir, String bootstrap, String prefix);

    /** Why the client cannot run here, or empty when it can. */
    abstract Optional<String> missingToolchain(Path compatDir);

    static Path venvPython(final Path compatDir)
    {
        return compatDir.resolve("python/.venv/bin/python");
    }

    static boolean onPath(final String program)
    {
        final String path = System.getenv("PATH");
        final List<Path> dirs = new ArrayList<>();
        for (final String dir : path == null ? new String[0] : path.split(java.io.File.pathSeparator))
        {
            if (!dir.isEmpty())
            {
                dirs.add(Path.of(dir));
            }
        }
        return dirs.stream().anyMatch(dir -> Files.isExecutable(dir.resolve(program)));
    }
}
