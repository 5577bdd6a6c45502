package io.directlog.cli.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.directlog.cli.CommandLine;
import io.directlog.cli.UsageException;
import io.directlog.storage.LogConfig;

/**
 * The parsed options of {@code ./directlog bench}. Immutable once parsed.
 * <p>
 * Timing: every row measures for {@link #measureNanos()} after a warm-up of {@link #warmupNanos()} that is not
 * recorded. The defaults make a full run last about three minutes; {@code --quick} about 45 s.
 */
final class BenchOptions
{
    static final double DURATION_DEFAULT_SECONDS = 3.0;
    static final double DURATION_QUICK_SECONDS = 0.5;
    static final double DURATION_MAX_SECONDS = 3600;
    /** Data written and read back by engine-cold-read. */
    static final long COLD_READ_BYTES_DEFAULT = 512L << 20;
    static final long COLD_READ_BYTES_QUICK = 128L << 20;
    /** The most logs --logs accepts: ten times issue 18's goal. */
    static final int LOGS_MAX = 100_000;

    static final String USAGE = String.join("\n",
        "usage: ./directlog bench [options]",
        "",
        "Measures the raw device and the engine in the same run, so the ratios between rows mean something.",
        "Prints one progress line per scenario on stderr and a table at the end.",
        "",
        "options:",
        "  --dir DIR             where to write (default: a new directlog-bench-XXXX here, removed afterwards)",
        "  --only NAME[,NAME]    run only these scenarios (default: all but " + String.join(" and ", Scenarios.OPT_IN) +
            ")",
        "  --quick               about 45 s in total instead of about three minutes",
        "  --duration SECONDS    measurement per row (default " + DURATION_DEFAULT_SECONDS + ", --quick "
            + DURATION_QUICK_SECONDS + "); each row also warms up first",
        "  --json FILE           also write one JSON object per row and line to FILE",
        "  --logs N              logs of engine-many-logs (default " + EngineManyLogsScenario.LOGS_DEFAULT +
            ") and many-logs-footprint (default " + ManyLogsFootprintScenario.LOGS_DEFAULT + ")",
        "  --segment-size SIZE   segment size of those logs, such as 1m (default: the engine's, 64m); smaller",
        "                        segments show how the rest scales past the 16 logs 64 MiB pages fit in 1 GiB",
        "  --help                this text",
        "",
        "scenarios, in order:",
        Scenarios.describe(),
        "",
        "exit code: 0 all rows measured or unavailable here, 1 a scenario failed, 2 bad usage",
        "");

    private final Path directory;
    private final List<String> scenarios;
    private final boolean quick;
    private final double durationSeconds;
    private final Path jsonFile;
    private final boolean help;
    private final int logs;
    private final int segmentSize;

    private BenchOptions(final Path directory, final List<String> scenarios, final boolean quick,
        final double durationSeconds, final Path jsonFile, final boolean help, final int logs, final int segmentSize)
    {
        this.logs = logs;
        this.segmentSize = segmentSize;
        this.directory = directory;
        this.scenarios = List.copyOf(scenarios);
        this.quick = quick;
        this.durationSeconds = durationSeconds;
        this.jsonFile = jsonFile;
        this.help = help;
    }

    /**
     * @param args the arguments after {@code bench}; {@code --name value} and {@code --name=value} both work.
     * @return the options.
     * @throws UsageException naming the bad option or value.
     */
    static BenchOptions parse(final String[] args) throws UsageException
    {
        Path directory = null;
        List<String> only = Scenarios.DEFAULT_NAMES;
        boolean quick = false;
        Double duration = null;
        Path json = null;
        boolean help = false;
        int logs = 0;
        int segmentSize = 0;

        final CommandLine line = new CommandLine(args);
        while (line.next())
        {
            switch (line.name())
            {
                case "--help", "-h" -> help = line.flag();
                case "--quick" -> quick = line.flag();
                case "--dir" -> directory = Path.of(line.value());
                case "--json" -> json = Path.of(line.value());
                case "--only" -> only = scenarioNames(line.value());
                case "--duration" -> duration = seconds(line);
                case "--logs" -> logs = logCount(line.value());
                case "--segment-size" -> segmentSize = segmentSize(line.value());
                default -> throw line.unknown();
            }
        }

        final double seconds = duration != null ? duration : quick ? DURATION_QUICK_SECONDS : DURATION_DEFAULT_SECONDS;
        return new BenchOptions(directory, only, quick, seconds, json, help, logs, segmentSize);
    }

    /** @return the directory given with --dir, or null for a temporary one. */
    Path directory()
    {
        return directory;
    }

    /** @return the scenarios to run, in the stable order of {@link Scenarios#NAMES}. */
    List<String> scenarios()
    {
        return scenarios;
    }

    boolean quick()
    {
        return quick;
    }

    double durationSeconds()
    {
        return durationSeconds;
    }

    long measureNanos()
    {
        return (long)(durationSeconds * 1e9);
    }

    /** @return a quarter of the measurement, between 50 ms and 1 s: enough for the JIT and the device to settle. */
    long warmupNanos()
    {
        return Math.max(50_000_000L, Math.min(1_000_000_000L, measureNanos() / 4));
    }

    long coldReadBytes()
    {
        return quick ? COLD_READ_BYTES_QUICK : COLD_READ_BYTES_DEFAULT;
    }

    /** @return the file given with --json, or null. */
    Path jsonFile()
    {
        return jsonFile;
    }

    boolean help()
    {
        return help;
    }

    /** @return the logs given with --logs, or 0 when each many-logs scenario uses its own default. */
    int logs()
    {
        return logs;
    }

    /** @return the segment size given with --segment-size, or 0 for the engine's default. */
    int segmentSize()
    {
        return segmentSize;
    }

    private static int segmentSize(final String value) throws UsageException
    {
        final String v = value.trim().toLowerCase(Locale.ROOT);
        final int shift = v.endsWith("k") ? 10 : v.endsWith("m") ? 20 : v.endsWith("g") ? 30 : 0;
        final long bytes;
        try
        {
            bytes = Long.parseLong(shift == 0 ? v : v.substring(0, v.length() - 1)) << shift;
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException("--segment-size wants bytes, or a number with k, m or g, such as 1m, not '" +
                value + "'");
        }
        try
        {
            return LogConfig.builder().segmentSize((int)Math.min(bytes, Integer.MAX_VALUE)).build().segmentSize();
        }
        catch (final IllegalArgumentException ex)
        {
            throw new UsageException("--segment-size '" + value + "': " + ex.getMessage());
        }
    }

    private static int logCount(final String value) throws UsageException
    {
        final int n;
        try
        {
            n = Integer.parseInt(value.replace("_", "").replace(",", ""));
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException("--logs wants a count of logs, such as 1000, not '" + value + "'");
        }
        if (n < 1 || n > LOGS_MAX)
        {
            throw new UsageException("--logs must be between 1 and " + LOGS_MAX + ", not '" + value + "'");
        }
        return n;
    }

    private static double seconds(final CommandLine line) throws UsageException
    {
        final double seconds = line.doubleValue("seconds, such as 3 or 0.5");
        if (!(seconds > 0 && seconds <= DURATION_MAX_SECONDS))
        {
            throw new UsageException("--duration must be above 0 and at most " + (int)DURATION_MAX_SECONDS +
                " seconds, not " + seconds);
        }
        return seconds;
    }

    private static List<String> scenarioNames(final String value) throws UsageException
    {
        final Set<String> wanted = new LinkedHashSet<>();
        final List<String> unknown = new ArrayList<>();
        for (final String part : value.split(","))
        {
            final String name = part.trim().toLowerCase(Locale.ROOT);
            if (name.isEmpty())
            {
                continue;
            }
            if (Scenarios.NAMES.contains(name))
            {
                wanted.add(name);
            }
            else
            {
                unknown.add(part.trim());
            }
        }
        if (!unknown.isEmpty())
        {
            throw new UsageException("unknown scenario " + String.join(", ", unknown) + "; valid names: " +
                String.join(", ", Scenarios.NAMES));
        }
        if (wanted.isEmpty())
        {
            throw new UsageException("--only needs at least one scenario; valid names: " +
                String.join(", ", Scenarios.NAMES));
        }
        // Keep the stable order whatever order the names were given in, so tables of two runs line up.
        return Scenarios.NAMES.stream().filter(wanted::contains).toList();
    }
}
